// The CORS policy of the main port, as SMG's tower-http CorsLayer: permissive (`*`) without
// --cors-allowed-origins, exactly the listed origins with it; every OPTIONS is a preflight
// answered by the policy; and the rule that refuses entries no browser sends as `Origin`.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { corsOriginProblem } from '../../../src/config/cors-origin.js';
import { createCorsPolicy } from '../../../src/server/cors.js';

const APP = 'https://app.example.com';

void describe('without --cors-allowed-origins every origin is allowed', () => {
  const policy = createCorsPolicy([]);

  it('sends `*` for the origin and the exposed headers, with or without Origin, and no Vary', () => {
    const expected = [
      ['access-control-allow-origin', '*'],
      ['access-control-expose-headers', '*'],
    ];
    assert.equal(policy.mode, 'any');
    for (const origin of [undefined, APP, 'http://127.0.0.1:5173', 'null'])
      assert.deepEqual(policy.headersFor(origin).regular, expected, String(origin));
  });

  it('answers a preflight with every method and header allowed for an hour', () => {
    assert.deepEqual(policy.headersFor(APP).preflight, {
      'access-control-allow-origin': '*',
      'access-control-allow-methods': '*',
      'access-control-allow-headers': '*',
      'access-control-max-age': '3600',
      'content-length': '0',
    });
  });
});

void describe('with --cors-allowed-origins only those origins are allowed', () => {
  const policy = createCorsPolicy([APP, 'http://localhost:3000']);

  it('echoes a listed origin, with Vary: origin and x-request-id exposed', () => {
    assert.equal(policy.mode, 'list');
    assert.deepEqual(policy.headersFor('http://localhost:3000').regular, [
      ['vary', 'origin'],
      ['access-control-allow-origin', 'http://localhost:3000'],
      ['access-control-expose-headers', 'x-request-id'],
    ]);
  });

  it('answers a listed preflight with SMG fixed methods and request headers (no PUT, no x-api-key)', () => {
    assert.deepEqual(policy.headersFor(APP).preflight, {
      vary: 'origin',
      'access-control-allow-origin': APP,
      'access-control-allow-methods': 'GET,POST,PATCH,DELETE,OPTIONS',
      'access-control-allow-headers': 'content-type,authorization',
      'access-control-max-age': '3600',
      'content-length': '0',
    });
  });

  it('gives an unlisted or absent origin no Access-Control-Allow-Origin, but still Vary: origin', () => {
    // Matching is byte for byte, as tower-http: another case or a trailing slash is another origin.
    for (const origin of [
      undefined,
      'https://evil.example',
      'https://APP.example.com',
      `${APP}/`,
    ]) {
      const { regular, preflight } = policy.headersFor(origin);
      assert.deepEqual(
        regular,
        [
          ['vary', 'origin'],
          ['access-control-expose-headers', 'x-request-id'],
        ],
        String(origin),
      );
      assert.equal('access-control-allow-origin' in preflight, false, String(origin));
      assert.equal(preflight.vary, 'origin');
    }
  });
});

/** A response stand-in recording what the policy writes. */
function fakeExchange(method: string, origin?: string) {
  const set: Record<string, string> = {};
  let head: { status: number; headers: Record<string, string> } | undefined;
  let ended = false;
  const res = {
    setHeader(name: string, value: string) {
      set[name] = value;
      return res;
    },
    writeHead(status: number, headers: Record<string, string>) {
      head = { status, headers };
      return res;
    },
    end() {
      ended = true;
      return res;
    },
  };
  const req = { method, headers: origin === undefined ? {} : { origin } };
  return {
    req: req as unknown as IncomingMessage,
    res: res as unknown as ServerResponse,
    set,
    head: () => head,
    ended: () => ended,
  };
}

void describe('handle: preflight detection and the headers left for the answer', () => {
  const policy = createCorsPolicy([APP]);

  it('answers every OPTIONS itself with 200 and an empty body, as tower-http', () => {
    // tower-http does not look for Access-Control-Request-Method: a bare OPTIONS is a preflight.
    for (const origin of [APP, 'https://evil.example', undefined]) {
      const x = fakeExchange('OPTIONS', origin);
      assert.equal(policy.handle(x.req, x.res), true);
      assert.equal(x.head()?.status, 200);
      assert.deepEqual(x.head()?.headers, policy.headersFor(origin).preflight);
      assert.equal(x.ended(), true);
      assert.deepEqual(x.set, {});
    }
  });

  it('lets every other method through with the headers set on the response', () => {
    for (const method of ['GET', 'POST', 'HEAD', 'DELETE', 'PUT']) {
      const x = fakeExchange(method, APP);
      assert.equal(policy.handle(x.req, x.res), false, method);
      assert.equal(x.head(), undefined);
      assert.equal(x.ended(), false);
      assert.deepEqual(x.set, {
        vary: 'origin',
        'access-control-allow-origin': APP,
        'access-control-expose-headers': 'x-request-id',
      });
    }
  });
});

void describe('--cors-allowed-origins entries', () => {
  it('accepts origins in the form browsers send them', () => {
    for (const entry of [
      APP,
      'http://localhost:3000',
      'http://127.0.0.1:8080',
      'http://[::1]:8080',
      'https://xn--bcher-kva.example',
      'chrome-extension://abcdefghijklmnopabcdefghijklmnop',
      'tauri://localhost',
      'null',
    ])
      assert.equal(corsOriginProblem(entry), undefined, entry);
  });

  it('refuses an entry that can never equal an Origin header, naming the spelling that would', () => {
    const respelled: [string, string][] = [
      [`${APP}/`, APP],
      [`${APP}/v1/chat`, APP],
      ['HTTPS://App.Example.com', APP],
      ['https://app.example.com:443', APP],
      ['http://localhost:80', 'http://localhost'],
      ['https://bücher.example', 'https://xn--bcher-kva.example'],
      ['chrome-extension://abc/', 'chrome-extension://abc'],
    ];
    for (const [entry, origin] of respelled)
      assert.equal(
        corsOriginProblem(entry),
        `expects the origin as a browser sends it, '${origin}'`,
        entry,
      );
  });

  it('refuses what is not an origin at all', () => {
    const shape =
      'expects an origin such as https://app.example.com (scheme://host[:port], no path)';
    for (const entry of [
      '',
      'app.example.com',
      'localhost:3000',
      'https://',
      'https://u:p@a.example',
    ])
      assert.equal(corsOriginProblem(entry), shape, entry);
    assert.equal(
      corsOriginProblem('*'),
      'expects scheme://host[:port] origins (to allow every origin, leave the flag out)',
    );
    assert.equal(
      corsOriginProblem('https://a.example,https://b.example'),
      'expects one origin per value (separate origins with spaces)',
    );
    assert.equal(
      corsOriginProblem('file:///tmp/page.html'),
      "expects a web origin (file: pages send 'null')",
    );
  });
});
