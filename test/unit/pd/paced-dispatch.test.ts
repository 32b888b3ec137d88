// Pacing as a plain function of answers: chunks go out one at a time through the dispatch it is
// given, each answer is read whole and released, and one merged answer comes back. No HTTP.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import { dispatchPaced } from '../../../src/pd/paced.js';
import type { Answer } from '../../../src/routing/answer.js';
import type { RequestContext } from '../../../src/routing/request-context.js';
import { readAllText } from '../../../src/upstream/body-source.js';
import { LeaseLog, ManualBody, testAnswer } from '../../helpers/answers.js';
import { ctxFor } from '../routing/router-manager-fixtures.js';
import { testWorker } from '../../helpers/workers.js';

const decode = testWorker('d', { type: 'decode' });

function batchCtx(items: string[]): RequestContext {
  return { ...ctxFor({ endpoint: 'generate' }), body: { text: items } };
}

/** An answer carrying one `{text}` per item of the chunk it was asked for. */
function echoAnswer(chunk: RequestContext, leases: LeaseLog): Answer {
  const body = new ManualBody();
  body.send(JSON.stringify((chunk.body.text as string[]).map((t) => ({ text: t.toUpperCase() }))));
  body.finish();
  return testAnswer({ body, leases });
}

test('a batch wider than the window is sent in window-sized chunks, one at a time, and merged', async () => {
  const seen: unknown[] = [];
  const logs: LeaseLog[] = [];
  let inFlight = 0;
  const answer = await dispatchPaced(
    batchCtx(['a', 'b', 'c', 'd', 'e']),
    2,
    async (chunk) => {
      inFlight += 1;
      assert.equal(inFlight, 1, 'chunks never overlap');
      seen.push(chunk.body.text);
      await new Promise((r) => setImmediate(r));
      inFlight -= 1;
      const leases = new LeaseLog();
      logs.push(leases);
      return echoAnswer(chunk, leases);
    },
    decode,
  );
  assert.deepEqual(seen, [['a', 'b'], ['c', 'd'], ['e']]);
  assert.equal(answer.status, 200);
  assert.equal(answer.headers['x-smg-paced-chunks'], '3');
  assert.deepEqual(JSON.parse(await readAllText(answer.body)), [
    { text: 'A' },
    { text: 'B' },
    { text: 'C' },
    { text: 'D' },
    { text: 'E' },
  ]);
  assert.deepEqual(
    logs.map((l) => l.ends),
    [['complete'], ['complete'], ['complete']],
    'each chunk answer is released once, as soon as it is read',
  );
});

test('a chunk whose body fails ends the request with decode_read_failed; its lease is released as a failure', async () => {
  const leases = new LeaseLog();
  await assert.rejects(
    dispatchPaced(
      batchCtx(['a', 'b', 'c']),
      2,
      async () => {
        const body = new ManualBody();
        body.send('[{"te');
        body.break(new Error('worker died'));
        return testAnswer({ body, leases });
      },
      decode,
    ),
    (err) => err instanceof GatewayError && err.code === 'decode_read_failed' && !err.retryable,
  );
  assert.deepEqual(leases.ends, ['upstream_failed']);
});

test('a streaming request cannot be paced and is refused before any chunk is sent', async () => {
  let calls = 0;
  await assert.rejects(
    dispatchPaced(
      { ...batchCtx(['a', 'b', 'c']), stream: true },
      2,
      async (chunk) => (calls++, echoAnswer(chunk, new LeaseLog())),
      decode,
    ),
    (err) => err instanceof GatewayError && err.code === 'invalid_body',
  );
  assert.equal(calls, 0);
});
