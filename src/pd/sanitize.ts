/**
 * The vLLM prefill probe: the original request made into a one-token, non-streamed request that
 * must stop on the length cap, because vLLM only returns KV handoff params for a request that
 * finished `length`. Better than SMG's HTTP sanitizer: `ignore_eos` is forced and stops are
 * removed, so a first token that happens to be a stop does not lose the handoff (and silently make
 * the decode recompute).
 */
import type { Endpoint } from '../routing/endpoint.js';
import type { JsonObject } from '../util/json.js';

export function sanitizePrefill(endpoint: Endpoint, body: JsonObject): JsonObject {
  const out: JsonObject = { ...body, stream: false };
  delete out.stream_options;
  delete out.min_tokens;
  delete out.min_completion_tokens;
  delete out.stop;
  delete out.stop_sequences;
  delete out.stop_token_ids;
  out.ignore_eos = true;
  if (out.n !== undefined) out.n = 1;
  if (endpoint === 'responses') {
    out.max_output_tokens = 1;
    // The prefill's one-token answer is nobody's response: the worker keeps no copy of it.
    out.store = false;
  } else if (endpoint === 'chat' && out.max_completion_tokens !== undefined) {
    // Engines reject both spellings at once: keep the one the client used.
    out.max_completion_tokens = 1;
    delete out.max_tokens;
  } else {
    out.max_tokens = 1;
  }
  return out;
}

/** `n` as vLLM reads it (absent = 1). */
export function samplingN(body: JsonObject): number {
  const n = body.n;
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : 1;
}

/** Whether a chat request carries image/audio/video parts (they ride the prefill leg on gRPC). */
export function hasMultimodalInput(endpoint: Endpoint, body: JsonObject): boolean {
  if (endpoint !== 'chat' || !Array.isArray(body.messages)) return false;
  return body.messages.some((m) => {
    const content = (m as { content?: unknown } | null)?.content;
    return (
      Array.isArray(content) &&
      content.some((p) => {
        const type = (p as { type?: unknown } | null)?.type;
        return typeof type === 'string' && type !== 'text';
      })
    );
  });
}
