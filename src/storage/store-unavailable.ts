/**
 * A history store that could not answer, as the client hears it: `503 history_store_unavailable`
 * naming the backend, never retried on another worker (the generation it would repeat was not at
 * fault). One mapping for the stored-response and conversation routes and the Responses pipeline.
 */
import { GatewayError } from '../errors/gateway-error.js';
import { HistoryStoreError } from './history-store.js';

export function storeUnavailable(err: HistoryStoreError): GatewayError {
  return new GatewayError(
    'history_store_unavailable',
    `The history store (${err.backend}) could not answer: ${err.message}`,
    { retryable: false },
  );
}

/** Rethrows a store failure as the client's 503; other errors pass. */
export async function fromStore<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof HistoryStoreError) throw storeUnavailable(err);
    throw err;
  }
}
