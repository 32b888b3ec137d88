/**
 * `switchyard demo --load`: a small, varied background load against the demo gateway, so a
 * newcomer watching the dashboard sees every part move: a steady stream of chat and completion
 * requests (half streamed, lengths varied), a burst every BURST_EVERY_MS wide enough to fill the
 * demo's decode window and queue at prefill admission, and now and then a request for a model no
 * worker serves, so the error plot has a line. Never more than MAX_OUTSTANDING requests at once.
 */
import { request } from 'undici';

export interface DemoLoadOptions {
  /** The gateway's base URL. */
  url: string;
  model: string;
  /** Steady requests per second (Poisson arrivals). */
  rps: number;
  /** Requests in each burst. */
  burst: number;
  random?: () => number;
}

const BURST_EVERY_MS = 20_000;
const UNKNOWN_MODEL_EVERY_MS = 15_000;
const MAX_OUTSTANDING = 128;

const PROMPTS = [
  'Explain prefill/decode disaggregation in two sentences.',
  'Write a haiku about load balancers.',
  'List three reasons a request might wait for admission.',
  'Summarise what a circuit breaker does.',
  'Describe a busy train yard at dawn.',
];

/** Starts the load; the returned function stops it, cutting the requests in flight. */
export function startDemoLoad(opts: DemoLoadOptions): () => Promise<void> {
  const random = opts.random ?? Math.random;
  const outstanding = new Set<Promise<void>>();
  let next: NodeJS.Timeout | undefined;
  const abort = new AbortController();
  let stopped = false;

  const send = (model: string, maxTokens: number): void => {
    if (stopped || outstanding.size >= MAX_OUTSTANDING) return;
    const stream = random() < 0.5;
    const chat = random() < 0.7;
    const prompt = PROMPTS[Math.floor(random() * PROMPTS.length)] ?? PROMPTS[0];
    const body = chat
      ? { model, messages: [{ role: 'user', content: prompt }], max_tokens: maxTokens, stream }
      : { model, prompt, max_tokens: maxTokens, stream };
    const done: Promise<void> = request(
      `${opts.url}/v1/${chat ? 'chat/completions' : 'completions'}`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: abort.signal,
      },
    )
      .then((res) => res.body.dump())
      // The demo's load is for watching: a refused or failed request is part of the picture.
      .catch(() => undefined)
      .finally(() => outstanding.delete(done));
    outstanding.add(done);
  };
  const length = (): number => 16 + Math.floor(random() * 144);

  const steady = (): void => {
    if (stopped) return;
    send(opts.model, length());
    // Exponential gaps: arrivals as independent clients make them, not a metronome.
    const gapMs = (-Math.log(1 - random()) / opts.rps) * 1000;
    next = setTimeout(steady, Math.min(gapMs, 10_000)).unref();
  };
  if (opts.rps > 0) steady();
  const burst = setInterval(() => {
    for (let i = 0; i < opts.burst; i++) send(opts.model, 160 + Math.floor(random() * 96));
  }, BURST_EVERY_MS).unref();
  const unknown = setInterval(() => send('no-such-model', 16), UNKNOWN_MODEL_EVERY_MS).unref();

  return async () => {
    stopped = true;
    clearTimeout(next);
    clearInterval(burst);
    clearInterval(unknown);
    // Ctrl+C should stop the demo now, not after the longest answer in flight.
    abort.abort();
    await Promise.all([...outstanding]);
  };
}
