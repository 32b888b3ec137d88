// Bodies that used to crash the gateway (500, a stack overflow) or reach a worker unchecked
// are answered 400 with a stable code, in regular and in PD mode, and nothing reaches a worker.
// The model is an alias, so the regular path re-serializes the body (where a deep body once
// overflowed the stack).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startSimWorker, type SimWorker } from '@switchyard/sim';
import type { Gateway } from '../../src/server/gateway.js';
import { MAX_JSON_DEPTH, MAX_N } from '../../src/routing/request-limits.js';
import { assertAllReleased, startTestGateway, waitForReadyWorkers } from '../helpers/gateway.js';
import { assertGatewayError } from '../helpers/http.js';
import { startPdSetup, type PdSetup } from '../helpers/pd-fleet.js';

const ALIAS = ['--model-alias', 'alias=sim-model'];
const INFERENCE_PATHS = ['/v1/chat/completions', '/v1/completions', '/generate'];
const messages = [{ role: 'user', content: 'hi' }];

const deep = `{"model":"alias","messages":[{"role":"user","content":"x"}],"extra":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
const notUtf8 = Buffer.concat([
  Buffer.from('{"model":"alias","prompt":"'),
  Buffer.from([0xc3, 0x28, 0xff]),
  Buffer.from('"}'),
]);

interface Case {
  name: string;
  path: string;
  body: string | Buffer;
  code: string;
  message: RegExp;
}

const CASES: Case[] = [
  {
    name: 'chat n: 1e20',
    path: '/v1/chat/completions',
    body: JSON.stringify({ model: 'alias', messages, n: 1e20 }),
    code: 'invalid_body',
    message: new RegExp(`'n'.*${MAX_N}`),
  },
  {
    name: '/generate text: []',
    path: '/generate',
    body: JSON.stringify({ model: 'alias', text: [] }),
    code: 'invalid_body',
    message: /'text'/,
  },
  {
    name: 'a body nested 100,000 levels',
    path: '/v1/chat/completions',
    body: deep,
    code: 'invalid_body',
    message: new RegExp(`${MAX_JSON_DEPTH} levels`),
  },
  {
    name: 'messages not a list',
    path: '/v1/chat/completions',
    body: JSON.stringify({ model: 'alias', messages: 'hi' }),
    code: 'invalid_body',
    message: /'messages'/,
  },
  {
    name: 'a message without a role',
    path: '/v1/chat/completions',
    body: JSON.stringify({ model: 'alias', messages: [{ content: 'x' }] }),
    code: 'invalid_body',
    message: /'role'/,
  },
  {
    name: 'n a string',
    path: '/v1/chat/completions',
    body: JSON.stringify({ model: 'alias', messages, n: '2' }),
    code: 'invalid_body',
    message: /'n'/,
  },
  {
    name: 'max_tokens a string',
    path: '/v1/completions',
    body: JSON.stringify({ model: 'alias', prompt: 'x', max_tokens: '5' }),
    code: 'invalid_body',
    message: /'max_tokens'/,
  },
  {
    name: 'invalid UTF-8',
    path: '/v1/completions',
    body: notUtf8,
    code: 'invalid_json',
    message: /UTF-8/,
  },
];

function inferenceCount(workers: readonly SimWorker[]): number {
  return workers.reduce(
    (sum, w) => sum + INFERENCE_PATHS.reduce((s, p) => s + (w.stats().requests[p] ?? 0), 0),
    0,
  );
}

function describeMode(
  mode: string,
  start: () => Promise<{ gateway: Gateway; workers: SimWorker[]; close: () => Promise<void> }>,
): void {
  void describe(`${mode} mode`, () => {
    let gateway: Gateway;
    let workers: SimWorker[];
    let close: () => Promise<void>;
    before(async () => {
      ({ gateway, workers, close } = await start());
    });
    after(async () => close());

    for (const c of CASES) {
      test(`${c.name} is 400 ${c.code}`, async () => {
        const res = await fetch(`${gateway.url}${c.path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: c.body,
        });
        const error = await assertGatewayError(res, 400, c.code);
        assert.match(error.message, c.message);
      });
    }

    test('no bad body reached a worker, and the gateway still serves', async () => {
      assert.equal(inferenceCount(workers), 0);
      assert.equal((await fetch(`${gateway.url}/liveness`)).status, 200);
      const ok = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'alias', messages, max_tokens: 2 }),
      });
      assert.equal(ok.status, 200, await ok.clone().text());
      await ok.arrayBuffer();
      assert.ok(inferenceCount(workers) > 0);
      await assertAllReleased(gateway);
    });
  });
}

describeMode('regular', async () => {
  const worker = await startSimWorker({ model: 'sim-model' });
  const gateway = await startTestGateway([...ALIAS, '--worker-urls', worker.url]);
  await waitForReadyWorkers(gateway, 1);
  return {
    gateway,
    workers: [worker],
    close: async () => {
      await gateway.close();
      await worker.close();
    },
  };
});

describeMode('PD', async () => {
  const pd: PdSetup = await startPdSetup({ flags: ALIAS });
  return { gateway: pd.gateway, workers: [...pd.prefills, ...pd.decodes], close: () => pd.close() };
});
