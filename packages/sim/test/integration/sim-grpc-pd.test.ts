// SGLang/TokenSpeed PD over gRPC: prefill and decode workers serving the engine service pair up
// through the prefill's HTTP bootstrap listener exactly as HTTP workers do: the rendezvous on the
// room from disaggregated_params / kv_bootstrap_info (a 64-bit TokenSpeed room kept digit for
// digit), the bootstrap deadline, Abort and cancel releasing the room at once, and a regular
// worker ignoring the fields. Deadlines run at time scale 0.01 (300 s engine time = 3 s wall).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import type { EngineRuntime } from '@switchyard/protos';
import type { SimWorker, SimWorkerOptions } from '../../src/index.js';
import { startSimWorker } from '../../src/index.js';
import { waitForStats } from '../../src/testing.js';
import type { EngineClient, StreamResult } from '../helpers/grpc-client.js';
import { collect, engineClient, generateRequest, parts, unary } from '../helpers/grpc-client.js';

const SCALE = 0.01;
const IDS = [11, 12, 13, 14, 15, 16, 17, 18, 19];
type Msg = Record<string, unknown>;

interface Worker {
  w: SimWorker;
  c: EngineClient;
}

const started: Worker[] = [];

async function start(runtime: EngineRuntime, opts: SimWorkerOptions): Promise<Worker> {
  const w = await startSimWorker({
    protocol: 'grpc',
    runtime,
    engine: 'realistic',
    timeScale: SCALE,
    ...opts,
  });
  const worker = { w, c: engineClient(runtime, w.url) };
  started.push(worker);
  return worker;
}

/** A Generate for one leg: the same bootstrap fields go to both legs, as the gateway sends them. */
function pdRequest(runtime: EngineRuntime, id: string, room: string, prefill: SimWorker): Msg {
  const info = {
    bootstrap_host: '127.0.0.1',
    bootstrap_port: prefill.bootstrapPort,
    bootstrap_room: runtime === 'sglang' ? Number(room) : room,
  };
  const field = runtime === 'sglang' ? 'disaggregated_params' : 'kv_bootstrap_info';
  return {
    ...generateRequest(runtime, { id, ids: IDS, max: 8, ignoreEos: true }),
    [field]: info,
    ...(runtime === 'sglang' ? { data_parallel_rank: 1 } : {}),
  };
}

function tokens(r: StreamResult): number {
  return parts(r.messages).chunks.length;
}

function finish(r: StreamResult): unknown {
  return parts(r.messages).completes[0]?.['finish_reason'];
}

void describe('SGLang and TokenSpeed PD over gRPC', () => {
  let prefill: Worker;
  let decode: Worker;
  let tsPrefill: Worker;
  let tsDecode: Worker;

  before(async () => {
    prefill = await start('sglang', { role: 'prefill' });
    decode = await start('sglang', { role: 'decode' });
    tsPrefill = await start('tokenspeed', { role: 'prefill' });
    tsDecode = await start('tokenspeed', { role: 'decode' });
  });
  after(async () => {
    for (const { w, c } of started) {
      c.close();
      await w.close();
    }
  });

  void it('a prefill/decode pair: the decode streams its answer, the prefill answers one token', async () => {
    assert.equal(prefill.w.role, 'prefill');
    assert.ok((prefill.w.bootstrapPort ?? 0) > 0, 'a gRPC prefill serves a bootstrap listener');
    assert.equal(decode.w.bootstrapPort, undefined);
    const req = pdRequest('sglang', 'pd-1', '42', prefill.w);
    const [p, d] = await Promise.all([
      collect(prefill.c, 'Generate', req),
      collect(decode.c, 'Generate', req),
    ]);
    assert.equal(p.code, 0, p.details);
    assert.equal(d.code, 0, d.details);
    assert.deepEqual([tokens(p), finish(p)], [1, 'length']);
    assert.deepEqual([tokens(d), finish(d)], [8, 'length']);
    const ds = decode.w.stats();
    const ps = prefill.w.stats();
    assert.deepEqual([ds.kvTransfers, ds.promptsRecomputed, ds.completed], [1, 0, 1]);
    assert.deepEqual([ps.kvTransfersSent, ps.roomsOpen, ps.completed], [1, 0, 1]);
    for (const s of [ps, ds]) assert.deepEqual(s.roomsSeen, ['42']);
    assert.equal(decode.w.grpc?.requests.at(-1)?.['data_parallel_rank'], 1, 'the rank is recorded');
  });

  void it('TokenSpeed pairs on the exact int64 room, above 2^53', async () => {
    const room = '9007199254740993'; // a double would make it ...992
    const req = pdRequest('tokenspeed', 'ts-1', room, tsPrefill.w);
    const [p, d] = await Promise.all([
      collect(tsPrefill.c, 'Generate', req),
      collect(tsDecode.c, 'Generate', req),
    ]);
    assert.equal(p.code, 0, p.details);
    assert.equal(d.code, 0, d.details);
    assert.deepEqual([tokens(p), tokens(d)], [1, 8]);
    assert.deepEqual(tsPrefill.w.stats().roomsSeen, [room]);
    assert.deepEqual(tsDecode.w.stats().roomsSeen, [room]);
    assert.equal(tsDecode.w.stats().kvTransfers, 1);
    assert.equal(tsPrefill.w.stats().roomsOpen, 0);
  });

  void it('works whichever leg arrives first', async () => {
    const req = pdRequest('sglang', 'pd-2', '43', prefill.w);
    const d = collect(decode.c, 'Generate', req);
    await waitForStats(prefill.w, (s) => s.roomsOpen === 1);
    const p = await collect(prefill.c, 'Generate', req);
    assert.equal(p.code, 0, p.details);
    assert.equal((await d).code, 0);
  });

  void it('a prefill whose decode never joins fails at its bootstrap deadline', async () => {
    const quick = await start('sglang', { role: 'prefill', bootstrapTimeoutSecs: 2 });
    const began = performance.now();
    const r = await collect(quick.c, 'Generate', pdRequest('sglang', 'lone', '44', quick.w));
    assert.equal(r.code, grpc.status.INTERNAL);
    assert.match(r.details, /KV bootstrap timed out after 2 s: no decode joined room 44/);
    assert.match(r.details, /bootstrap_timeout/);
    assert.ok(performance.now() - began >= 2000 * SCALE);
    const s = quick.w.stats();
    assert.deepEqual([s.bootstrapTimeouts, s.failed, s.roomsOpen, s.running], [1, 1, 0, 0]);
  });

  void it('Abort on a prefill waiting for its decode ends the call and frees the room', async () => {
    const done = collect(prefill.c, 'Generate', pdRequest('sglang', 'wait-1', '45', prefill.w));
    await waitForStats(prefill.w, (s) => s.roomsOpen === 1 && s.running === 1);
    const base = prefill.w.stats();
    const res = await unary(prefill.c, 'Abort', { request_id: 'wait-1', reason: 'test' });
    assert.equal(res['success'], true);
    const r = await done;
    assert.equal(r.code, 0);
    assert.deepEqual([tokens(r), finish(r)], [0, 'abort']);
    const s = prefill.w.stats();
    assert.deepEqual([s.roomsOpen, s.running, s.aborted], [0, 0, base.aborted + 1]);
  });

  void it('Abort on a computing prefill fails its joined decode with room_aborted', async () => {
    // Nine prompt tokens at 0.1 token/s: the prefill computes for 90 s (0.9 s of wall time).
    const slow = await start('sglang', { role: 'prefill', prefillTps: 0.1 });
    const req = pdRequest('sglang', 'slow-1', '46', slow.w);
    const base = decode.w.stats();
    const d = collect(decode.c, 'Generate', req);
    const p = collect(slow.c, 'Generate', req);
    await waitForStats(slow.w, (s) => s.roomsOpen === 1 && s.running === 1 && s.waiting === 0);
    await waitForStats(decode.w, (s) => s.running === 1);
    await unary(slow.c, 'Abort', { request_id: 'slow-1', reason: 'test' });
    const dr = await d;
    assert.equal(dr.code, grpc.status.INTERNAL);
    assert.match(dr.details, /bootstrap room 46 aborted by its prefill \(room_aborted\)/);
    assert.equal(finish(await p), 'abort');
    const ds = await waitForStats(decode.w, (s) => s.running === 0);
    assert.deepEqual([ds.roomsAborted, ds.failed], [base.roomsAborted + 1, base.failed + 1]);
    assert.equal(slow.w.stats().roomsOpen, 0);
  });

  void it('cancelling the decode call fails its prefill with room_aborted', async () => {
    const slow = await start('sglang', { role: 'prefill', prefillTps: 0.1 });
    const req = pdRequest('sglang', 'slow-2', '47', slow.w);
    let cancel = (): void => {};
    const d = collect(decode.c, 'Generate', req, (call) => (cancel = () => call.cancel()));
    const p = collect(slow.c, 'Generate', req);
    await waitForStats(slow.w, (s) => s.roomsOpen === 1 && s.running === 1);
    await waitForStats(decode.w, (s) => s.running === 1);
    cancel();
    const pr = await p;
    assert.equal(pr.code, grpc.status.INTERNAL);
    assert.match(pr.details, /the decode leg went away \(room_aborted\)/);
    assert.equal((await d).code, grpc.status.CANCELLED);
    const ss = await waitForStats(slow.w, (s) => s.running === 0);
    assert.deepEqual([ss.roomsOpen, ss.roomsAborted, ss.failed], [0, 1, 1]);
    await waitForStats(decode.w, (s) => s.running === 0);
  });

  void it('a decode without a bootstrap host is refused with INVALID_ARGUMENT', async () => {
    const req = pdRequest('sglang', 'bad-1', '48', prefill.w);
    (req['disaggregated_params'] as Msg)['bootstrap_host'] = '';
    const r = await collect(decode.c, 'Generate', req);
    assert.equal(r.code, grpc.status.INVALID_ARGUMENT);
    assert.match(r.details, /bootstrap_host/);
  });

  void it('refuses n > 1 samples on one bootstrap room, on either leg', async () => {
    const req = { ...pdRequest('sglang', 'pd-n2', '77', prefill.w) };
    req['sampling_params'] = { ...(req['sampling_params'] as Msg), n: 2 };
    for (const leg of [prefill, decode]) {
      const r = await collect(leg.c, 'Generate', req);
      assert.equal(r.code, grpc.status.INVALID_ARGUMENT);
      assert.match(r.details, /cannot share bootstrap room 77/);
    }
    assert.equal(prefill.w.stats().roomsOpen, 0);
  });

  void it('closing the workers ends their waiting legs as aborted and frees every room', async () => {
    const p = await start('sglang', { role: 'prefill' });
    const d = await start('sglang', { role: 'decode' });
    const lone = collect(p.c, 'Generate', pdRequest('sglang', 'close-1', '50', p.w));
    const joined = collect(d.c, 'Generate', pdRequest('sglang', 'close-2', '51', p.w));
    await waitForStats(p.w, (s) => s.roomsOpen === 2 && s.running === 1);
    await waitForStats(d.w, (s) => s.running === 1);
    // The decode's worker first: its leg then sees its join torn down while it is closing.
    await Promise.all([d.w.close(), p.w.close()]);
    for (const r of await Promise.all([lone, joined])) assert.notEqual(r.code, 0);
    for (const w of [p.w, d.w]) {
      const s = w.stats();
      assert.deepEqual([s.running, s.aborted, s.failed, s.roomsOpen], [0, 1, 0, 0]);
    }
  });

  void it('GetServerInfo and GetLoads report the PD role', async () => {
    const args = async (c: EngineClient): Promise<Record<string, Msg>> => {
      const info = await unary(c, 'GetServerInfo');
      return (info['server_args'] as { fields: Record<string, Msg> }).fields;
    };
    const p = await args(prefill.c);
    assert.equal(p['disaggregation_mode']?.['stringValue'], 'prefill');
    assert.equal(p['disaggregation_bootstrap_port']?.['numberValue'], prefill.w.bootstrapPort);
    assert.equal((await args(decode.c))['disaggregation_mode']?.['stringValue'], 'decode');
    const ts = await args(tsPrefill.c);
    assert.equal(ts['disaggregation_mode']?.['stringValue'], 'prefill');
    assert.equal(ts['max_num_seqs']?.['numberValue'], 256);
    // A prefill waiting for its decode is in SGLang's bootstrap (prealloc) queue.
    const waiting = collect(prefill.c, 'Generate', pdRequest('sglang', 'load-1', '52', prefill.w));
    await waitForStats(prefill.w, (s) => s.roomsOpen === 1);
    const loads = await unary(prefill.c, 'GetLoads', {});
    const entry = (loads['loads'] as Msg[])[0] ?? {};
    const pd = entry['disaggregation'] as Msg;
    assert.equal(pd['mode'], 'prefill');
    assert.equal(pd['prefill_prealloc_queue_reqs'], 1);
    await unary(prefill.c, 'Abort', { request_id: 'load-1' });
    await waiting;
    const dl = await unary(decode.c, 'GetLoads', {});
    assert.equal(((dl['loads'] as Msg[])[0]?.['disaggregation'] as Msg)['mode'], 'decode');
  });

  void it('a regular gRPC worker ignores the bootstrap fields', async () => {
    const regular = await start('sglang', {});
    assert.equal(regular.w.bootstrapPort, undefined);
    const r = await collect(regular.c, 'Generate', pdRequest('sglang', 'reg-1', '49', prefill.w));
    assert.equal(r.code, 0, r.details);
    assert.equal(tokens(r), 8);
    const s = regular.w.stats();
    assert.deepEqual([s.kvTransfers, s.roomsOpen, s.completed], [0, 0, 1]);
    assert.deepEqual(s.roomsSeen, ['49'], 'the room is recorded all the same');
    const info = await unary(regular.c, 'GetServerInfo');
    const fields = (info['server_args'] as { fields: Record<string, Msg> }).fields;
    assert.equal(fields['disaggregation_mode']?.['stringValue'], 'null');
    assert.equal(fields['disaggregation_bootstrap_port'], undefined);
  });
});
