/**
 * The Conversations API's conversation routes, over the history store in every mode, with SMG's
 * bodies (`routers/conversations/handlers.rs`): `POST /v1/conversations` creates one,
 * `GET`/`POST`/`DELETE /v1/conversations/{id}` read it, patch its metadata and delete it. Their
 * own errors are `{"error": "<message>"}`; body-reading errors (415, 400, 422) and a store that
 * cannot answer (503) use the gateway's envelope.
 */
import type { ServerResponse } from 'node:http';
import { sendJson } from '../../errors/respond.js';
import { newConversationId } from '../../storage/conversation-items.js';
import type { Conversation, HistoryStore } from '../../storage/history-store.js';
import { isJsonObject, type JsonObject } from '../../util/json.js';
import { planItems } from './conversation-item-plan.js';
import {
  badRequest,
  ConversationProblem,
  historyRoute,
  sendConversationError,
  sendProblem,
} from './history-io.js';
import { readJsonObject } from './token-routes-io.js';

/** SMG's `MAX_METADATA_PROPERTIES`. */
export const MAX_METADATA_KEYS = 16;

const TOO_MANY_KEYS = `metadata cannot have more than ${MAX_METADATA_KEYS} properties`;
const NOT_AN_OBJECT = 'metadata must be an object';
const NO_CONVERSATION = 'Conversation not found';

/** A conversation as the API answers it; `metadata` left out when empty, as SMG does. */
export function conversationJson(conversation: Conversation): JsonObject {
  const json: JsonObject = {
    id: conversation.id,
    object: 'conversation',
    created_at: conversation.createdAt,
  };
  if (Object.keys(conversation.metadata).length > 0) json.metadata = conversation.metadata;
  return json;
}

/** The conversation, or undefined once its 404 was answered. */
export async function conversationOr404(
  res: ServerResponse,
  store: HistoryStore,
  id: string,
): Promise<Conversation | undefined> {
  const conversation = await store.getConversation(id);
  if (conversation === undefined) sendConversationError(res, 'not_found', NO_CONVERSATION);
  return conversation;
}

/** `metadata` of a create body: absent is `{}`; otherwise an object of at most 16 keys. */
function newMetadata(body: JsonObject): JsonObject | ConversationProblem {
  const metadata = body.metadata;
  if (metadata === undefined) return {};
  if (!isJsonObject(metadata)) return badRequest(NOT_AN_OBJECT);
  if (Object.keys(metadata).length > MAX_METADATA_KEYS) return badRequest(TOO_MANY_KEYS);
  return metadata;
}

/** `metadata` of an update body applied to `current`: a key set to null is removed. */
function patchedMetadata(current: JsonObject, body: JsonObject): JsonObject | ConversationProblem {
  const patch = body.metadata;
  if (patch === undefined) return current;
  if (!isJsonObject(patch)) return badRequest(NOT_AN_OBJECT);
  const result: JsonObject = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = value;
  }
  if (Object.keys(result).length > MAX_METADATA_KEYS) return badRequest(TOO_MANY_KEYS);
  return result;
}

/**
 * `POST /v1/conversations {metadata?, items?}`. SMG ignores `items`; here they are added as
 * `POST /v1/conversations/{id}/items` would add them, as OpenAI's API does, every check done
 * before anything is written.
 */
export const createConversation = historyRoute(async (req, res, app) => {
  const body = await readJsonObject(req, res, app);
  if (body === undefined) return;
  const metadata = newMetadata(body);
  if (metadata instanceof ConversationProblem) {
    sendProblem(res, metadata);
    return;
  }
  const now = Math.floor(Date.now() / 1000);
  const plan =
    body.items === undefined ? undefined : await planItems(app.history, undefined, body.items, now);
  if (plan instanceof ConversationProblem) {
    sendProblem(res, plan);
    return;
  }
  const conversation: Conversation = { id: newConversationId(), createdAt: now, metadata };
  // Items first and the links last: a failure on the way leaves at most records nobody was given
  // an id for, and a conversation whose items could not be linked is removed again.
  if (plan !== undefined && plan.put.length > 0) await app.history.putItems(plan.put);
  await app.history.createConversation(conversation);
  if (plan !== undefined && plan.link.length > 0) {
    try {
      await app.history.linkItems(conversation.id, plan.link);
    } catch (err) {
      await app.history.deleteConversation(conversation.id).catch(() => false);
      throw err;
    }
  }
  sendJson(res, 200, conversationJson(conversation));
});

export const getConversation = historyRoute(async (_req, res, app, id) => {
  const conversation = await conversationOr404(res, app.history, id);
  if (conversation !== undefined) sendJson(res, 200, conversationJson(conversation));
});

/** `POST /v1/conversations/{id} {metadata}`: a patch of the metadata, as SMG's. */
export const updateConversation = historyRoute(async (req, res, app, id) => {
  const body = await readJsonObject(req, res, app);
  if (body === undefined) return;
  const current = await conversationOr404(res, app.history, id);
  if (current === undefined) return;
  const metadata = patchedMetadata(current.metadata, body);
  if (metadata instanceof ConversationProblem) {
    sendProblem(res, metadata);
    return;
  }
  const updated = await app.history.setConversationMetadata(id, metadata);
  if (updated === undefined) sendConversationError(res, 'not_found', NO_CONVERSATION);
  else sendJson(res, 200, conversationJson(updated));
});

/** Removes the conversation record only; its items stay and can still be referenced. */
export const deleteConversation = historyRoute(async (_req, res, app, id) => {
  if (!(await app.history.deleteConversation(id))) {
    sendConversationError(res, 'not_found', NO_CONVERSATION);
    return;
  }
  sendJson(res, 200, { id, object: 'conversation.deleted', deleted: true });
});
