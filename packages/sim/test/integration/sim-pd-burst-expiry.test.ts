// The PD failure SMG PR #2466 reports, reproduced: a burst wider than the decode's running window.
// The decode admits only `window` rooms; the rest sit in its pre-allocation queue while their
// prefills wait for a decode that is not coming yet, until the bootstrap deadline fails them. When
// decode slots finally free, the queued decodes join rooms whose prefill is gone and wait out their
// own waiting deadline. Nothing in the test orchestrates this: it emerges from the model.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SimWorker } from '../../src/index.js';
import { startSimWorker } from '../../src/index.js';
import { simPost, waitForStats } from '../../src/testing.js';

// A simulated second lasts 250 ms: the 1 s and 2 s deadlines stay long against event-loop lag
// on a loaded machine, which at 100 ms per second sometimes reordered a join and an expiry.
const SCALE = 0.25;
const WINDOW = 4;
const BURST = 12;
// 400 decode steps of 6 + 0.35 × 4 ms: 3 s, longer than the 2 s bootstrap deadline, so no room
// beyond the first window can be joined in time however fast or slow the machine is.
const OUTPUT = 400;
let prefill: SimWorker;
let decode: SimWorker;

void describe('PD burst wider than the decode window', () => {
  before(async () => {
    const common = { engine: 'realistic', timeScale: SCALE, runtime: 'tokenspeed' } as const;
    prefill = await startSimWorker({ ...common, role: 'prefill', bootstrapTimeoutSecs: 2 });
    decode = await startSimWorker({
      ...common,
      role: 'decode',
      maxRunningRequests: WINDOW,
      waitingTimeoutSecs: 1,
    });
  });
  after(async () => {
    await Promise.all([prefill.close(), decode.close()]);
  });

  void it('expires the prefill rooms the decode could not reach, then the decodes', async () => {
    // Warm both servers up so that the first wave's joins are not slowed by a cold start.
    await Promise.all([prefill, decode].map((w) => simPost(`${w.url}/generate`, { text: 'warm' })));
    const legs = Array.from({ length: BURST }, (_, i) => {
      const body =
        `{"text":"burst request ${i}","sampling_params":{"max_new_tokens":${OUTPUT}}` +
        `,"bootstrap_host":"127.0.0.1","bootstrap_port":${prefill.bootstrapPort ?? 0}` +
        `,"bootstrap_room":${(9_000_000_000_000_000_000n + BigInt(i)).toString()}}`;
      return Promise.all([
        simPost(`${prefill.url}/generate`, body),
        simPost(`${decode.url}/generate`, body),
      ]);
    });
    const results = await Promise.all(legs);
    const ok = results.filter(([p, d]) => p.status === 200 && d.status === 200).length;
    const prefillFailed = results.filter(([p]) => p.status === 500).length;
    const decodeFailed = results.filter(([, d]) => d.status === 500).length;
    const ps = prefill.stats();
    const ds = decode.stats();
    // Only the first window can be served (a slow machine may serve fewer, never more).
    assert.ok(ok >= 1 && ok <= WINDOW, `ok=${ok}`);
    const statuses = results.map(([p, d]) => `${p.status}/${d.status}`).join(' ');
    assert.equal(ok + prefillFailed, BURST, `prefill/decode statuses: ${statuses}`);
    assert.ok(ps.bootstrapTimeouts >= BURST - WINDOW, 'the queued rooms expired on the prefill');
    assert.ok(ds.transferTimeouts >= BURST - WINDOW, 'their decodes waited out their own deadline');
    assert.equal(decodeFailed, prefillFailed, 'each expired room fails on both legs');
    assert.equal(ds.kvTransfers, ok);
    // The decodes' closed joins reach the bootstrap server asynchronously.
    for (const w of [prefill, decode]) {
      await waitForStats(w, (s) => s.roomsOpen === 0 && s.running === 0 && s.waiting === 0);
    }
  });
});
