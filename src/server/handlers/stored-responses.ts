/**
 * The stored-response routes of the Responses API, over the history store in every mode, with
 * SMG's bodies and codes (`routers/responses/handlers.rs`, and its gRPC router's cancel):
 * `GET`/`DELETE /v1/responses/{id}`, `GET /v1/responses/{id}/input_items`, and
 * `POST /v1/responses/{id}/cancel`, which can never cancel since nothing runs in the background.
 */
import type { ServerResponse } from 'node:http';
import { GatewayError } from '../../errors/gateway-error.js';
import { sendError, sendJson } from '../../errors/respond.js';
import { newItemId } from '../../storage/conversation-items.js';
import { historyRoute } from './history-io.js';

function sendNotStored(res: ServerResponse, id: string): void {
  sendError(res, new GatewayError('not_found', `No response found with id '${id}'`));
}

/** The response body as it was answered when it was made. */
export const getStoredResponse = historyRoute(async (_req, res, app, id) => {
  const stored = await app.history.getResponse(id);
  if (stored === undefined) sendNotStored(res, id);
  else sendJson(res, 200, stored.response);
});

export const deleteStoredResponse = historyRoute(async (_req, res, app, id) => {
  if (!(await app.history.deleteResponse(id))) {
    sendNotStored(res, id);
    return;
  }
  sendJson(res, 200, { id, object: 'response.deleted', deleted: true });
});

/**
 * The request's own input items in one list, as SMG: no pagination (`limit`, `order` and `after`
 * are not read), and an item stored without an id is shown with a new `msg_` one.
 */
export const listInputItems = historyRoute(async (_req, res, app, id) => {
  const stored = await app.history.getResponse(id);
  if (stored === undefined) {
    sendNotStored(res, id);
    return;
  }
  const data = stored.input.map((item) =>
    item.id === undefined ? { ...item, id: newItemId('message') } : item,
  );
  const idOf = (item: (typeof data)[number] | undefined): unknown =>
    typeof item?.id === 'string' ? item.id : null;
  sendJson(res, 200, {
    object: 'list',
    data,
    first_id: idOf(data[0]),
    last_id: idOf(data.at(-1)),
    has_more: false,
  });
});

/**
 * SMG's gRPC answer in every mode: a stored response is already over, so it cannot be cancelled
 * (background mode does not exist); which 400 depends on how it ended.
 */
export const cancelStoredResponse = historyRoute(async (_req, res, app, id) => {
  const stored = await app.history.getResponse(id);
  if (stored === undefined) {
    sendError(res, new GatewayError('response_not_found', `Response with id '${id}' not found`));
    return;
  }
  const status = stored.response.status;
  const err =
    status === 'completed'
      ? new GatewayError('response_already_completed', 'Cannot cancel completed response')
      : status === 'failed'
        ? new GatewayError('response_already_failed', 'Cannot cancel failed response')
        : new GatewayError(
            'cancellation_not_supported',
            'Background mode is not supported. Synchronous and streaming responses cannot be cancelled.',
          );
  sendError(res, err);
});
