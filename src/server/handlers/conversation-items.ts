/**
 * The Conversations API's item routes, over the history store in every mode, with SMG's bodies:
 * `GET`/`POST /v1/conversations/{id}/items` list a page of the linked items and add up to 20,
 * `GET`/`DELETE /v1/conversations/{id}/items/{item_id}` read one linked item and unlink it.
 */
import type { IncomingMessage } from 'node:http';
import { sendJson } from '../../errors/respond.js';
import { itemJson } from '../../storage/conversation-items.js';
import type { ListItemsQuery } from '../../storage/history-store.js';
import { commitItems, planItems } from './conversation-item-plan.js';
import { conversationJson, conversationOr404 } from './conversations.js';
import {
  badRequest,
  ConversationProblem,
  historyRoute,
  sendConversationError,
  sendProblem,
} from './history-io.js';
import { readJsonObject } from './token-routes-io.js';

/** SMG's page size when `limit` is not given. */
const DEFAULT_LIMIT = 100;
/** The largest page served (OpenAI's maximum too); a larger `limit` gets this many. */
export const MAX_LIMIT = 100;

/**
 * The page a list asks for: `limit` a positive integer (capped at 100), `order` `asc` or, for any
 * other value, `desc` as SMG reads it, `after` an item id.
 */
function listQuery(req: IncomingMessage): ListItemsQuery | ConversationProblem {
  const query = new URLSearchParams((req.url ?? '').split('?')[1] ?? '');
  const rawLimit = query.get('limit');
  let limit = DEFAULT_LIMIT;
  if (rawLimit !== null) {
    if (!/^\d+$/.test(rawLimit) || Number(rawLimit) < 1) {
      return badRequest(`limit must be a positive integer, got '${rawLimit}'`);
    }
    limit = Math.min(Number(rawLimit), MAX_LIMIT);
  }
  const after = query.get('after');
  return {
    limit,
    order: query.get('order') === 'asc' ? 'asc' : 'desc',
    after: after === null || after === '' ? undefined : after,
  };
}

export const listConversationItems = historyRoute(async (req, res, app, id) => {
  const query = listQuery(req);
  if (query instanceof ConversationProblem) {
    sendProblem(res, query);
    return;
  }
  if ((await conversationOr404(res, app.history, id)) === undefined) return;
  const page = await app.history.listItems(id, query);
  sendJson(res, 200, {
    object: 'list',
    data: page.items.map(itemJson),
    // SMG says `has_more` when the page is full; the store knows whether more items follow.
    has_more: page.hasMore,
    first_id: page.items[0]?.id ?? null,
    last_id: page.items.at(-1)?.id ?? null,
  });
});

/** `POST /v1/conversations/{id}/items {items}`: nothing is written unless every item is accepted. */
export const createConversationItems = historyRoute(async (req, res, app, id) => {
  const body = await readJsonObject(req, res, app);
  if (body === undefined) return;
  if ((await conversationOr404(res, app.history, id)) === undefined) return;
  const plan = await planItems(app.history, id, body.items, Math.floor(Date.now() / 1000));
  if (plan instanceof ConversationProblem) {
    sendProblem(res, plan);
    return;
  }
  await commitItems(app.history, id, plan);
  sendJson(res, 200, {
    object: 'list',
    data: plan.data,
    first_id: plan.data[0]?.id ?? null,
    last_id: plan.data.at(-1)?.id ?? null,
    has_more: false,
    ...(plan.warnings.length > 0 ? { warnings: plan.warnings } : {}),
  });
});

/** One item linked to the conversation; `include` is accepted and ignored, as SMG does. */
export const getConversationItem = historyRoute(async (_req, res, app, _id, params) => {
  const [conversationId = '', itemId = ''] = params;
  if ((await conversationOr404(res, app.history, conversationId)) === undefined) return;
  if (!(await app.history.isLinked(conversationId, itemId))) {
    sendConversationError(res, 'not_found', 'Item not found in this conversation');
    return;
  }
  const item = await app.history.getItem(itemId);
  if (item === undefined) sendConversationError(res, 'not_found', 'Item not found');
  else sendJson(res, 200, item.item);
});

/**
 * Unlinks the item (the item itself stays) and answers the conversation, as SMG and OpenAI do;
 * an item that was not linked answers the same, as SMG's.
 */
export const deleteConversationItem = historyRoute(async (_req, res, app, _id, params) => {
  const [conversationId = '', itemId = ''] = params;
  const conversation = await conversationOr404(res, app.history, conversationId);
  if (conversation === undefined) return;
  await app.history.unlinkItem(conversationId, itemId);
  sendJson(res, 200, conversationJson(conversation));
});
