// Generate on gRPC workers of each runtime: only the runtime's own service answers; token ids
// decode to the answer text; EOS, stop_token_ids, ignore_eos and the output cap end a choice as
// the real servicers do; n > 1 interleaves indices with one complete each; vLLM reports delta
// counts and no request_id, SGLang and TokenSpeed running totals.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import type { EngineRuntime } from '@switchyard/protos';
import type { SimWorker } from '../../src/index.js';
import { simDemoFleetSpec, startSimFleetFromSpec, startSimWorker } from '../../src/index.js';
import type { SimTokenizer } from '../../src/sim-tokenizer.js';
import { loadSimTokenizer } from '../../src/sim-tokenizer.js';
import type { EngineClient } from '../helpers/grpc-client.js';
import {
  collect,
  engineClient,
  generateRequest,
  idsOf,
  parts,
  unary,
} from '../helpers/grpc-client.js';

const RUNTIMES: EngineRuntime[] = ['sglang', 'vllm', 'tokenspeed'];
const ANSWER = 'Hello world';

let tok: SimTokenizer;
let eos: number;
let answerIds: number[];
const workers = new Map<EngineRuntime, { w: SimWorker; c: EngineClient }>();

function get(runtime: EngineRuntime): { w: SimWorker; c: EngineClient } {
  const entry = workers.get(runtime);
  if (entry === undefined) throw new Error(`no ${runtime} worker`);
  return entry;
}

void describe('gRPC Generate', () => {
  before(async () => {
    tok = await loadSimTokenizer(undefined);
    eos = tok.eosTokenIds[0] ?? -1;
    answerIds = tok.encode(ANSWER);
    for (const runtime of RUNTIMES) {
      const w = await startSimWorker({
        protocol: 'grpc',
        runtime,
        ttftMs: 1,
        itlMs: 0,
        answerText: ANSWER,
      });
      workers.set(runtime, { w, c: engineClient(runtime, w.url) });
    }
  });
  after(async () => {
    for (const { w, c } of workers.values()) {
      c.close();
      await w.close();
    }
  });

  void it('serves only its runtime: HealthCheck answers, the other services are UNIMPLEMENTED', async () => {
    for (const runtime of RUNTIMES) {
      const { w } = get(runtime);
      assert.match(w.url, /^grpc:\/\/127\.0\.0\.1:\d+$/);
      assert.equal(w.protocol, 'grpc');
      for (const other of RUNTIMES) {
        const c = engineClient(other, w.url);
        try {
          if (other === runtime) {
            assert.deepEqual(await unary(c, 'HealthCheck'), { healthy: true, message: 'ok' });
          } else {
            await assert.rejects(unary(c, 'HealthCheck'), { code: grpc.status.UNIMPLEMENTED });
          }
        } finally {
          c.close();
        }
      }
    }
  });

  void it('streams the answer text id by id, then EOS; the complete repeats the last delta', async () => {
    for (const runtime of RUNTIMES) {
      const { c, w } = get(runtime);
      const r = await collect(c, 'Generate', generateRequest(runtime, { id: `s-${runtime}` }));
      assert.equal(r.code, 0, r.details);
      const { chunks, completes } = parts(r.messages);
      const ids = idsOf(chunks);
      assert.deepEqual(ids, [...answerIds, eos]);
      assert.equal(tok.decode(ids, true), ANSWER);
      assert.equal(completes.length, 1);
      const done = completes[0] ?? {};
      assert.deepEqual(done['output_ids'], [eos]);
      assert.equal(done['finish_reason'], 'stop');
      assert.equal(done['matched_token_id'], eos);
      assert.equal(r.messages.at(-1)?.['response'], 'complete');
      for (const m of r.messages) {
        if (runtime === 'vllm') assert.equal(m['request_id'], undefined);
        else assert.equal(m['request_id'], `s-${runtime}`);
      }
      const seen = w.grpc?.requests.at(-1);
      assert.deepEqual(seen?.['tokenized'], { input_ids: [1, 2, 3] });
      assert.equal(seen?.['request_id'], `s-${runtime}`);
    }
  });

  void it('counts: vLLM sends deltas, SGLang and TokenSpeed running totals', async () => {
    for (const runtime of RUNTIMES) {
      const r = await collect(get(runtime).c, 'Generate', generateRequest(runtime));
      const { chunks, completes } = parts(r.messages);
      const counts = chunks.map((ch) => ch['completion_tokens']);
      const done = completes[0] ?? {};
      if (runtime === 'vllm') {
        assert.deepEqual(
          counts,
          chunks.map(() => 1),
        );
        assert.equal(done['completion_tokens'], 1);
      } else {
        assert.deepEqual(
          counts,
          chunks.map((_, i) => i + 1),
        );
        assert.equal(done['completion_tokens'], answerIds.length + 1);
      }
      for (const m of [...chunks, done]) assert.equal(m['prompt_tokens'], 3);
    }
  });

  void it('non-streaming: only completes, each with every output id and the total counts', async () => {
    for (const runtime of RUNTIMES) {
      const req = generateRequest(runtime, { stream: false, n: 2 });
      const r = await collect(get(runtime).c, 'Generate', req);
      const { chunks, completes } = parts(r.messages);
      assert.equal(chunks.length, 0);
      assert.deepEqual(
        completes.map((m) => [m['index'] ?? 0, m['output_ids'], m['completion_tokens']]),
        [0, 1].map((i) => [i, [...answerIds, eos], answerIds.length + 1]),
      );
    }
  });

  void it('n = 2 interleaves the indices and sends one complete per index', async () => {
    for (const runtime of RUNTIMES) {
      const r = await collect(get(runtime).c, 'Generate', generateRequest(runtime, { n: 2 }));
      const { chunks, completes } = parts(r.messages);
      assert.deepEqual(idsOf(chunks, 0), [...answerIds, eos]);
      assert.deepEqual(idsOf(chunks, 1), [...answerIds, eos]);
      assert.deepEqual(
        chunks.slice(0, 4).map((ch) => ch['index'] ?? 0),
        [0, 1, 0, 1],
      );
      assert.deepEqual(completes.map((m) => m['index'] ?? 0).sort(), [0, 1]);
    }
  });

  void it('the output cap ends a choice with length; 0 completes at once with no ids', async () => {
    for (const runtime of RUNTIMES) {
      const { c } = get(runtime);
      const r = await collect(c, 'Generate', generateRequest(runtime, { max: 1 }));
      const { chunks, completes } = parts(r.messages);
      assert.deepEqual(idsOf(chunks), answerIds.slice(0, 1));
      assert.equal(completes[0]?.['finish_reason'], 'length');
      assert.equal(completes[0]?.['matched_stop'], undefined);
      const zero = parts(
        (await collect(c, 'Generate', generateRequest(runtime, { max: 0 }))).messages,
      );
      assert.equal(zero.chunks.length, 0);
      assert.equal(zero.completes[0]?.['finish_reason'], 'length');
      assert.deepEqual(zero.completes[0]?.['output_ids'] ?? [], []);
    }
  });

  void it('ignore_eos emits EOS as a token and runs on to the cap', async () => {
    for (const runtime of RUNTIMES) {
      const max = 2 * (answerIds.length + 1) + 1;
      const req = generateRequest(runtime, { max, ignoreEos: true, stream: false });
      const { completes } = parts((await collect(get(runtime).c, 'Generate', req)).messages);
      const cycle = [...answerIds, eos];
      assert.deepEqual(completes[0]?.['output_ids'], [...cycle, ...cycle, cycle[0]]);
      assert.equal(completes[0]?.['finish_reason'], 'length');
    }
  });

  void it('stop_token_ids end the choice on that id, reported as matched', async () => {
    const stop = answerIds[1] ?? -1;
    for (const runtime of RUNTIMES) {
      const req = generateRequest(runtime, { stopTokenIds: [stop] });
      const { chunks, completes } = parts(
        (await collect(get(runtime).c, 'Generate', req)).messages,
      );
      assert.deepEqual(idsOf(chunks), answerIds.slice(0, 2));
      assert.equal(completes[0]?.['finish_reason'], 'stop');
      assert.equal(completes[0]?.['matched_token_id'], stop);
    }
  });

  void it('refuses a request without input ids, and SGLang refuses string stops', async () => {
    for (const runtime of RUNTIMES) {
      const r = await collect(get(runtime).c, 'Generate', generateRequest(runtime, { ids: [] }));
      assert.equal(r.code, grpc.status.INVALID_ARGUMENT);
    }
    const req = generateRequest('sglang');
    (req['sampling_params'] as Record<string, unknown>)['stop'] = ['lo wo'];
    const r = await collect(get('sglang').c, 'Generate', req);
    assert.equal(r.code, grpc.status.INVALID_ARGUMENT);
    assert.match(r.details, /stop/);
    for (const runtime of ['vllm', 'tokenspeed'] as const) {
      const ok = generateRequest(runtime);
      (ok['sampling_params'] as Record<string, unknown>)['stop'] = ['lo wo'];
      assert.equal((await collect(get(runtime).c, 'Generate', ok)).code, 0);
    }
  });

  void it('vLLM also takes text input and tokenizes it', async () => {
    const req = generateRequest('vllm');
    delete req['tokenized'];
    req['text'] = 'the train';
    const r = await collect(get('vllm').c, 'Generate', req);
    assert.equal(r.code, 0, r.details);
    assert.equal(parts(r.messages).chunks[0]?.['prompt_tokens'], tok.encode('the train').length);
  });
});

void describe('gRPC Generate, default answer and prefix cache', () => {
  let w: SimWorker;
  let c: EngineClient;
  before(async () => {
    w = await startSimWorker({
      protocol: 'grpc',
      runtime: 'sglang',
      engine: 'realistic',
      timeScale: 0.01,
      blockSize: 4,
      outputTokens: 6,
    });
    c = engineClient('sglang', w.url);
  });
  after(async () => {
    c.close();
    await w.close();
  });

  void it('answers seeded canned words, the same for the same prompt, and reports cached tokens', async () => {
    const tok = await loadSimTokenizer(undefined);
    const ids = Array.from({ length: 40 }, (_, i) => 10 + i);
    const first = parts(
      (await collect(c, 'Generate', generateRequest('sglang', { ids }))).messages,
    );
    const second = parts(
      (await collect(c, 'Generate', generateRequest('sglang', { ids }))).messages,
    );
    assert.deepEqual(idsOf(second.chunks), idsOf(first.chunks));
    const text = tok.decode(idsOf(first.chunks), true);
    assert.match(text, /^[a-z]+( [a-z]+){5}\.$/);
    assert.equal(first.completes[0]?.['cached_tokens'], 0);
    assert.ok(Number(second.completes[0]?.['cached_tokens']) >= 36);
  });
});

void describe('gRPC workers in a fleet spec', () => {
  void it('a group sets protocol grpc beside HTTP groups', async () => {
    const fleet = await startSimFleetFromSpec({
      workers: [{ runtime: 'vllm' }, { runtime: 'tokenspeed', protocol: 'grpc', count: 2 }],
    });
    try {
      assert.deepEqual(
        fleet.workers.map((w) => [w.runtime, w.protocol, w.url.split(':')[0]]),
        [
          ['vllm', 'http', 'http'],
          ['tokenspeed', 'grpc', 'grpc'],
          ['tokenspeed', 'grpc', 'grpc'],
        ],
      );
      const c = engineClient('tokenspeed', fleet.workers[2]?.url ?? '');
      try {
        assert.equal((await unary(c, 'HealthCheck'))['healthy'], true);
      } finally {
        c.close();
      }
    } finally {
      await fleet.close();
    }
  });
});

void describe('the demo fleet over gRPC', () => {
  void it('is two regular gRPC workers and a PD pair, the prefill with its bootstrap listener', async () => {
    const fleet = await startSimFleetFromSpec(
      simDemoFleetSpec({ protocol: 'grpc', runtime: 'tokenspeed' }),
    );
    try {
      assert.deepEqual(
        fleet.workers.map((w) => [w.name, w.role, w.runtime, w.protocol]),
        [
          ['regular-0', 'regular', 'tokenspeed', 'grpc'],
          ['regular-1', 'regular', 'tokenspeed', 'grpc'],
          ['prefill-0', 'prefill', 'tokenspeed', 'grpc'],
          ['decode-0', 'decode', 'tokenspeed', 'grpc'],
        ],
      );
      const [prefill] = fleet.byRole('prefill');
      assert.ok((prefill?.bootstrapPort ?? 0) > 0);
      assert.equal(fleet.byRole('regular')[0]?.bootstrapPort, undefined);
    } finally {
      await fleet.close();
    }
  });
});
