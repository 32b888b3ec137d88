// Helpers for tests that drive simulated workers (the simulator's own and the gateway's): waiting
// on asynchronous counters such as `aborted`, and splitting an SSE body into its data payloads
// (OpenAI framing) or its named events (Anthropic framing).
import type { SimStats, SimWorker } from './options.js';

/**
 * Polls `worker.stats()` until `predicate` holds, resolving with the matching snapshot. Rejects
 * after `timeoutMs` with the last snapshot in the message, so a failing test shows what it saw.
 */
export async function waitForStats(
  worker: Pick<SimWorker, 'stats'>,
  predicate: (s: SimStats) => boolean,
  timeoutMs = 1000,
): Promise<SimStats> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const stats = worker.stats();
    if (predicate(stats)) return stats;
    if (performance.now() >= deadline) {
      const { lastRequest: _omit, ...counters } = stats;
      throw new Error(
        `sim stats did not match within ${timeoutMs} ms: ${JSON.stringify(counters)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * Splits an SSE body into the payloads of its `data:` events (the `[DONE]` sentinel included, as
 * the string '[DONE]'). Throws if an event is not exactly one `data: ` line, which is the framing
 * every engine uses.
 */
export function parseSseData(body: string): string[] {
  if (!body.endsWith('\n\n')) throw new Error('SSE body does not end with a blank line');
  const events = body.slice(0, -2).split('\n\n');
  return events.map((event) => {
    if (!event.startsWith('data: ') || event.includes('\n')) {
      throw new Error(`malformed SSE event: ${JSON.stringify(event)}`);
    }
    return event.slice(6);
  });
}

/** One named SSE event, as Anthropic's Messages streams send them. */
export interface SseEvent {
  event: string;
  data: string;
}

/**
 * Splits an SSE body of named events (`event: <type>` then one `data:` line, Anthropic's
 * framing on /v1/messages) into its events. Throws on any other framing.
 */
export function parseSseEvents(body: string): SseEvent[] {
  if (!body.endsWith('\n\n')) throw new Error('SSE body does not end with a blank line');
  return body
    .slice(0, -2)
    .split('\n\n')
    .map((frame) => {
      const m = /^event: ([^\n]+)\ndata: ([^\n]*)$/.exec(frame);
      if (m === null) throw new Error(`malformed SSE event: ${JSON.stringify(frame)}`);
      return { event: m[1] ?? '', data: m[2] ?? '' };
    });
}

/** Status, headers and text of one POST; what the simulator's PD tests need from a response. */
export interface SimPostResult {
  status: number;
  headers: Headers;
  text: string;
  /** Wall-clock ms from send to the end of the body. */
  elapsedMs: number;
}

/**
 * POSTs `body` (an object is JSON-encoded; a string is sent verbatim, so a test can put a
 * 64-bit bootstrap_room in it as bare digits) and reads the whole response.
 */
export async function simPost(
  url: string,
  body: unknown,
  signal?: AbortSignal,
): Promise<SimPostResult> {
  const start = performance.now();
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...(signal === undefined ? {} : { signal }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, elapsedMs: performance.now() - start };
}
