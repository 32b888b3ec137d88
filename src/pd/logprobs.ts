/**
 * Input-logprob merge for SGLang PD: the prefill computed the prompt's logprobs, the decode did
 * not, so the prefill's `meta_info.input_token_logprobs` go in front of the decode's. Only SGLang's
 * `meta_info` shape is merged; OpenAI bodies pass unchanged. This is the one place the gateway
 * rewrites response chunks.
 */
type Json = Record<string, unknown>;

/** Whether the client asked for logprobs (generate `return_logprob`, OpenAI `logprobs`). */
export function wantsLogprobs(body: Json): boolean {
  return (
    body.return_logprob === true ||
    (body.logprobs !== undefined && body.logprobs !== null && body.logprobs !== false)
  );
}

function inputLogprobs(value: unknown): unknown[] | undefined {
  const meta = (value as { meta_info?: { input_token_logprobs?: unknown } } | null)?.meta_info;
  return Array.isArray(meta?.input_token_logprobs) ? meta.input_token_logprobs : undefined;
}

/**
 * The prefill's input logprobs from its body, whether it answered JSON or SSE (it gets the same
 * `stream` flag as the decode): for SSE, the first `data:` event that carries them.
 */
export function prefillInputLogprobs(body: string): unknown[] | undefined {
  const trimmed = body.trimStart();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    try {
      const value: unknown = JSON.parse(trimmed);
      return inputLogprobs(Array.isArray(value) ? value[0] : value);
    } catch {
      return undefined;
    }
  }
  for (const event of body.split('\n\n')) {
    const line = event.trim();
    if (!line.startsWith('data:')) continue;
    const payload = line.slice(5).trim();
    if (payload === '[DONE]') continue;
    try {
      const found = inputLogprobs(JSON.parse(payload));
      if (found) return found;
    } catch {
      // not JSON: keep looking
    }
  }
  return undefined;
}

/** Prepends `prefix` to a decode document's input logprobs; returns whether it changed. */
export function mergeInto(doc: unknown, prefix: readonly unknown[]): boolean {
  const targets = Array.isArray(doc) ? doc : [doc];
  let changed = false;
  for (const t of targets) {
    const meta = (t as { meta_info?: Json } | null)?.meta_info;
    if (meta && Array.isArray(meta.input_token_logprobs)) {
      meta.input_token_logprobs = [...prefix, ...(meta.input_token_logprobs as unknown[])];
      changed = true;
    }
  }
  return changed;
}

/** Rewrites one SSE event (`data: {...}`) with merged logprobs; other events pass unchanged. */
export function mergeSseEvent(event: string, prefix: readonly unknown[]): string {
  if (!event.startsWith('data:')) return event;
  const payload = event.slice(5).trim();
  if (payload === '[DONE]') return event;
  try {
    const doc: unknown = JSON.parse(payload);
    return mergeInto(doc, prefix) ? `data: ${JSON.stringify(doc)}` : event;
  } catch {
    return event;
  }
}
