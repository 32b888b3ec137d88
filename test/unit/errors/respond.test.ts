import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { ERROR_CATALOG, typeOf } from '../../../src/errors/catalog.js';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import {
  endWithError,
  markEventStream,
  errorBody,
  sendError,
  sendJson,
  sendText,
} from '../../../src/errors/respond.js';

void describe('error catalog', () => {
  void it('maps every code to a 4xx or 5xx status with a reason phrase', () => {
    for (const [code, status] of Object.entries(ERROR_CATALOG)) {
      assert.ok(status >= 400 && status < 600, `${code} → ${status}`);
      assert.notEqual(typeOf(status), 'Error', `${status} has no reason phrase`);
      assert.match(code, /^[a-z]+(_[a-z]+)*$/, `${code} is not snake_case`);
    }
  });

  void it('uses the HTTP reason phrase as the type', () => {
    assert.equal(typeOf(503), 'Service Unavailable');
    assert.equal(typeOf(404), 'Not Found');
    assert.equal(typeOf(413), 'Payload Too Large');
    assert.equal(typeOf(504), 'Gateway Timeout');
    assert.equal(typeOf(599), 'Error');
  });
});

void describe('GatewayError', () => {
  void it('carries code, status, message and extra headers', () => {
    const err = new GatewayError('no_available_workers', 'busy', {
      headers: { 'retry-after': '1' },
    });
    assert.ok(err instanceof Error);
    assert.equal(err.name, 'GatewayError');
    assert.equal(err.code, 'no_available_workers');
    assert.equal(err.status, 503);
    assert.equal(err.message, 'busy');
    assert.deepEqual(err.headers, { 'retry-after': '1' });
    assert.deepEqual(new GatewayError('invalid_json', 'x').headers, {});
  });
});

void describe('errorBody', () => {
  void it('is exactly the SMG/OpenAI envelope', () => {
    const body = errorBody(new GatewayError('no_available_workers', 'No available workers'));
    assert.equal(
      body,
      '{"error":{"type":"Service Unavailable","code":"no_available_workers","message":"No available workers","param":null}}',
    );
  });

  void it('escapes the message as JSON', () => {
    const body = errorBody(
      new GatewayError('model_not_found', `No worker available for model 'a"b'`),
    );
    assert.deepEqual(JSON.parse(body), {
      error: {
        type: 'Not Found',
        code: 'model_not_found',
        message: `No worker available for model 'a"b'`,
        param: null,
      },
    });
  });
});

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

void describe('sendError over HTTP', () => {
  const handlers = new Map<string, Handler>();
  let server: Server;
  let base: string;

  before(async () => {
    server = createServer((req, res) => {
      const handler = handlers.get(req.url ?? '');
      if (handler) handler(req, res);
      else sendText(res, 404, 'no handler');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  void it('writes status, JSON content type, error code header and body', async () => {
    handlers.set('/model', (_req, res) =>
      sendError(res, new GatewayError('model_not_found', "No worker available for model 'm'")),
    );
    const res = await fetch(`${base}/model`);
    assert.equal(res.status, 404);
    assert.equal(res.headers.get('content-type'), 'application/json');
    assert.equal(res.headers.get('x-smg-error-code'), 'model_not_found');
    const text = await res.text();
    assert.equal(res.headers.get('content-length'), String(Buffer.byteLength(text)));
    assert.deepEqual(JSON.parse(text), {
      error: {
        type: 'Not Found',
        code: 'model_not_found',
        message: "No worker available for model 'm'",
        param: null,
      },
    });
  });

  void it('adds the error’s extra headers, e.g. Retry-After', async () => {
    handlers.set('/shed', (_req, res) =>
      sendError(
        res,
        new GatewayError('no_available_workers', 'All workers are busy', {
          headers: { 'retry-after': '2' },
        }),
      ),
    );
    const res = await fetch(`${base}/shed`);
    assert.equal(res.status, 503);
    assert.equal(res.headers.get('retry-after'), '2');
    assert.equal(res.headers.get('x-smg-error-code'), 'no_available_workers');
    assert.equal(
      ((await res.json()) as { error: { type: string } }).error.type,
      'Service Unavailable',
    );
  });

  void it('keeps headers set on the response beforehand (Allow on a 405)', async () => {
    handlers.set('/405', (_req, res) => {
      res.setHeader('allow', 'POST');
      sendError(res, new GatewayError('method_not_allowed', 'Method GET is not allowed'));
    });
    const res = await fetch(`${base}/405`);
    assert.equal(res.status, 405);
    assert.equal(res.headers.get('allow'), 'POST');
    assert.equal(res.headers.get('x-smg-error-code'), 'method_not_allowed');
    await res.arrayBuffer();
  });

  void it('counts multi-byte messages in content-length', async () => {
    handlers.set('/utf8', (_req, res) =>
      sendError(res, new GatewayError('invalid_body', 'modèle ✗')),
    );
    const res = await fetch(`${base}/utf8`);
    const bytes = Buffer.from(await res.arrayBuffer());
    assert.equal(res.headers.get('content-length'), String(bytes.length));
    assert.equal(
      (JSON.parse(bytes.toString('utf8')) as { error: { message: string } }).error.message,
      'modèle ✗',
    );
  });

  void it('ends an SSE stream (head set with setHeader) with one data: error event', async () => {
    handlers.set('/sse-progressive', (_req, res) => {
      res.statusCode = 200;
      res.setHeader('content-type', 'text/event-stream');
      res.flushHeaders();
      res.write('data: {"n":1}\n\n', () => {
        sendError(res, new GatewayError('upstream_stream_failed', 'Worker stream failed'));
      });
    });
    const res = await fetch(`${base}/sse-progressive`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-smg-error-code'), null);
    const text = await res.text();
    assert.equal(
      text,
      'data: {"n":1}\n\n' +
        'data: {"error":{"type":"Bad Gateway","code":"upstream_stream_failed","message":"Worker stream failed","param":null}}\n\n',
    );
  });

  // A head written with writeHead(status, obj) and no prior setHeader leaves Node without a header
  // table, so getHeader('content-type') is undefined: the writer marks the response as SSE, and
  // sendError must then end it with an event rather than cut it.
  void it('ends an SSE stream (head written with writeHead(status, headers), marked) with one data: error event', async () => {
    handlers.set('/sse-writehead', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      markEventStream(res);
      res.flushHeaders();
      res.write('data: {"n":1}\n\n', () => {
        sendError(res, new GatewayError('upstream_stream_failed', 'Worker stream failed'));
      });
    });
    const res = await fetch(`${base}/sse-writehead`);
    assert.equal(res.status, 200);
    const text = await res.text().catch((err: unknown) => `body read failed: ${String(err)}`);
    assert.equal(
      text,
      'data: {"n":1}\n\n' +
        'data: {"error":{"type":"Bad Gateway","code":"upstream_stream_failed","message":"Worker stream failed","param":null}}\n\n',
    );
  });

  void it('endWithError trusts the event-stream mark over the (empty) header table', async () => {
    handlers.set('/sse-flag', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      markEventStream(res);
      res.flushHeaders();
      res.write('data: {"n":1}\n\n', () => {
        endWithError(res, new GatewayError('call_upstream_timeout', 'Worker timed out'));
      });
    });
    const res = await fetch(`${base}/sse-flag`);
    assert.equal(
      await res.text(),
      'data: {"n":1}\n\n' +
        'data: {"error":{"type":"Gateway Timeout","code":"call_upstream_timeout","message":"Worker timed out","param":null}}\n\n',
    );
  });

  void it('endWithError cuts the connection when the body is JSON', async () => {
    handlers.set('/json-flag', (_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.writeHead(200);
      res.write('{"partial":', () => {
        endWithError(res, new GatewayError('upstream_stream_failed', 'Worker closed mid-body'));
      });
    });
    const res = await fetch(`${base}/json-flag`);
    assert.equal(res.status, 200);
    await assert.rejects(res.text());
  });

  void it('cuts a JSON response whose head is already out so the client sees a truncation', async () => {
    handlers.set('/json-cut', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"id":"cmpl-1","choices":[', () => {
        sendError(res, new GatewayError('upstream_stream_failed', 'Worker closed mid-body'));
      });
    });
    const res = await fetch(`${base}/json-cut`);
    assert.equal(res.status, 200);
    await assert.rejects(res.text());
  });

  void it('does nothing once the response has ended', async () => {
    let threw: unknown;
    handlers.set('/ended', (_req, res) => {
      sendJson(res, 200, { ok: true });
      try {
        sendError(res, new GatewayError('internal_error', 'late'));
        endWithError(res, new GatewayError('internal_error', 'later'));
      } catch (err) {
        threw = err;
      }
    });
    const res = await fetch(`${base}/ended`);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { ok: true });
    assert.equal(threw, undefined);
  });
});

void describe('sendJson and sendText over HTTP', () => {
  let server: Server;
  let base: string;

  before(async () => {
    server = createServer((req, res) => {
      if (req.url === '/json')
        sendJson(res, 202, { status: 'accepted' }, { location: '/workers/1' });
      else sendText(res, 503, 'No models available');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  void it('sendJson writes status, extra headers and a JSON body', async () => {
    const res = await fetch(`${base}/json`);
    assert.equal(res.status, 202);
    assert.equal(res.headers.get('location'), '/workers/1');
    assert.equal(res.headers.get('content-type'), 'application/json');
    assert.deepEqual(await res.json(), { status: 'accepted' });
  });

  void it('sendText writes a plain-text body', async () => {
    const res = await fetch(`${base}/text`);
    assert.equal(res.status, 503);
    assert.equal(res.headers.get('content-type'), 'text/plain; charset=utf-8');
    assert.equal(await res.text(), 'No models available');
  });
});
