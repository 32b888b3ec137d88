// Admin bodies are read under the same rules as inference bodies: a body deadline, UTF-8 and the
// 128-level nesting limit. A worker spec is echoed by GET /workers, so a spec nested past what
// JSON.stringify can walk would otherwise break the listing for every operator.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Gateway } from '../../src/server/gateway.js';
import { startTestGateway } from '../helpers/gateway.js';
import { assertBodyTimeout, partialRequest } from '../helpers/slow-clients.js';

let gateway: Gateway;

before(async () => {
  gateway = await startTestGateway(['--request-body-timeout-secs', '1']);
});
after(async () => gateway.close());

async function post(
  path: string,
  body: string | Buffer,
  method = 'POST',
): Promise<{ status: number; code: string }> {
  const res = await fetch(`${gateway.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body,
  });
  const json = (await res.json()) as { code?: string; error?: { code?: string } | string };
  const code = json.code ?? (typeof json.error === 'object' ? json.error.code : undefined) ?? '';
  return { status: res.status, code };
}

test('a worker spec nested past 128 levels is 400 and GET /workers keeps working', async () => {
  const deep = `{"url":"http://127.0.0.1:1","extra":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
  assert.deepEqual(await post('/workers', deep), { status: 400, code: 'BAD_REQUEST' });
  const list = await fetch(`${gateway.url}/workers`);
  assert.equal(list.status, 200);
  await list.arrayBuffer();
});

test('a worker spec or patch that is not UTF-8 is 400', async () => {
  const bad = Buffer.concat([
    Buffer.from('{"url":"http://127.0.0.1:1","labels":{"a":"'),
    Buffer.from([0xff, 0xfe]),
    Buffer.from('"}}'),
  ]);
  assert.deepEqual(await post('/workers', bad), { status: 400, code: 'BAD_REQUEST' });
});

test('an admin body still incomplete at the deadline is 408 request_body_timeout', async () => {
  const spec = JSON.stringify({ url: 'http://127.0.0.1:1' });
  assertBodyTimeout(await partialRequest(gateway, 7, '/workers', spec).answer);
});
