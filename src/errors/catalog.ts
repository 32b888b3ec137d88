/**
 * The one catalog of gateway-minted error codes. Each code maps to an HTTP status; the OpenAI
 * `type` field is the status's canonical reason phrase, as SMG writes it. Codes are stable API:
 * clients, dashboards and alerts key on them, so never rename one.
 */
import { STATUS_CODES } from 'node:http';

export const ERROR_CATALOG = {
  // 4xx: bad input, never reaches a worker
  invalid_json: 400,
  invalid_body: 400,
  missing_model: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  model_not_found: 404,
  method_not_allowed: 405,
  request_body_timeout: 408,
  payload_too_large: 413,
  // The token routes, which SMG reads with axum's `Json` extractor: its statuses, our envelope.
  unsupported_media_type: 415,
  unprocessable_entity: 422,
  // The request already passed through this gateway (a routing loop); never retried.
  loop_detected: 508,
  admission_queue_full: 429,
  pd_prefill_queue_full: 429,
  pd_prefill_queue_timeout: 429,
  // 5xx: the gateway could not get an answer
  internal_error: 500,
  // SMG's codes and statuses for a failed send to a worker (router.rs `convert_reqwest_error`):
  // a refused or reset connection is a 500, not a 502.
  call_upstream_connection_failed: 500,
  call_upstream_status_error: 500,
  upstream_stream_failed: 502,
  // SMG's answer when a worker's body outgrows what the gateway buffers (router.rs); not retried.
  upstream_response_too_large: 502,
  no_workers: 503,
  no_available_workers: 503,
  admission_queue_timeout: 503,
  shutting_down: 503,
  /** `--max-buffered-body-bytes`: the request bodies held at once would exceed the budget. */
  request_body_budget_exhausted: 503,
  /** SMG's PD answer when no prefill/decode pair can be selected (pd_router.rs). */
  server_selection_failed: 503,
  /** PD `/health_generate`: no available prefill or decode worker to probe. */
  no_healthy_worker_pair: 503,
  /** PD `/health_generate`: the probed prefill or decode worker did not answer 2xx. */
  health_generate_failed: 503,
  call_upstream_timeout: 504,
  // PD legs: the status is the upstream's own (passed in), these are the defaults.
  prefill_bad_request: 400,
  prefill_not_found: 404,
  prefill_request_timeout: 408,
  prefill_too_many_requests: 429,
  prefill_internal_error: 500,
  prefill_bad_gateway: 502,
  prefill_unavailable: 503,
  prefill_gateway_timeout: 504,
  prefill_error: 500,
  prefill_request_failed: 502,
  prefill_read_failed: 502,
  decode_bad_request: 400,
  decode_not_found: 404,
  decode_request_timeout: 408,
  decode_too_many_requests: 429,
  decode_internal_error: 500,
  decode_bad_gateway: 502,
  decode_unavailable: 503,
  decode_gateway_timeout: 504,
  decode_error: 500,
  decode_request_failed: 502,
  decode_read_failed: 502,
  no_prefill_servers: 503,
  // gRPC mode: bad input found while preparing the engine request, never sent to a worker.
  invalid_request_parameters: 400,
  multimodal_not_supported: 400,
  /** The chat template raised or failed to render (SMG's code). */
  process_messages_failed: 400,
  /** The prompt's token count is over the worker's `max_req_input_len` / `max_context_length`. */
  context_length_exceeded: 400,
  /** No tokenizer is registered for the model yet; 503 with Retry-After, not retried (SMG: 500). */
  tokenizer_not_found: 503,
  // gRPC mode: the status is the one mapped from the gRPC code (passed in); these are defaults.
  start_generation_failed: 500,
  worker_stream_failed: 500,
  no_responses_from_server: 500,
  // gRPC PD: which leg failed before the pair formed, or the prefill's stream after it started.
  prefill_worker_failed_to_start: 500,
  decode_worker_failed_to_start: 500,
  prefill_stream_error: 500,
  /** A PD pair whose prefill runtime speaks no PD protocol over gRPC (SMG's code). */
  runtime_pd_not_supported: 400,
  // The Responses and Conversations APIs and their history store (SMG's codes where it has one).
  /** A Responses input item gRPC mode cannot turn into a chat message. */
  convert_request_failed: 400,
  /** `previous_response_id` names no stored response. */
  previous_response_not_found: 400,
  /** `previous_response_id` together with `conversation`. */
  mutually_exclusive_parameters: 400,
  /** `POST /v1/responses/{id}/cancel` on a response that already ended. */
  response_already_completed: 400,
  response_already_failed: 400,
  cancellation_not_supported: 400,
  /** An item posted with an id that is already linked to the conversation. */
  item_already_in_conversation: 400,
  conversation_not_found: 404,
  response_not_found: 404,
  /** `--history-backend` could not answer (Redis or Postgres unreachable); nothing was acknowledged. */
  history_store_unavailable: 503,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof ERROR_CATALOG;

export function statusOf(code: ErrorCode): number {
  return ERROR_CATALOG[code];
}

/** The OpenAI `type` field: SMG uses the HTTP reason phrase, e.g. "Service Unavailable". */
export function typeOf(status: number): string {
  return STATUS_CODES[status] ?? 'Error';
}
