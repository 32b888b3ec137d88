// Writing the bootstrap rooms into a PD body costs time linear in the batch: a quadratic splice
// (one pass over the whole body per room) froze the event loop for tens of seconds on one
// request. Compared as a ratio of two sizes' CPU time, never against a clock.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { planBootstrap, serializeWithBootstrap } from '../../../src/pd/bootstrap.js';
import { MAX_BATCH_ITEMS } from '../../../src/routing/request-limits.js';

function fixture(items: number): {
  body: Record<string, unknown>;
  plan: ReturnType<typeof planBootstrap>;
} {
  const body = {
    model: 'm',
    prompt: Array.from({ length: items }, (_, i) => `prompt number ${i}`),
  };
  return { body, plan: planBootstrap('completion', body, 'http://127.0.0.1:30001', 8998) };
}

/**
 * CPU time, not wall time: with other test files running on the same cores, a measurement that
 * lasts milliseconds is often preempted, which wall time counts and CPU time does not.
 */
function timeMs(f: ReturnType<typeof fixture>): number {
  const start = process.cpuUsage();
  // Enough repetitions that one measurement lasts milliseconds, not a fraction of a GC pause.
  for (let rep = 0; rep < 16; rep++) serializeWithBootstrap(f.body, f.plan, { routed_dp_rank: 0 });
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

test('serializing the largest accepted batch is linear in its size', () => {
  const small = fixture(MAX_BATCH_ITEMS / 4);
  const large = fixture(MAX_BATCH_ITEMS);
  timeMs(large); // warm up the JIT on the biggest shape
  // Rounds interleave the two sizes so a noisy neighbour hits both; the fastest round of each
  // is its cost without noise (noise only ever adds time).
  let smallMs = Infinity;
  let largeMs = Infinity;
  for (let round = 0; round < 9; round++) {
    smallMs = Math.min(smallMs, timeMs(small));
    largeMs = Math.min(largeMs, timeMs(large));
  }
  const ratio = largeMs / smallMs;
  // 4× the items: linear work scales ~4×, quadratic ~16×. The band leaves room for noise (and for
  // the garbage collector, which a larger body keeps busier than in proportion).
  assert.ok(
    ratio < 10,
    `4× the items took ${ratio.toFixed(1)}× the time (small ${smallMs.toFixed(2)} ms, large ${largeMs.toFixed(2)} ms)`,
  );
});

test('every room of a full batch arrives as exact digits, in order', () => {
  const body = { text: Array.from({ length: MAX_BATCH_ITEMS }, (_, i) => `t${i}`) };
  const plan = planBootstrap('generate', body, 'http://127.0.0.1:30001', null);
  const json = serializeWithBootstrap(body, plan).toString();
  const rooms = /"bootstrap_room":\[([\d,]+)\]/.exec(json)?.[1]?.split(',').map(BigInt);
  assert.deepEqual(rooms, plan.rooms);
  const parsed = JSON.parse(json) as {
    bootstrap_host: string[];
    bootstrap_port: null[];
    text: string[];
  };
  assert.equal(parsed.bootstrap_host.length, MAX_BATCH_ITEMS);
  assert.equal(parsed.bootstrap_port.length, MAX_BATCH_ITEMS);
  assert.deepEqual(parsed.text, body.text);
});

test("a client's own bootstrap fields are replaced by the gateway's, not duplicated", () => {
  const plan = {
    host: '10.0.0.2',
    port: 8998,
    rooms: [9_223_372_036_854_775_807n],
    batched: false,
  };
  const body = { bootstrap_room: 1, bootstrap_host: 'evil', bootstrap_port: 1, prompt: 'x' };
  const json = serializeWithBootstrap(body, plan).toString();
  assert.equal(json.match(/"bootstrap_room"/g)?.length, 1);
  assert.equal(json.match(/"bootstrap_host"/g)?.length, 1);
  assert.match(json, /"bootstrap_room":9223372036854775807[,}]/);
  assert.deepEqual(JSON.parse(json.replace(/\d{19}/, '0')), {
    prompt: 'x',
    bootstrap_host: '10.0.0.2',
    bootstrap_port: 8998,
    bootstrap_room: 0,
  });
});

test('an empty body gets the triple alone', () => {
  const plan = { host: 'h', port: null, rooms: [7n], batched: false };
  assert.equal(
    serializeWithBootstrap({}, plan).toString(),
    '{"bootstrap_host":"h","bootstrap_port":null,"bootstrap_room":7}',
  );
});
