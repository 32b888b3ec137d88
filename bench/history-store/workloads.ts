// Workloads of the history-store benchmark: one small Responses request (the gRPC benchmark's
// small chat: instructions + one user message, 1 output token) sent without and with `store`,
// and the fifth turn of a conversation sent two ways: by `previous_response_id` (the gateway reads
// the four stored turns before it and stores the fifth) and with the four turns resent by the
// client (`store: false`), the same prompt with no store involved. Each at one fixed rate of
// Poisson arrivals per fleet, below what the slowest of them sustains, so every row runs at the
// same load as its reference: the CPU a request adds is not mixed with a change of load (a
// gateway's CPU per request grows as its load falls), and latency is service time, not queueing.
import type { Workload } from '../overhead/workloads.js';
import { SMALL_CHAT } from '../grpc/text.js';

/** Turns stored before the measured one, so a continuation reads a chain of this many. */
export const CHAIN_BEFORE = 4;
/** Seeded chains a continuation run spreads over (one per client: no two share a prompt's cache). */
export const CHAINS = 32;

type Item = Record<string, unknown>;

const INSTRUCTIONS = SMALL_CHAT[0]?.content ?? '';
const USER = SMALL_CHAT[1]?.content ?? '';

export const userItem = (text: string): Item => ({
  type: 'message',
  role: 'user',
  content: [{ type: 'input_text', text }],
});

/** A Responses request body: the small chat's instructions, `input`, 1 output token. */
export function responsesBody(input: readonly Item[], extra: Record<string, unknown>): string {
  return JSON.stringify({
    model: 'sim-model',
    instructions: INSTRUCTIONS,
    input,
    max_output_tokens: 1,
    ...extra,
  });
}

/** The user turn `turn` (1-based) of chain `chain`: distinct per chain, the same every run. */
export const turnText = (chain: number, turn: number): string =>
  turn === 1 ? `${USER} (conversation ${chain})` : `Turn ${turn}: say it again, a little shorter.`;

const request = (body: string): Workload['request'] => ({ path: '/v1/responses', body });

/**
 * The seeded chains a continuation continues from: for each, the id of its last stored response
 * and every item of its four turns (each turn's input, then the response's output), and the two
 * fifth-turn bodies built from them once (so the client spends no CPU on JSON per request).
 */
export interface SeededChains {
  lastIds: string[];
  histories: Item[][];
  /** By `previous_response_id`, store true. */
  chainBodies: string[];
  /** The history inline, store false. */
  resendBodies: string[];
}

function fifthTurns(lastIds: string[], histories: Item[][]): SeededChains {
  const next = (k: number): Item => userItem(turnText(k, CHAIN_BEFORE + 1));
  return {
    lastIds,
    histories,
    chainBodies: lastIds.map((id, k) =>
      responsesBody([next(k)], { store: true, previous_response_id: id }),
    ),
    resendBodies: histories.map((h, k) => responsesBody([...h, next(k)], { store: false })),
  };
}

export function workloads(ratePerSec: number, seeded: () => SeededChains): Workload[] {
  const open = { ratePerSec };
  const last = `${CHAIN_BEFORE + 1}`;
  return [
    {
      name: 'store-off',
      title: 'one Responses request, store false (the reference)',
      stream: false,
      open,
      request: request(responsesBody([userItem(USER)], { store: false })),
    },
    {
      name: 'store-on',
      title: 'the same request, store true (one response written)',
      stream: false,
      open,
      request: request(responsesBody([userItem(USER)], { store: true })),
    },
    {
      name: 'resend',
      title: `turn ${last} with the ${CHAIN_BEFORE} turns before it resent as input, store false`,
      stream: false,
      open,
      request: request(''),
      requestAt: (i) => request(seeded().resendBodies[i % CHAINS] ?? ''),
    },
    {
      name: 'chain',
      title: `turn ${last} by previous_response_id (${CHAIN_BEFORE} stored turns read, one written)`,
      stream: false,
      open,
      request: request(''),
      requestAt: (i) => request(seeded().chainBodies[i % CHAINS] ?? ''),
    },
  ];
}

/**
 * Stores CHAINS conversations of CHAIN_BEFORE turns through the gateway (each turn continues the
 * one before by `previous_response_id`), the chains side by side. Run right before a `chain` run,
 * so the memory backend's eviction (oldest first) cannot have dropped them yet.
 */
export async function seedChains(url: string): Promise<SeededChains> {
  const lastIds: string[] = [];
  const histories: Item[][] = [];
  await Promise.all(
    Array.from({ length: CHAINS }, async (_, k) => {
      const history: Item[] = [];
      let previous: string | undefined;
      for (let turn = 1; turn <= CHAIN_BEFORE; turn++) {
        const input = [userItem(turnText(k, turn))];
        const body = responsesBody(input, {
          store: true,
          ...(previous !== undefined ? { previous_response_id: previous } : {}),
        });
        const res = await fetch(`${url}/v1/responses`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
        const text = await res.text();
        if (res.status !== 200) throw new Error(`seeding chain ${k}: ${res.status} ${text}`);
        const answer = JSON.parse(text) as { id: string; output: Item[] };
        history.push(...input, ...answer.output);
        previous = answer.id;
      }
      lastIds[k] = previous ?? '';
      histories[k] = history;
    }),
  );
  return fifthTurns(lastIds, histories);
}
