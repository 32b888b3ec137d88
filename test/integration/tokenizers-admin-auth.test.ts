// Who may call the token routes: /v1/tokenize and /v1/detokenize are data-plane routes
// (--api-key); /v1/tokenizers* are control-plane routes (--control-plane-api-keys when given,
// where a user key may only read, else --api-key).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Gateway } from '../../src/server/gateway.js';
import { assertAllReleased, startTestGateway } from '../helpers/gateway.js';
import { QWEN3_DIR } from '../helpers/grpc.js';
import { assertGatewayError, postJson } from '../helpers/http.js';
import { pollStatus, waitForTokenizer } from '../helpers/tokenizers.js';

const DATA = { authorization: 'Bearer data-key' };
const ADMIN = { authorization: 'Bearer cp-admin' };
const READER = { authorization: 'Bearer cp-reader' };

async function status(res: Response): Promise<number> {
  await res.arrayBuffer();
  return res.status;
}

void describe('with --api-key only', () => {
  let gateway: Gateway;
  before(async () => {
    gateway = await startTestGateway(['--api-key', 'data-key', '--tokenizer-path', QWEN3_DIR]);
    await waitForTokenizer(gateway, QWEN3_DIR, DATA);
  });
  after(async () => {
    await assertAllReleased(gateway);
    await gateway.close();
  });

  it('the data-plane routes need the key', async () => {
    const body = { model: '', prompt: 'x' };
    await assertGatewayError(
      await postJson(`${gateway.url}/v1/tokenize`, body),
      401,
      'unauthorized',
    );
    await assertGatewayError(
      await postJson(`${gateway.url}/v1/detokenize`, { model: '', tokens: [1] }),
      401,
      'unauthorized',
    );
    assert.equal(await status(await postJson(`${gateway.url}/v1/tokenize`, body, DATA)), 200);
  });

  it('the admin routes take --api-key too', async () => {
    await assertGatewayError(await fetch(`${gateway.url}/v1/tokenizers`), 401, 'unauthorized');
    await assertGatewayError(
      await postJson(`${gateway.url}/v1/tokenizers`, { name: 'n', source: QWEN3_DIR }),
      401,
      'unauthorized',
    );
    assert.equal(await status(await fetch(`${gateway.url}/v1/tokenizers`, { headers: DATA })), 200);
  });
});

void describe('with --control-plane-api-keys', () => {
  let gateway: Gateway;
  before(async () => {
    gateway = await startTestGateway([
      '--api-key',
      'data-key',
      '--control-plane-api-keys',
      'ops:Operations:admin:cp-admin',
      'ro:Dashboards:user:cp-reader',
      '--tokenizer-path',
      QWEN3_DIR,
    ]);
    await waitForTokenizer(gateway, QWEN3_DIR, ADMIN);
  });
  after(async () => {
    await assertAllReleased(gateway);
    await gateway.close();
  });

  it('tokenize takes the data key, not a control-plane key', async () => {
    const body = { model: QWEN3_DIR, prompt: 'x' };
    assert.equal(await status(await postJson(`${gateway.url}/v1/tokenize`, body, DATA)), 200);
    await assertGatewayError(
      await postJson(`${gateway.url}/v1/tokenize`, body, ADMIN),
      401,
      'unauthorized',
    );
  });

  it('the admin routes take only control-plane keys; a user key only reads', async () => {
    const list = `${gateway.url}/v1/tokenizers`;
    await assertGatewayError(await fetch(list, { headers: DATA }), 401, 'unauthorized');
    assert.equal(await status(await fetch(list, { headers: READER })), 200);
    const add = { name: 'second', source: QWEN3_DIR };
    await assertGatewayError(await postJson(list, add, READER), 403, 'forbidden');
    await assertGatewayError(await postJson(list, add, DATA), 401, 'unauthorized');
    const res = await postJson(list, add, ADMIN);
    assert.equal(res.status, 202);
    const { id } = (await res.json()) as { id: string };
    assert.equal((await pollStatus(gateway, id, READER)).status, 'completed');
    assert.equal(await status(await fetch(`${list}/${id}`, { headers: READER })), 200);
    await assertGatewayError(
      await fetch(`${list}/${id}`, { method: 'DELETE', headers: READER }),
      403,
      'forbidden',
    );
    await assertGatewayError(await fetch(`${list}/${id}/status`), 401, 'unauthorized');
    assert.equal(
      await status(await fetch(`${list}/${id}`, { method: 'DELETE', headers: ADMIN })),
      200,
    );
  });
});
