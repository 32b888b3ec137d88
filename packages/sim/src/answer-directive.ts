// A test's per-request answer, written into its prompt as `<sim-answer>TEXT</sim-answer>`. Gateway
// tests of tool-call and reasoning parsing need a model that answers in a given format per
// request (`<tool_call>…</tool_call>`, `<think>…</think>`), and the prompt is the one thing a
// chat request carries through the gateway to the engine unchanged.

const OPEN = '<sim-answer>';
const CLOSE = '</sim-answer>';

/**
 * TEXT of the last complete `<sim-answer>TEXT</sim-answer>` in `prompt`, exactly as written. The
 * last one, because a chat template renders the whole conversation: an earlier turn's directive
 * comes first.
 */
export function lastDirective(prompt: string): string | undefined {
  const end = prompt.lastIndexOf(CLOSE);
  if (end < 0) return undefined;
  const start = prompt.lastIndexOf(OPEN, end - OPEN.length);
  return start < 0 ? undefined : prompt.slice(start + OPEN.length, end);
}

/** The directive of a tokenized prompt, decoded with the worker's tokenizer. */
export function promptDirective(
  tokenizer: { decode(ids: readonly number[]): string; hyphenIds: ReadonlySet<number> },
  inputIds: readonly number[],
): string | undefined {
  // Decoding costs about 1.6 µs a token (50 ms for a 32k prompt with Qwen3's tokenizer), on every
  // request; checking for a token that can hold the tag's '-' costs a set lookup a token, and most
  // prompts have none.
  if (!inputIds.some((id) => tokenizer.hyphenIds.has(id))) return undefined;
  return lastDirective(tokenizer.decode(inputIds));
}
