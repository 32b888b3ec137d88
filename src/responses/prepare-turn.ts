/**
 * The edge step of `POST /v1/responses` in every mode: load what the request continues from the
 * history store (the chain of `previous_response_id`, oldest first, or the items of
 * `conversation`), put it in front of the request's own input, and give the context the turn
 * that stores the finished response. The gRPC pipeline renders the whole input; the HTTP relay
 * sends it to the worker in place of the ids, which only this gateway's store knows.
 *
 * Two differences from SMG, on purpose: a conversation's history keeps its function calls, their
 * outputs and reasoning (SMG keeps only messages, so a tool loop in a conversation loses its
 * calls), and a request whose input is only `function_call_output` items is served.
 */
import { GatewayError } from '../errors/gateway-error.js';
import type { RequestContext } from '../routing/request-context.js';
import type { HistoryStore, StoredResponse } from '../storage/history-store.js';
import { fromStore } from '../storage/store-unavailable.js';
import { isJsonObject, type JsonObject } from '../util/json.js';
import { uuidv7 } from '../util/uuid7.js';
import { conversationIdOf } from '../routing/validate-responses.js';
import { storeTurn } from './store-turn.js';
import type { ResponsesTurn } from './responses-turn.js';
import { newItemId } from '../storage/conversation-items.js';

/** How many responses a `previous_response_id` chain follows, as SMG. */
export const MAX_CHAIN_DEPTH = 100;
/** How many conversation items one request loads (SMG: 100; the newest are kept). */
export const MAX_CONVERSATION_ITEMS = 1000;

/** Items a later turn can render; others (hosted-tool calls) stay in the store only. */
const HISTORY_TYPES = new Set(['message', 'function_call', 'function_call_output', 'reasoning']);

/** The request's own input as items, each with an id: a string is one user message. */
export function ownInputItems(input: unknown): JsonObject[] {
  const items: unknown[] =
    typeof input === 'string'
      ? [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: input }] }]
      : Array.isArray(input)
        ? input
        : [];
  return items.filter(isJsonObject).map((item) => {
    const type = typeof item.type === 'string' ? item.type : 'message';
    return { ...item, type, id: typeof item.id === 'string' ? item.id : newItemId(type) };
  });
}

function renderable(items: readonly unknown[]): JsonObject[] {
  return items.filter(
    (i): i is JsonObject => isJsonObject(i) && HISTORY_TYPES.has((i.type as string) ?? 'message'),
  );
}

function chainItems(chain: readonly StoredResponse[]): JsonObject[] {
  const out: JsonObject[] = [];
  for (const r of chain) {
    out.push(...renderable(r.input));
    if (Array.isArray(r.response.output)) out.push(...renderable(r.response.output));
  }
  return out;
}

async function conversationItems(store: HistoryStore, id: string): Promise<JsonObject[]> {
  if ((await store.getConversation(id)) === undefined)
    throw new GatewayError('conversation_not_found', `Conversation '${id}' not found`);
  // Newest first, then reversed: a conversation longer than the cap keeps its latest turns.
  const page = await store.listItems(id, { limit: MAX_CONVERSATION_ITEMS, order: 'desc' });
  return renderable(page.items.map((s) => s.item).reverse());
}

async function historyOf(
  store: HistoryStore,
  previous: string | undefined,
  conversation: string | undefined,
): Promise<JsonObject[]> {
  if (previous !== undefined) {
    const chain = await store.responseChain(previous, MAX_CHAIN_DEPTH);
    if (chain.length === 0)
      throw new GatewayError(
        'previous_response_not_found',
        `Previous response with id '${previous}' not found.`,
      );
    return chainItems(chain);
  }
  if (conversation !== undefined) return conversationItems(store, conversation);
  return [];
}

/**
 * The context a Responses request is routed with: its body's `input` holds the history then the
 * request's own items, and (for a worker, which cannot know the ids) the bytes sent upstream lose
 * `previous_response_id` and `conversation`. A request that continues nothing keeps its bytes.
 */
export async function prepareTurn(
  ctx: RequestContext,
  store: HistoryStore,
): Promise<RequestContext> {
  const body = ctx.body;
  const previous =
    typeof body.previous_response_id === 'string' ? body.previous_response_id : undefined;
  const conversation = conversationIdOf(body.conversation);
  const ownInput = ownInputItems(body.input);
  const history = await fromStore(historyOf(store, previous, conversation));
  const stored = body.store !== false;
  const turn: ResponsesTurn = {
    id: `resp_${uuidv7().replaceAll('-', '')}`,
    createdAt: Math.floor(Date.now() / 1000),
    store: stored,
    previousResponseId: previous,
    conversationId: conversation,
    ownInput,
    finish: (response) =>
      stored ? fromStore(storeTurn(store, turn, response)) : Promise.resolve(),
  };
  if (previous === undefined && conversation === undefined) return { ...ctx, responses: turn };
  const expanded: JsonObject = { ...body, input: [...history, ...ownInput] };
  delete expanded.previous_response_id;
  delete expanded.conversation;
  return {
    ...ctx,
    body: expanded,
    upstreamBody: Buffer.from(JSON.stringify(expanded)),
    responses: turn,
  };
}
