/**
 * Stores a finished response: the response with the request's own input, and in a conversation
 * the input and output items linked to it, in that order. The items are written before the
 * response and linked last, so a failure part-way leaves nothing a reader follows: a response
 * whose conversation links are missing is not acknowledged (the caller answers 503), and items
 * that are written but never linked are invisible.
 */
import type { HistoryStore, StoredItem } from '../storage/history-store.js';
import { storedItemOf } from '../storage/conversation-items.js';
import { isJsonObject, type JsonObject } from '../util/json.js';
import type { ResponsesTurn } from './responses-turn.js';

/**
 * The response as stored: what it continued is the turn's, also when the answer came from an
 * HTTP worker, which was sent the history in place of the ids and so echoes none.
 */
function withTurnIds(response: JsonObject, turn: ResponsesTurn): JsonObject {
  if (turn.previousResponseId === undefined && turn.conversationId === undefined) return response;
  return {
    ...response,
    previous_response_id: turn.previousResponseId ?? null,
    conversation: turn.conversationId === undefined ? null : { id: turn.conversationId },
  };
}

export async function storeTurn(
  store: HistoryStore,
  turn: ResponsesTurn,
  response: JsonObject,
): Promise<void> {
  const id = typeof response.id === 'string' ? response.id : turn.id;
  const createdAt = typeof response.created_at === 'number' ? response.created_at : turn.createdAt;
  const conversation = turn.conversationId;
  let items: StoredItem[] = [];
  if (conversation !== undefined) {
    const output = Array.isArray(response.output) ? response.output.filter(isJsonObject) : [];
    items = [...turn.ownInput, ...output].map((item) => storedItemOf(item, createdAt, id));
    await store.putItems(items);
  }
  await store.putResponse({
    id,
    previousResponseId: turn.previousResponseId,
    conversationId: conversation,
    input: turn.ownInput,
    response: withTurnIds(response, turn),
    model: typeof response.model === 'string' ? response.model : undefined,
    safetyIdentifier:
      typeof response.safety_identifier === 'string'
        ? response.safety_identifier
        : typeof response.user === 'string'
          ? response.user
          : undefined,
    createdAt,
  });
  if (conversation !== undefined)
    await store.linkItems(
      conversation,
      items.map((i) => i.id),
    );
}
