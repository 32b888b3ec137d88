/**
 * One `POST /v1/responses` request as the history store sees it: the client's own input items
 * (history excluded), what it continues, whether it is stored, and how its finished response is
 * stored. Made at the edge (prepare-turn.ts) in every mode; the gRPC pipeline and the HTTP relay
 * each call `finish` once with the response the client is about to be told is complete.
 */
import type { JsonObject } from '../util/json.js';

export interface ResponsesTurn {
  /** `resp_…` for a response the gateway generates (gRPC mode); HTTP keeps the worker's own. */
  readonly id: string;
  /** Unix seconds. */
  readonly createdAt: number;
  /** `store` is not false. */
  readonly store: boolean;
  readonly previousResponseId: string | undefined;
  readonly conversationId: string | undefined;
  /** The request's own input as items, each with its id (`input_items` lists them). */
  readonly ownInput: readonly JsonObject[];
  /**
   * Stores `response` (under its own `id`) when the request is stored, with its input and, in a
   * conversation, its input and output items. Rejects with a 503 `history_store_unavailable`
   * GatewayError when the store cannot take it; the response must then not be acknowledged.
   */
  finish(response: JsonObject): Promise<void>;
}
