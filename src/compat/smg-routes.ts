/**
 * SMG's HTTP routes (model_gateway/src/server.rs `build_app` at f8daa883) and what Switchyard does
 * with each. Rendered into docs/compat.md.
 */
export type RouteStatus = 'same' | 'differs' | 'absent';

export interface SmgRoute {
  readonly methods: string;
  readonly path: string;
  readonly status: RouteStatus;
  /** For `differs` and some `absent` rows: what a client sees here. */
  readonly note?: string;
}

const ABSENT = 'absent';

export const SMG_ROUTES: readonly SmgRoute[] = [
  { methods: 'POST', path: '/v1/chat/completions', status: 'same' },
  { methods: 'POST', path: '/v1/completions', status: 'same' },
  { methods: 'POST', path: '/generate', status: 'same' },
  {
    methods: 'POST',
    path: '/v1/embeddings',
    status: 'differs',
    note: "PD mode serves it with a prefill/decode pair; SMG's PD router answers 501.",
  },
  { methods: 'POST', path: '/v1/rerank', status: 'same' },
  { methods: 'POST', path: '/rerank', status: 'same' },
  {
    methods: 'POST',
    path: '/v1/responses',
    status: 'same',
    note: "Pass-through to the worker, like SMG's HTTP router.",
  },
  {
    methods: 'GET, DELETE',
    path: '/v1/responses/{response_id}',
    status: 'differs',
    note: "From the history store in every mode (SMG's HTTP router stores nothing, so its GET is a 404 there); a store failure is 503 `history_store_unavailable` (SMG: 500).",
  },
  {
    methods: 'POST',
    path: '/v1/responses/{response_id}/cancel',
    status: 'differs',
    note: "Answered from the store in every mode, as SMG's gRPC router (SMG's HTTP router sends it to every worker; its HTTP PD router answers 501).",
  },
  {
    methods: 'GET',
    path: '/v1/responses/{response_id}/input_items',
    status: 'differs',
    note: 'As GET `/v1/responses/{response_id}`; no pagination, as SMG.',
  },
  {
    methods: 'POST',
    path: '/v1/conversations',
    status: 'differs',
    note: '`items` in the body are added (SMG ignores them); a store failure is 503 (SMG: 500).',
  },
  {
    methods: 'GET, POST, DELETE',
    path: '/v1/conversations/{id}',
    status: 'differs',
    note: 'A store failure is 503 `history_store_unavailable` (SMG: 500).',
  },
  {
    methods: 'GET, POST',
    path: '/v1/conversations/{id}/items',
    status: 'differs',
    note: 'Adds all items or none; `has_more` exact, `limit` 1-100; a posted reasoning item keeps all its fields (docs/api.md, Conversations API).',
  },
  {
    methods: 'GET, DELETE',
    path: '/v1/conversations/{id}/items/{item_id}',
    status: 'differs',
    note: 'A store failure is 503 `history_store_unavailable` (SMG: 500).',
  },
  {
    methods: 'POST',
    path: '/v1/messages',
    status: 'differs',
    note: "HTTP workers: relayed (regular and PD) with `anthropic-version`/`anthropic-beta`; gRPC workers: served natively. Errors in Anthropic's shape, `x-api-key` accepted; `POST /v1/messages/count_tokens` exists too (SMG: 404).",
  },
  { methods: 'POST', path: '/v1/interactions', status: ABSENT },
  { methods: 'POST', path: '/v1/classify', status: ABSENT },
  {
    methods: 'POST',
    path: '/v1/tokenize',
    status: 'differs',
    note: 'Body errors are JSON envelopes (same statuses); at most 2048 prompts and 2 Mi characters.',
  },
  {
    methods: 'POST',
    path: '/v1/detokenize',
    status: 'differs',
    note: 'Token ids the tokenizer lacks are a 400 (SMG drops them); bounded as `/v1/tokenize`.',
  },
  { methods: 'POST', path: '/v1/realtime/sessions', status: ABSENT },
  { methods: 'POST', path: '/v1/realtime/client_secrets', status: ABSENT },
  { methods: 'POST', path: '/v1/realtime/transcription_sessions', status: ABSENT },
  { methods: 'GET (WebSocket)', path: '/v1/realtime', status: ABSENT },
  { methods: 'POST', path: '/v1/realtime/calls', status: ABSENT, note: 'No WebRTC.' },
  { methods: 'POST', path: '/v1/audio/transcriptions', status: ABSENT },
  { methods: 'GET', path: '/liveness', status: 'same' },
  { methods: 'GET', path: '/health', status: 'same' },
  {
    methods: 'GET',
    path: '/readiness',
    status: 'differs',
    note: 'Regular mode counts regular workers only (docs/api.md, Readiness).',
  },
  {
    methods: 'GET',
    path: '/health_generate',
    status: 'differs',
    note: 'Proxied to the first available worker of any type; SMG deep-probes a prefill/decode pair in PD mode.',
  },
  {
    methods: 'GET',
    path: '/get_server_info',
    status: 'differs',
    note: 'PD mode: first available worker of any type (503 `no_workers`); SMG uses the first prefill worker.',
  },
  { methods: 'GET', path: '/get_model_info', status: 'differs', note: 'As `/get_server_info`.' },
  { methods: 'GET', path: '/engine_metrics', status: ABSENT },
  {
    methods: 'GET',
    path: '/v1/models',
    status: 'differs',
    note: 'Registry list only; no bring-your-own-key fan-out.',
  },
  { methods: 'POST', path: '/flush_cache', status: 'same' },
  { methods: 'POST', path: '/start_profile', status: ABSENT },
  { methods: 'POST', path: '/stop_profile', status: ABSENT },
  { methods: 'GET', path: '/get_loads', status: 'same' },
  { methods: 'POST', path: '/parse/function_call', status: 'same' },
  {
    methods: 'POST',
    path: '/parse/reasoning',
    status: 'differs',
    note: 'Text before the start tag stays normal text (SMG folds it into the reasoning).',
  },
  { methods: 'POST, GET', path: '/wasm', status: ABSENT, note: 'No WASM plugins.' },
  { methods: 'DELETE', path: '/wasm/{module_uuid}', status: ABSENT, note: 'No WASM plugins.' },
  {
    methods: 'POST, GET',
    path: '/v1/tokenizers',
    status: 'differs',
    note: 'Local paths only (no hub download at run time), one attempt per load.',
  },
  { methods: 'GET, DELETE', path: '/v1/tokenizers/{id}', status: 'same' },
  { methods: 'GET', path: '/v1/tokenizers/{id}/status', status: 'same' },
  { methods: 'POST, GET', path: '/workers', status: 'same' },
  {
    methods: 'GET, PUT, PATCH, DELETE',
    path: '/workers/{worker_id}',
    status: 'differs',
    note: 'Metrics `path` label is `/workers/{id}`.',
  },
  { methods: 'GET', path: '/metrics (metrics port)', status: 'same' },
  {
    methods: 'GET',
    path: '/liveness, /readiness, /health (probe port)',
    status: 'same',
    note: '`--health-check-port`; answers `HEAD` like `GET` there, as SMG.',
  },
];
