// SGLang bootstrap PD between a simulated prefill and decode: the rendezvous, both deadlines, a
// leg closing its connection, batches, and exact 64-bit rooms. Deadlines run at time scale 0.01,
// so a 300 s engine deadline is 3 s of wall time and a 2 s one is 20 ms.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SimWorker } from '../../src/index.js';
import { startSimWorker } from '../../src/index.js';
import { simPost, waitForStats } from '../../src/testing.js';

const SCALE = 0.01;
let prefill: SimWorker;
let decode: SimWorker;
// Short deadlines (2 s and 3 s: 20 and 30 ms of wall time) on workers of their own, so that the
// main pair keeps the engines' 300 s defaults and never expires under a loaded machine.
let quickPrefill: SimWorker;
let quickDecode: SimWorker;

// Above 2^53: JSON.parse would turn it into 9223372036854775808.
const BIG_ROOM = '9223372036854775807';

function body(room: string, extra = '', to: SimWorker = prefill): string {
  return (
    `{"text":"The quick brown fox jumps over the lazy dog","sampling_params":{"max_new_tokens":8}` +
    `,"bootstrap_host":"127.0.0.1","bootstrap_port":${to.bootstrapPort ?? 0}` +
    `,"bootstrap_room":${room}${extra}}`
  );
}

interface GenerateResult {
  text: string;
  meta_info: { completion_tokens: number; input_token_logprobs?: unknown[] };
}

void describe('SGLang PD rendezvous', () => {
  before(async () => {
    const common = { engine: 'realistic', timeScale: SCALE, runtime: 'sglang' } as const;
    prefill = await startSimWorker({ ...common, role: 'prefill' });
    decode = await startSimWorker({ ...common, role: 'decode' });
    quickPrefill = await startSimWorker({ ...common, role: 'prefill', bootstrapTimeoutSecs: 2 });
    quickDecode = await startSimWorker({ ...common, role: 'decode', waitingTimeoutSecs: 3 });
  });
  after(async () => {
    await Promise.all([prefill, decode, quickPrefill, quickDecode].map((w) => w.close()));
  });

  void it('succeeds when both legs arrive, with the exact room on both sides', async () => {
    const [p, d] = await Promise.all([
      simPost(`${prefill.url}/generate`, body(BIG_ROOM, ',"return_logprob":true')),
      simPost(`${decode.url}/generate`, body(BIG_ROOM, ',"return_logprob":true')),
    ]);
    assert.equal(p.status, 200, p.text);
    assert.equal(d.status, 200, d.text);
    const pj = JSON.parse(p.text) as GenerateResult;
    const dj = JSON.parse(d.text) as GenerateResult;
    assert.equal(pj.meta_info.completion_tokens, 1, 'the prefill answers its one sampled token');
    assert.equal(dj.meta_info.completion_tokens, 8);
    assert.equal(pj.meta_info.input_token_logprobs?.length, 9, 'prefill has the prompt logprobs');
    assert.deepEqual(dj.meta_info.input_token_logprobs, [], 'decode never computed the prompt');
    for (const w of [prefill, decode]) assert.ok(w.stats().roomsSeen.includes(BIG_ROOM));
    assert.equal(decode.stats().kvTransfers, 1);
    assert.equal(prefill.stats().kvTransfersSent, 1);
    assert.equal(decode.stats().promptsRecomputed, 0);
    assert.equal(prefill.stats().roomsOpen, 0);
  });

  void it('works whichever leg arrives first', async () => {
    const d = simPost(`${decode.url}/generate`, body('11'));
    await waitForStats(prefill, (s) => s.roomsOpen === 1);
    const p = await simPost(`${prefill.url}/generate`, body('11'));
    assert.equal(p.status, 200);
    assert.equal((await d).status, 200);
  });

  void it('a prefill whose decode never comes fails at its bootstrap deadline', async () => {
    const base = quickPrefill.stats();
    const p = await simPost(`${quickPrefill.url}/generate`, body('12', '', quickPrefill));
    assert.equal(p.status, 500);
    assert.match(p.text, /bootstrap_timeout/);
    assert.ok(p.elapsedMs >= 2000 * SCALE, `failed after ${p.elapsedMs} ms`);
    const s = quickPrefill.stats();
    assert.equal(s.bootstrapTimeouts, base.bootstrapTimeouts + 1);
    assert.equal(s.failed, base.failed + 1);
    assert.equal(s.roomsOpen, 0);
  });

  void it('a decode joining a room whose prefill gave up fails at its own deadline', async () => {
    const text = body('13', '', quickPrefill);
    const p = await simPost(`${quickPrefill.url}/generate`, text);
    assert.equal(p.status, 500, 'the prefill gave up first');
    const base = quickDecode.stats();
    const d = await simPost(`${quickDecode.url}/generate`, text);
    assert.equal(d.status, 500);
    assert.match(d.text, /waiting_timeout/);
    assert.ok(d.elapsedMs >= 3000 * SCALE, `failed after ${d.elapsedMs} ms`);
    assert.equal(quickDecode.stats().transferTimeouts, base.transferTimeouts + 1);
    await waitForStats(quickPrefill, (s) => s.roomsOpen === 0);
  });

  void it('closing the prefill leg aborts the room: the joined decode fails at once', async () => {
    const slow = await startSimWorker({
      engine: 'realistic',
      timeScale: SCALE,
      role: 'prefill',
      prefillTps: 1, // nine prompt tokens take nine simulated seconds
    });
    try {
      const text = body('14').replace(String(prefill.bootstrapPort), String(slow.bootstrapPort));
      const d = simPost(`${decode.url}/generate`, text);
      const ac = new AbortController();
      const p = simPost(`${slow.url}/generate`, text, ac.signal).catch(() => undefined);
      await waitForStats(slow, (s) => s.roomsOpen === 1 && s.running === 1);
      await waitForStats(decode, (s) => s.running === 1);
      const base = decode.stats();
      ac.abort();
      const dr = await d;
      assert.equal(dr.status, 500);
      assert.match(dr.text, /room_aborted/);
      assert.equal(decode.stats().roomsAborted, base.roomsAborted + 1);
      await p;
      const s = await waitForStats(slow, (st) => st.aborted === 1 && st.running === 0);
      assert.equal(s.roomsOpen, 0);
      const loads = (await (await fetch(`${slow.url}/v1/loads`)).json()) as {
        loads: { num_running_reqs: number }[];
      };
      assert.equal(loads.loads[0]?.num_running_reqs, 0, 'its engine slot was freed');
    } finally {
      await slow.close();
    }
  });

  void it('closing the decode leg aborts the room: the prefill fails at once', async () => {
    const slow = await startSimWorker({
      engine: 'realistic',
      timeScale: SCALE,
      role: 'prefill',
      prefillTps: 1,
    });
    try {
      const text = body('15').replace(String(prefill.bootstrapPort), String(slow.bootstrapPort));
      const ac = new AbortController();
      const d = simPost(`${decode.url}/generate`, text, ac.signal).catch(() => undefined);
      const p = simPost(`${slow.url}/generate`, text);
      await waitForStats(slow, (s) => s.running === 1 && s.roomsOpen === 1);
      await waitForStats(decode, (s) => s.running === 1);
      ac.abort();
      const pr = await p;
      assert.equal(pr.status, 500);
      assert.match(pr.text, /room_aborted/);
      await d;
      await waitForStats(decode, (s) => s.running === 0);
      const s = slow.stats();
      assert.equal(s.roomsAborted, 1);
      assert.equal(s.roomsOpen, 0);
    } finally {
      await slow.close();
    }
  });

  void it('a batch carries one room per item', async () => {
    const batch =
      `{"text":["first prompt here","second prompt here"],"sampling_params":{"max_new_tokens":3}` +
      `,"bootstrap_host":["127.0.0.1","127.0.0.1"]` +
      `,"bootstrap_port":[${prefill.bootstrapPort ?? 0},${prefill.bootstrapPort ?? 0}]` +
      `,"bootstrap_room":[18446744073709551615, 21]}`;
    const base = decode.stats().kvTransfers;
    const [p, d] = await Promise.all([
      simPost(`${prefill.url}/generate`, batch),
      simPost(`${decode.url}/generate`, batch),
    ]);
    assert.equal(p.status, 200, p.text);
    assert.equal(d.status, 200, d.text);
    assert.equal((JSON.parse(d.text) as unknown[]).length, 2);
    assert.equal(decode.stats().kvTransfers, base + 2);
    assert.deepEqual(prefill.stats().roomsSeen.slice(-2), ['18446744073709551615', '21']);
  });

  void it('rejects a malformed room and a decode without a bootstrap host', async () => {
    const bad = await simPost(`${decode.url}/generate`, '{"text":"x","bootstrap_room":1.5}');
    assert.equal(bad.status, 400);
    const noHost = await simPost(`${decode.url}/generate`, '{"text":"x","bootstrap_room":7}');
    assert.equal(noHost.status, 400);
    assert.match(noHost.text, /bootstrap_host/);
  });

  void it('closing a decode worker aborts its waiting requests and frees their rooms', async () => {
    const doomed = await startSimWorker({ role: 'decode', timeScale: SCALE });
    const pending = simPost(`${doomed.url}/generate`, body('16')).catch(() => undefined);
    await waitForStats(prefill, (s) => s.roomsOpen === 1);
    await doomed.close();
    await pending;
    const s = await waitForStats(doomed, (st) => st.aborted === 1 && st.running === 0);
    assert.equal(s.failed, 0, 'in flight at shutdown counts as aborted');
    await waitForStats(prefill, (st) => st.roomsOpen === 0);
  });

  void it('ends with every room closed and no request in flight', () => {
    for (const w of [prefill, decode, quickPrefill, quickDecode]) {
      const s = w.stats();
      assert.deepEqual([s.roomsOpen, s.running, s.waiting], [0, 0, 0], w.name);
    }
  });
});
