// CORS on the main port, as SMG's outermost tower-http layer: every OPTIONS is a preflight the
// gateway answers itself (200, empty, no auth, no routing, never sent to a worker), and every
// other answer carries the CORS headers, the gateway's own errors and event streams included.
// Without --cors-allowed-origins any origin is allowed (`*`); with it only the listed ones.
// The probe and metrics listeners send none, as SMG's.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startSimWorker, type SimWorker } from '@switchyard/sim';
import type { Gateway } from '../../src/server/gateway.js';
import {
  assertAllReleased,
  scrapeMetrics,
  startTestGateway,
  waitForReadyWorkers,
} from '../helpers/gateway.js';
import { assertGatewayError } from '../helpers/http.js';

const APP = 'http://app.example:8080';
const KEY = 'sk-cors';
const CHAT = { model: 'sim-model', messages: [{ role: 'user', content: 'hi' }], max_tokens: 3 };

let worker: SimWorker;
/** No --cors-allowed-origins: permissive. Small body limit, probe listener on. */
let open: Gateway;
/** --cors-allowed-origins APP, and --api-key. */
let listed: Gateway;

before(async () => {
  worker = await startSimWorker({ ttftMs: 1, itlMs: 1, outputTokens: 3 });
  open = await startTestGateway([
    '--worker-urls',
    worker.url,
    '--max-payload-size',
    '1024',
    '--health-check-port',
    '0',
  ]);
  listed = await startTestGateway([
    '--worker-urls',
    worker.url,
    '--api-key',
    KEY,
    '--cors-allowed-origins',
    APP,
    'http://localhost:3000',
  ]);
  await waitForReadyWorkers(open, 1);
  await waitForReadyWorkers(listed, 1);
});

after(async () => {
  await open.close();
  await listed.close();
  await worker.close();
});

/** Every access-control-* and vary header of an answer. */
function corsHeaders(res: Response): Record<string, string> {
  const out: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    if (name.startsWith('access-control-') || name === 'vary') out[name] = value;
  });
  return out;
}

function preflight(url: string, origin: string | undefined, extra: Record<string, string> = {}) {
  return fetch(url, {
    method: 'OPTIONS',
    headers: {
      ...(origin === undefined ? {} : { origin }),
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization,content-type',
      ...extra,
    },
  });
}

const ANY_REGULAR = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': '*',
};

function listedRegular(origin?: string): Record<string, string> {
  return {
    vary: 'origin',
    ...(origin === undefined ? {} : { 'access-control-allow-origin': origin }),
    'access-control-expose-headers': 'x-request-id',
  };
}

void describe('preflights are answered by the gateway', () => {
  test('permissive: 200, empty body, everything allowed for an hour, no request id', async () => {
    for (const path of ['/v1/chat/completions', '/workers', '/no/such/route']) {
      const res = await preflight(`${open.url}${path}`, APP);
      assert.equal(res.status, 200, path);
      assert.equal(await res.text(), '');
      assert.deepEqual(corsHeaders(res), {
        'access-control-allow-origin': '*',
        'access-control-allow-methods': '*',
        'access-control-allow-headers': '*',
        'access-control-max-age': '3600',
      });
      // SMG's request-id layer sits inside its CORS layer.
      assert.equal(res.headers.get('x-request-id'), null);
    }
  });

  test('with a list and --api-key: a listed origin is echoed, without a key and without 401', async () => {
    const expected = {
      vary: 'origin',
      'access-control-allow-origin': APP,
      'access-control-allow-methods': 'GET,POST,PATCH,DELETE,OPTIONS',
      'access-control-allow-headers': 'content-type,authorization',
      'access-control-max-age': '3600',
    };
    for (const path of ['/v1/chat/completions', '/workers', '/no/such/route']) {
      const res = await preflight(`${listed.url}${path}`, APP);
      assert.equal(res.status, 200, path);
      assert.deepEqual(corsHeaders(res), expected, path);
    }
  });

  test('with a list: an unlisted origin gets the answer without Access-Control-Allow-Origin', async () => {
    const res = await preflight(`${listed.url}/v1/chat/completions`, 'https://other.example');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('access-control-allow-origin'), null);
    assert.equal(res.headers.get('vary'), 'origin');
  });

  test('a bare OPTIONS is answered the same way, as tower-http treats every OPTIONS as one', async () => {
    const res = await fetch(`${open.url}/v1/models`, { method: 'OPTIONS' });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('access-control-allow-methods'), '*');
  });

  test('no preflight reaches a worker, and none is counted as an HTTP request', async () => {
    const before = worker.stats().requests['/v1/chat/completions'] ?? 0;
    await (await preflight(`${open.url}/v1/chat/completions`, APP)).text();
    await (await preflight(`${listed.url}/v1/chat/completions`, APP)).text();
    assert.equal(worker.stats().requests['/v1/chat/completions'] ?? 0, before);
    for (const gateway of [open, listed])
      assert.doesNotMatch(await scrapeMetrics(gateway), /smg_http_requests_total\{[^}]*OPTIONS/);
  });
});

void describe('every other answer carries the CORS headers', () => {
  test('a chat completion, permissive and listed', async () => {
    const a = await fetch(`${open.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { origin: APP, 'content-type': 'application/json' },
      body: JSON.stringify(CHAT),
    });
    assert.equal(a.status, 200);
    assert.deepEqual(corsHeaders(a), ANY_REGULAR);
    assert.match(a.headers.get('x-request-id') ?? '', /^chatcmpl-/);
    await a.json();

    const b = await fetch(`${listed.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { origin: APP, 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
      body: JSON.stringify(CHAT),
    });
    assert.equal(b.status, 200);
    assert.deepEqual(corsHeaders(b), listedRegular(APP));
    await b.json();
  });

  test('a streamed chat completion', async () => {
    const res = await fetch(`${listed.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { origin: APP, 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
      body: JSON.stringify({ ...CHAT, stream: true }),
    });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
    assert.deepEqual(corsHeaders(res), listedRegular(APP));
    assert.match(await res.text(), /data: \[DONE\]/);
  });

  test('gateway errors: 401, 404, 405, 413', async () => {
    const unauthorized = await fetch(`${listed.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { origin: APP, 'content-type': 'application/json' },
      body: JSON.stringify(CHAT),
    });
    assert.deepEqual(corsHeaders(unauthorized), listedRegular(APP));
    await assertGatewayError(unauthorized, 401, 'unauthorized');

    const notFound = await fetch(`${listed.url}/no/such/route`, { headers: { origin: APP } });
    assert.deepEqual(corsHeaders(notFound), listedRegular(APP));
    await assertGatewayError(notFound, 404, 'not_found');

    const notAllowed = await fetch(`${open.url}/liveness`, {
      method: 'POST',
      headers: { origin: APP },
    });
    assert.deepEqual(corsHeaders(notAllowed), ANY_REGULAR);
    await assertGatewayError(notAllowed, 405, 'method_not_allowed');

    const tooLarge = await fetch(`${open.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { origin: APP, 'content-type': 'application/json' },
      body: JSON.stringify({ ...CHAT, messages: [{ role: 'user', content: 'x'.repeat(2048) }] }),
    });
    assert.deepEqual(corsHeaders(tooLarge), ANY_REGULAR);
    await assertGatewayError(tooLarge, 413, 'payload_too_large');
  });

  test('with a list: an unlisted or absent Origin gets no Access-Control-Allow-Origin', async () => {
    for (const origin of ['https://other.example', undefined]) {
      const res = await fetch(`${listed.url}/v1/models`, {
        headers: origin === undefined ? {} : { origin },
      });
      assert.equal(res.status, 200);
      assert.deepEqual(corsHeaders(res), listedRegular(), String(origin));
      await res.text();
    }
  });

  test('permissive: the headers are sent without Origin too, as SMG', async () => {
    const res = await fetch(`${open.url}/v1/models`);
    assert.deepEqual(corsHeaders(res), ANY_REGULAR);
    await res.text();
  });
});

test('the probe and metrics listeners send no CORS headers', async () => {
  const probe = await fetch(`${open.healthCheckUrl ?? ''}/liveness`, { headers: { origin: APP } });
  assert.equal(probe.status, 200);
  assert.deepEqual(corsHeaders(probe), {});
  await probe.text();
  const metrics = await fetch(open.metricsUrl, { headers: { origin: APP } });
  assert.equal(metrics.status, 200);
  assert.deepEqual(corsHeaders(metrics), {});
  await metrics.text();
  const probePreflight = await preflight(`${open.healthCheckUrl ?? ''}/liveness`, APP);
  assert.equal(probePreflight.status, 405);
  await probePreflight.text();
});

test('nothing is left held', async () => {
  await assertAllReleased(open);
  await assertAllReleased(listed);
});
