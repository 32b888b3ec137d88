/**
 * A fault storm against a gateway in front of simulated gRPC engines: a closed loop of clients
 * sends chat and completion requests (half streamed; some clients leave mid-answer) while a
 * seeded schedule puts a fault on a random engine before every `faultEvery`-th request (start
 * UNAVAILABLE/INTERNAL, mid-stream failures, hangs before the first item, stalls mid-stream, slow
 * engines), each for a few requests, over base faults every engine keeps (a servicer that does
 * not pass cancels on, late Abort answers). Every
 * request is timed against a hard deadline: one that passes it is counted as hung. Used by the
 * bounded slice in `npm test` (engines in process) and by `bench/grpc-faults` (engines in their
 * own processes, one of them also stopped for 3 s).
 */
import { seededRandom } from '@switchyard/kit';
import type { SimFaults } from '@switchyard/sim';

/** One engine as the storm sees it: where to put faults, and its own counts. */
export interface StormEngine {
  readonly name: string;
  readonly role: 'regular' | 'prefill' | 'decode';
  setFaults(f: SimFaults): Promise<void>;
  /** Open Generates now and at most, Generates received, and the ids aborted and cancelled. */
  counts(): Promise<EngineCounts>;
}

export interface EngineCounts {
  running: number;
  peakRunning: number;
  /** Generate calls received. */
  generates: number;
  /** Calls the engine saw cancelled while still open: each needs an Abort. */
  cancelled: number;
  /** Distinct request ids named by the Abort RPCs received. */
  abortedIds: number;
}

export interface StormOptions {
  /** The gateway's base URL. */
  url: string;
  model: string;
  engines: readonly StormEngine[];
  requests: number;
  concurrency: number;
  seed: number;
  /** A new fault is put on an engine before every this many requests. */
  faultEvery: number;
  /** A request unanswered this long after it was sent is hung. */
  hardDeadlineMs: number;
  /** Share of clients that leave before their answer ends. */
  leaveRate: number;
  /** Faults every engine keeps under the schedule's (e.g. a servicer that ignores cancels). */
  baseFaults?: SimFaults;
}

export interface StormResult {
  sent: number;
  /** Answered to the end, whatever the status. */
  answered: number;
  hung: number;
  /** Clients that left on purpose. */
  left: number;
  /** `200`, `200 stream error`, `503 no_available_workers`, … */
  outcomes: Record<string, number>;
  faultsApplied: Record<string, number>;
  p50Ms: number;
  p99Ms: number;
}

/** The faults the schedule draws from, each bounded to a few requests or a short time. */
export const STORM_FAULTS: readonly { name: string; faults: SimFaults }[] = [
  { name: 'start UNAVAILABLE', faults: { errorRate: 1, grpcStatus: 14, maxFires: 2 } },
  { name: 'start INTERNAL', faults: { errorRate: 1, grpcStatus: 13, maxFires: 2 } },
  { name: 'mid-stream failure', faults: { dropAfterChunks: 3, maxFires: 2 } },
  { name: 'hang before the first item', faults: { hang: true, maxFires: 1 } },
  { name: 'stall mid-stream', faults: { grpcStallAfterTokens: 2, maxFires: 1 } },
  { name: 'slow engine', faults: { slowdown: 8, durationMs: 600 } },
];

interface Shot {
  chat: boolean;
  stream: boolean;
  leave: boolean;
  maxTokens: number;
}

function body(s: Shot, model: string): string {
  const common = { model, max_tokens: s.maxTokens, stream: s.stream };
  return JSON.stringify(
    s.chat
      ? { ...common, messages: [{ role: 'user', content: 'Tell me about the harbour.' }] }
      : { ...common, prompt: 'The harbour at dawn' },
  );
}

/** The gateway's error code of a JSON error body. */
function codeOf(text: string): string {
  return /"code":"([a-z_]+)"/.exec(text)?.[1] ?? '';
}

async function shoot(o: StormOptions, s: Shot): Promise<{ outcome: string; ms: number }> {
  const started = performance.now();
  const hard = AbortSignal.timeout(o.hardDeadlineMs);
  const leave = new AbortController();
  const signal = AbortSignal.any([hard, leave.signal]);
  const path = s.chat ? '/v1/chat/completions' : '/v1/completions';
  try {
    const res = await fetch(`${o.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: body(s, o.model),
      signal,
    });
    const reader = res.body?.getReader();
    let text = '';
    const decoder = new TextDecoder();
    for (;;) {
      const chunk = await reader?.read();
      if (chunk === undefined || chunk.done) break;
      text += decoder.decode(chunk.value as Uint8Array, { stream: true });
      // A leaving client goes after its first bytes: the gateway is then mid-answer.
      if (s.leave) {
        leave.abort();
        return { outcome: 'client left', ms: performance.now() - started };
      }
    }
    const ms = performance.now() - started;
    if (res.status !== 200) return { outcome: `${res.status} ${codeOf(text)}`, ms };
    if (s.stream && !text.endsWith('data: [DONE]\n\n')) return { outcome: '200 cut', ms };
    // SMG's mid-stream failure: one error event, then [DONE].
    if (s.stream && text.includes('data: {"error"')) return { outcome: '200 stream error', ms };
    return { outcome: '200', ms };
  } catch (err) {
    const ms = performance.now() - started;
    if (leave.signal.aborted) return { outcome: 'client left', ms };
    if (hard.aborted) return { outcome: 'hung', ms };
    return { outcome: `transport ${(err as Error).name}`, ms };
  }
}

function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

export async function runStorm(o: StormOptions): Promise<StormResult> {
  // The schedule and the request mix are the same for a seed.
  const random = seededRandom(o.seed);
  const rand = (): number => random.next();
  const shots: Shot[] = Array.from({ length: o.requests }, () => ({
    chat: rand() < 0.8,
    stream: rand() < 0.5,
    leave: rand() < o.leaveRate,
    maxTokens: 8 + Math.floor(rand() * 24),
  }));
  const faultsApplied: Record<string, number> = {};
  const applyFault = async (): Promise<void> => {
    const engine = o.engines[Math.floor(rand() * o.engines.length)];
    const fault = STORM_FAULTS[Math.floor(rand() * STORM_FAULTS.length)];
    if (engine === undefined || fault === undefined) return;
    await engine.setFaults({ ...o.baseFaults, ...fault.faults });
    faultsApplied[fault.name] = (faultsApplied[fault.name] ?? 0) + 1;
  };
  await Promise.all(o.engines.map((e) => e.setFaults({ ...o.baseFaults })));
  const outcomes: Record<string, number> = {};
  const times: number[] = [];
  let next = 0;
  const client = async (): Promise<void> => {
    while (next < shots.length) {
      const i = next++;
      const shot = shots[i] as Shot;
      if (i % o.faultEvery === 0) await applyFault();
      const { outcome, ms } = await shoot(o, shot);
      outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
      if (outcome !== 'client left' && outcome !== 'hung') times.push(ms);
    }
  };
  await Promise.all(Array.from({ length: o.concurrency }, client));
  await Promise.all(o.engines.map((e) => e.setFaults({ ...o.baseFaults })));
  times.sort((a, b) => a - b);
  const hung = outcomes.hung ?? 0;
  const left = outcomes['client left'] ?? 0;
  return {
    sent: shots.length,
    answered: shots.length - hung - left,
    hung,
    left,
    outcomes,
    faultsApplied,
    p50Ms: quantile(times, 0.5),
    p99Ms: quantile(times, 0.99),
  };
}
