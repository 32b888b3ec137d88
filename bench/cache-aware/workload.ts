// The shared-prefix workload: a set of long system prompts (think: one per product or agent), each
// followed by short user turns, drawn uniformly and sent as streamed chat completions. Everything
// comes from a seeded PRNG, so every policy in a run receives the very same request sequence.
import type { RequestSpec } from '../lib/loadgen.js';

export interface WorkloadShape {
  systemPrompts: number;
  /** Words per system prompt; the simulator counts one token per word. */
  systemWords: number;
  userWords: number;
  maxTokens: number;
  seed: number;
}

const VOCAB = (
  'the a of to and in is for on with as by at from that this be are was it or an not which but all ' +
  'freight route cargo vessel harbor crane manifest customs invoice pallet container berth tide ledger ' +
  'shipment carrier depot schedule delay weather forecast port terminal load unload dock yard rail ' +
  'truck driver permit inspection weight volume priority express standard refund claim policy rule ' +
  'answer question customer agent support ticket status update summary detail reason note'
).split(' ');

/** mulberry32: small, fast and good enough to pick words and prompts reproducibly. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function words(next: () => number, n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(VOCAB[Math.floor(next() * VOCAB.length)] ?? 'the');
  return out.join(' ');
}

export interface SharedPrefixWorkload {
  /** Request `i`'s body (the same for every policy). */
  request(i: number): RequestSpec;
  /** Which system prompt request `i` uses. */
  promptOf(i: number): number;
}

export function sharedPrefixWorkload(shape: WorkloadShape, count: number): SharedPrefixWorkload {
  const next = prng(shape.seed);
  // The id leads each prompt, so prompts differ from their first characters on, as distinct
  // deployments' system prompts do; prefix_hash keys on the first ~1 KB.
  const systems = Array.from(
    { length: shape.systemPrompts },
    (_, k) => `Instructions set ${k}. ${words(next, shape.systemWords)}`,
  );
  const choice = Array.from({ length: count }, () => Math.floor(next() * shape.systemPrompts));
  const bodies = choice.map((k, i) =>
    JSON.stringify({
      model: 'sim-model',
      messages: [
        { role: 'system', content: systems[k] },
        { role: 'user', content: `Turn ${i}: ${words(next, shape.userWords)}` },
      ],
      max_tokens: shape.maxTokens,
      stream: true,
      stream_options: { include_usage: true },
    }),
  );
  return {
    request: (i) => ({ path: '/v1/chat/completions', body: bodies[i] ?? '' }),
    promptOf: (i) => choice[i] ?? -1,
  };
}

/** prompt_tokens and cached_tokens from the usage chunk at the end of a streamed answer. */
export function usageOf(body: string | undefined): { prompt: number; cached: number } | undefined {
  if (body === undefined) return undefined;
  const at = body.lastIndexOf('"usage"');
  if (at === -1) return undefined;
  const tail = body.slice(at);
  const prompt = /"prompt_tokens":(\d+)/.exec(tail);
  const cached = /"cached_tokens":(\d+)/.exec(tail);
  if (!prompt) return undefined;
  return { prompt: Number(prompt[1]), cached: cached ? Number(cached[1]) : 0 };
}
