import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { describe, it } from 'node:test';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import type { ContextInput, RequestContext } from '../../../src/routing/request-context.js';
import { buildRequestContext } from '../../../src/routing/request-context.js';
import type { JsonObject } from '../../../src/server/body.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

interface Options {
  headers?: IncomingHttpHeaders;
  aliases?: Record<string, string>;
  requestIdHeaders?: string[];
}

/**
 * Builds a context from the client's raw bytes, parsed the way the inference handler does. The
 * route is /v1/responses, whose body has no required fields, so these tests isolate the model,
 * bytes and request id; per-endpoint field checks are in validate-body.test.ts.
 */
function build(raw: string | Buffer, opts: Options = {}): { ctx: RequestContext; raw: Buffer } {
  const bytes = Buffer.isBuffer(raw) ? raw : Buffer.from(raw);
  const input: ContextInput = {
    endpoint: 'responses',
    path: '/v1/responses',
    body: JSON.parse(bytes.toString('utf8')) as JsonObject,
    raw: bytes,
    headers: opts.headers ?? {},
    isGatewayCredential: () => false,
    via: '1.1 switchyard-test',
    signal: new AbortController().signal,
    aliases: new Map(Object.entries(opts.aliases ?? {})),
    requestIdHeaders: opts.requestIdHeaders ?? [],
    routingKeyHeaders: ['x-smg-routing-key'],
    modelLabel: (model) => (model === 'served-model' ? model : 'other'),
    onHintIgnored: () => undefined,
  };
  return { ctx: buildRequestContext(input), raw: bytes };
}

function invalidBody(raw: string, pattern: RegExp): void {
  assert.throws(
    () => build(raw),
    (err: unknown) => {
      assert.ok(err instanceof GatewayError, `expected a GatewayError, got ${String(err)}`);
      assert.equal(err.code, 'invalid_body');
      assert.equal(err.status, 400);
      assert.match(err.message, pattern);
      return true;
    },
  );
}

void describe('buildRequestContext: model and body bytes', () => {
  void it('sends the client’s exact bytes upstream when no alias applies', () => {
    // Odd spacing and key order must survive: the gateway does not re-serialize.
    const { ctx, raw } = build('{ "stream":false,  "model" : "llama", "messages": [] }', {
      aliases: { gpt: 'llama' },
    });
    assert.equal(ctx.upstreamBody, raw);
    assert.equal(ctx.model, 'llama');
  });

  void it('rewrites body.model and the upstream bytes for an aliased model', () => {
    const { ctx, raw } = build('{"model":"gpt","messages":[{"role":"user","content":"hi"}]}', {
      aliases: { gpt: 'meta-llama/Llama-3-8B' },
    });
    assert.equal(ctx.model, 'meta-llama/Llama-3-8B');
    assert.equal(ctx.body.model, 'meta-llama/Llama-3-8B');
    assert.notEqual(ctx.upstreamBody, raw);
    assert.deepEqual(JSON.parse(ctx.upstreamBody.toString('utf8')), {
      model: 'meta-llama/Llama-3-8B',
      messages: [{ role: 'user', content: 'hi' }],
    });
  });

  void it('reports unknown for a request without a model and forwards its bytes unchanged', () => {
    const { ctx, raw } = build('{"prompt":"x"}');
    assert.equal(ctx.model, 'unknown');
    assert.equal(ctx.upstreamBody, raw);
    assert.equal('model' in ctx.body, false);
  });

  void it('rejects a non-string model with invalid_body', () => {
    invalidBody('{"model":42}', /'model'/);
    invalidBody('{"model":null}', /'model'/);
    invalidBody('{"model":["a"]}', /'model'/);
  });

  void it('reads stream as a boolean and rejects anything else with invalid_body', () => {
    assert.equal(build('{"model":"m","stream":true}').ctx.stream, true);
    assert.equal(build('{"model":"m","stream":false}').ctx.stream, false);
    assert.equal(build('{"model":"m"}').ctx.stream, false);
    invalidBody('{"model":"m","stream":"true"}', /'stream'/);
    invalidBody('{"model":"m","stream":1}', /'stream'/);
  });

  void it('carries the route, headers and signal through', () => {
    const headers = { 'x-custom': 'v' };
    const { ctx } = build('{"model":"m"}', { headers });
    assert.equal(ctx.endpoint, 'responses');
    assert.equal(ctx.path, '/v1/responses');
    assert.equal(ctx.headers, headers);
    assert.equal(ctx.signal.aborted, false);
    assert.equal(typeof ctx.startTime, 'number');
  });
});

void describe('buildRequestContext: request id', () => {
  void it('takes x-request-id', () => {
    assert.equal(build('{}', { headers: { 'x-request-id': 'req-1' } }).ctx.requestId, 'req-1');
  });

  void it('checks the configured headers before x-request-id', () => {
    const { ctx } = build('{}', {
      headers: { 'x-request-id': 'req-1', 'x-trace-id': 'trace-9' },
      requestIdHeaders: ['X-Trace-Id'],
    });
    assert.equal(ctx.requestId, 'trace-9');
  });

  void it('falls back to x-request-id when the configured headers are absent or empty', () => {
    const { ctx } = build('{}', {
      headers: { 'x-request-id': 'req-1', 'x-trace-id': '' },
      requestIdHeaders: ['x-trace-id', 'x-correlation-id'],
    });
    assert.equal(ctx.requestId, 'req-1');
  });

  void it('honours the order of the configured headers', () => {
    const { ctx } = build('{}', {
      headers: { 'x-a': 'from-a', 'x-b': 'from-b' },
      requestIdHeaders: ['x-b', 'x-a'],
    });
    assert.equal(ctx.requestId, 'from-b');
  });

  void it('takes the first value of a repeated header', () => {
    const headers = { 'x-trace-id': ['first', 'second'] } as unknown as IncomingHttpHeaders;
    assert.equal(build('{}', { headers, requestIdHeaders: ['x-trace-id'] }).ctx.requestId, 'first');
  });

  void it('generates a fresh UUID when no header carries an id', () => {
    const one = build('{}').ctx.requestId;
    const two = build('{}').ctx.requestId;
    assert.match(one, UUID);
    assert.match(two, UUID);
    assert.notEqual(one, two);
  });
});
