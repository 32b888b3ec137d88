import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { describe, it } from 'node:test';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import type {
  ContextDeps,
  RequestContext,
  RequestInput,
} from '../../../src/routing/request-context.js';
import { buildRequestContext } from '../../../src/routing/request-context.js';
import type { JsonObject } from '../../../src/util/json.js';

interface Options {
  headers?: IncomingHttpHeaders;
  aliases?: Record<string, string>;
  requestId?: string;
}

/**
 * Builds a context from the client's raw bytes, parsed the way the inference handler does. The
 * route is /v1/embeddings, whose body has no required fields, so these tests isolate the model,
 * bytes and request id; per-endpoint field checks are in validate-body.test.ts.
 */
function build(raw: string | Buffer, opts: Options = {}): { ctx: RequestContext; raw: Buffer } {
  const bytes = Buffer.isBuffer(raw) ? raw : Buffer.from(raw);
  const input: RequestInput = {
    endpoint: 'embeddings',
    path: '/v1/embeddings',
    body: JSON.parse(bytes.toString('utf8')) as JsonObject,
    raw: bytes,
    headers: opts.headers ?? {},
    via: '1.1 switchyard-test',
    signal: new AbortController().signal,
    requestId: opts.requestId ?? 'req-test',
  };
  const deps: ContextDeps = {
    clientCredential: (authorization) => authorization,
    aliases: new Map(Object.entries(opts.aliases ?? {})),
    routingKeyHeaders: ['x-smg-routing-key'],
    modelLabel: (model) => (model === 'served-model' ? model : 'other'),
    onHintIgnored: () => undefined,
  };
  return { ctx: buildRequestContext(input, deps), raw: bytes };
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
    assert.equal(ctx.endpoint, 'embeddings');
    assert.equal(ctx.path, '/v1/embeddings');
    assert.equal(ctx.headers, headers);
    assert.equal(ctx.signal.aborted, false);
    assert.equal(typeof ctx.startTime, 'number');
  });
});

void describe('buildRequestContext: request id', () => {
  void it('carries the id decided at the edge, whatever the headers say', () => {
    const { ctx } = build('{}', { headers: { 'x-request-id': 'client-id' }, requestId: 'edge-id' });
    assert.equal(ctx.requestId, 'edge-id');
  });
});
