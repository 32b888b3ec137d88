/**
 * What the routes over the history store share: the 503 of a store that cannot answer, and the
 * Conversations API's own error body.
 */
import type { ServerResponse } from 'node:http';
import { recordErrorCode, sendError, sendJson } from '../../errors/respond.js';
import { HistoryStoreError } from '../../storage/history-store.js';
import { storeUnavailable } from '../../storage/store-unavailable.js';
import type { Handler } from '../routes.js';

/**
 * The handler, with a store that could not answer turned into `503 history_store_unavailable` in
 * the gateway's error envelope (its stable code, on the conversation routes too). Each handler
 * writes only after every read it needs, so a failed call acknowledges nothing.
 */
export function historyRoute(handler: Handler): Handler {
  return async (req, res, app, param, params) => {
    try {
      await handler(req, res, app, param, params);
    } catch (err) {
      if (!(err instanceof HistoryStoreError)) throw err;
      app.logger.warn({ err, backend: err.backend }, 'history store unavailable');
      sendError(res, storeUnavailable(err));
    }
  };
}

/**
 * The Conversations API's error body, `{"error": "<message>"}`, as SMG's conversation handlers
 * answer; the code still goes to `X-SMG-Error-Code` and the response metrics.
 */
export function sendConversationError(
  res: ServerResponse,
  code: 'invalid_body' | 'not_found',
  message: string,
): void {
  recordErrorCode(res, code);
  sendJson(res, code === 'not_found' ? 404 : 400, { error: message });
}

/** A conversation route's problem with the request, answered by `sendProblem`. */
export class ConversationProblem {
  constructor(
    readonly code: 'invalid_body' | 'not_found' | 'item_already_in_conversation',
    readonly message: string,
  ) {}
}

export const badRequest = (message: string): ConversationProblem =>
  new ConversationProblem('invalid_body', message);

export const notFound = (message: string): ConversationProblem =>
  new ConversationProblem('not_found', message);

/**
 * The problem's answer. `item_already_in_conversation` is the one conversation error SMG gives
 * the OpenAI shape, naming `items` as the parameter.
 */
export function sendProblem(res: ServerResponse, problem: ConversationProblem): void {
  if (problem.code !== 'item_already_in_conversation') {
    sendConversationError(res, problem.code, problem.message);
    return;
  }
  recordErrorCode(res, problem.code);
  sendJson(res, 400, {
    error: {
      message: problem.message,
      type: 'invalid_request_error',
      param: 'items',
      code: problem.code,
    },
  });
}
