// Deterministic English-like text and the chat conversations of the gRPC benchmarks, shared by
// the end-to-end run (bench/grpc/run.ts) and the in-process tokenizer bench, so both tokenize
// the same prompts. Common words, capitalised sentences, commas and full stops: Qwen3's BPE
// spends ~1.15 tokens per word on it, about what English prose costs.

const WORDS = (
  'the a of to and in for on with as by at from that this which it its be is are was were ' +
  'request gateway worker token prompt model engine stream answer system user assistant cache ' +
  'route policy load queue batch latency budget window decode prefill time second minute ' +
  'quick careful simple steady short long large small early late clear bright quiet busy ' +
  'carry measure compare report check follow serve send read write hold keep start finish ' +
  'river mountain harbour garden library market station bridge village forest valley island ' +
  'morning evening winter summer letter number question reason picture story record signal'
).split(' ');

/** mulberry32: a tiny seeded generator, so every run sends the same text. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `words` words in sentences of 6-17 words, paragraphs of 5 sentences. */
export function prose(words: number, seed: number): string {
  const rand = seeded(seed);
  const out: string[] = [];
  let sentence: string[] = [];
  let sentences = 0;
  let length = 6 + Math.floor(rand() * 12);
  for (let i = 0; i < words; i++) {
    const w = WORDS[Math.floor(rand() * WORDS.length)] ?? 'the';
    sentence.push(sentence.length === 0 ? w[0]?.toUpperCase() + w.slice(1) : w);
    if (sentence.length === 8 && rand() < 0.5) sentence.push(',');
    if (sentence.length >= length || i === words - 1) {
      out.push(`${sentence.join(' ').replaceAll(' ,', ',')}.`);
      sentence = [];
      length = 6 + Math.floor(rand() * 12);
      if (++sentences % 5 === 0 && i < words - 1) out.push('\n\n');
    }
  }
  return out.join(' ').replaceAll(' \n\n ', '\n\n');
}

export type Message = { role: 'system' | 'user' | 'assistant'; content: string };

/** The short conversation: the same every request, so the render and L0 caches hit. */
export const SMALL_CHAT: readonly Message[] = [
  { role: 'system', content: 'You are a concise assistant for the Switchyard benchmark.' },
  { role: 'user', content: 'Say hello to the benchmark harness in one short sentence.' },
];

// Word counts chosen so that Qwen3's chat template plus tokenizer give ~2,000 prompt tokens
// (the tokenizer bench prints the exact count).
const LONG_SYSTEM = `You are a careful assistant. Answer from the notes below.\n\n${prose(260, 11)}`;
const LONG_USER = prose(1480, 12);

/**
 * The ~2,000-token conversation. With `variant` the user turn starts with its own ticket
 * number, so no two variants share a rendered prompt (an L0 and render-cache miss) while the
 * length stays the same to within a token or two.
 */
export function longChat(variant?: number): Message[] {
  const ticket = variant === undefined ? '' : `Ticket ${variant}. `;
  return [
    { role: 'system', content: LONG_SYSTEM },
    { role: 'user', content: `${ticket}${LONG_USER}` },
  ];
}

/** What the simulated engine answers: > 200 tokens, so a 200-token stream ends on its cap. */
export const ANSWER_TEXT = prose(300, 13);
