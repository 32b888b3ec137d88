/** Behaviour Switchyard chose to differ on, each documented in docs/; rendered into docs/compat.md. */
export interface Deviation {
  readonly title: string;
  readonly text: string;
  /** The docs page (and section) that documents it. */
  readonly doc: string;
}

export const DELIBERATE_DEVIATIONS: readonly Deviation[] = [
  {
    title: 'PD decode admission is on by default',
    text: "A PD request waits up to `--pd-admission-wait-secs` (30) for room in a decode worker's running window, then gets 503 `no_available_workers`; `--disable-pd-decode-admission` turns the gate off. The SMG snapshot this page is checked against (f8daa883) has no such gate.",
    doc: 'docs/admission.md, docs/configuration.md (Prefill/decode disaggregation and IGW)',
  },
  {
    title: 'IGW PD weight defaults to `paired`',
    text: "Under `--enable-igw` the PD router's weight is 2·min(P, D) (`--pd-weight-mode paired`); SMG's formula P + D is `--pd-weight-mode sum`.",
    doc: 'docs/rollout.md, docs/configuration.md',
  },
  {
    title: '`--enable-igw` uses `--prefill`/`--decode` without `--pd-disaggregation`',
    text: 'SMG drops the prefill and decode lists unless `--pd-disaggregation` is given; Switchyard serves them as the PD router of the IGW.',
    doc: 'docs/configuration.md (Serving modes)',
  },
  {
    title: '`--port 0` and `--prometheus-port 0` bind an ephemeral port',
    text: 'SMG refuses a 0 port at startup (config/validation.rs `validate_server_settings`, `validate_metrics`); Switchyard binds a free port and logs it, which its tests and `switchyard demo` rely on.',
    doc: 'docs/configuration.md (Validation)',
  },
  {
    title: 'ipc workers are refused at startup',
    text: 'SMG takes `ipc://` (ZMQ) worker URLs; Switchyard has no ZMQ client yet and refuses them with one line saying so.',
    doc: 'docs/configuration.md (Validation)',
  },
  {
    title: '`tokenizer_not_found` is a 503 with Retry-After, not retried',
    text: 'SMG answers a gRPC request whose model has no tokenizer yet with a 500, which its retry loop retries while the tokenizer loads; Switchyard answers 503 with `Retry-After: 1` at once (readiness already reports the model not ready).',
    doc: 'docs/api.md (gRPC-mode errors), docs/grpc.md (Requests)',
  },
  {
    title: 'A gRPC prompt longer than the model allows is refused by the gateway',
    text: "SMG sends it and lets the engine refuse it; Switchyard answers `400 context_length_exceeded` when the prompt's token count is over the worker's `max_req_input_len` (else `max_context_length`) label, so the engine never sees it.",
    doc: 'docs/api.md (gRPC-mode errors), docs/grpc.md (Requests)',
  },
  {
    title: "A gRPC stream that fails mid-way counts against the worker's circuit breaker",
    text: 'SMG records a gRPC outcome only when `Generate` starts, so a worker whose streams keep dying keeps its closed circuit; Switchyard records the mid-stream failure, as it does for HTTP streams.',
    doc: 'docs/grpc.md (Errors)',
  },
  {
    title: 'HTTP and gRPC workers of one model share its traffic',
    text: "SMG's router is per connection mode; Switchyard sends a model's requests to its HTTP and gRPC workers in proportion to the available workers of each kind, so a model moves between the two by adding and removing workers. PD pairs are split the same way, by the pairs each mode can form (a pair never mixes modes).",
    doc: 'docs/grpc.md, docs/pd.md (PD over gRPC)',
  },
  {
    title: "A template's thinking toggle alone does not make a reply reasoning",
    text: 'SMG marks reasoning as started whenever the chat template has a thinking toggle that is on, so a Qwen3 reply without `<think>` tags becomes `reasoning_content`; Switchyard starts in reasoning only when the rendered prompt ends inside an open block, or for parsers whose models never print the opening tag (`deepseek_r1`, ...).',
    doc: 'docs/parsers.md (Request fields)',
  },
  {
    title: 'Every character outside a tool call stays content',
    text: "SMG's whole-text tool parsers keep only the text before the first call for some formats and drop a malformed block when another call parses; Switchyard keeps text before, between and after calls and leaves malformed markup as content (counted in `smg_tool_call_parse_failures_total`), so streamed and whole answers agree.",
    doc: "docs/parsers.md (Differences from SMG's parsers)",
  },
  {
    title: 'A forced tool choice with another constraint is a 400',
    text: "`tool_choice` `required` or a named function together with `response_format`, `regex`, `ebnf` or `json_schema` is answered `400 invalid_request_parameters`; SMG drops the tool constraint with a warning and sends the other, so the client's choice is silently not enforced.",
    doc: 'docs/parsers.md (Request fields)',
  },
  {
    title: 'Unknown parser names stop startup',
    text: 'SMG logs a warning for an unknown `--tool-call-parser` / `--reasoning-parser` and falls back to the model mapping; Switchyard exits 2 listing the names, and refuses SMG names whose formats it does not build.',
    doc: 'docs/configuration.md, docs/parsers.md',
  },
  {
    title: 'A gRPC PD pair fails fast on its first failed leg',
    text: "SMG's snapshot sends both legs with `tokio::join!` and answers only when both have answered, so a failed prefill waits for its decode's deadline; Switchyard answers the first failure (`prefill_worker_failed_to_start` / `decode_worker_failed_to_start`) at once and aborts the other leg.",
    doc: 'docs/pd.md (PD over gRPC)',
  },
  {
    title: 'gRPC vLLM fan-out sends no prefill probe and defers no abort',
    text: "For `n > 1` under NIXL or no connector, SMG's snapshot still sends the one-token prefill probe and defers the decode's abort until its first item; Switchyard sends the decode alone and aborts it at once when the client leaves (there is no handoff to protect).",
    doc: 'docs/pd.md (PD over gRPC)',
  },
  {
    title: 'A gRPC worker URL has no path and always names its port',
    text: 'SMG dials `grpc://h` as `http://h` (port 80) and ignores a path; Switchyard shows and keys the worker as `grpc://h:80` and refuses a path, which a gRPC channel cannot use.',
    doc: 'docs/grpc.md (Worker URLs)',
  },
  {
    title: '`--health-check-interval-secs 0` probes every second',
    text: 'SMG re-probes a worker as soon as its previous probe ends; Switchyard probes once a second, so a worker that refuses connections is not flooded.',
    doc: 'docs/configuration.md (Health checks and worker lifecycle)',
  },
  {
    title: 'A `--health-check-endpoint` without `/` gets one',
    text: 'SMG appends the path to the worker URL as typed, so `health` makes every probe fail; Switchyard probes `/health` and logs a warning.',
    doc: 'docs/configuration.md (Health checks and worker lifecycle)',
  },
  {
    title: 'Errors are JSON envelopes',
    text: 'Every gateway error, 401/404/405 included, has a JSON body and `X-SMG-Error-Code` (SMG answers bare 401/404/405).',
    doc: 'docs/api.md (Routes, Errors)',
  },
  {
    title: 'The token routes answer body errors in the JSON envelope',
    text: 'SMG reads the bodies of `/v1/tokenize`, `/v1/detokenize` and `POST /v1/tokenizers` with axum\'s `Json` extractor, whose 415 (no JSON `Content-Type`), 400 (not JSON) and 422 (wrong shape) are plain text; Switchyard keeps those statuses with the envelope and the codes `unsupported_media_type`, `invalid_json` and `unprocessable_entity`. What the handlers refuse keeps SMG\'s `{"error":{"message","type"}}` body.',
    doc: 'docs/api.md (Token and tokenizer routes)',
  },
  {
    title: '`/v1/detokenize` refuses token ids the tokenizer lacks, and token requests are bounded',
    text: "SMG's decode drops unknown ids and answers 200; Switchyard answers `400 invalid_request_parameters` naming the id, as it refuses such ids in a gRPC prompt. A tokenize or detokenize request holds at most 2048 prompts or sequences and 2 Mi characters or token ids (`400 invalid_body`); SMG bounds only the body size, while Switchyard encodes on its event loop.",
    doc: 'docs/api.md (Token and tokenizer routes)',
  },
  {
    title: '`POST /v1/tokenizers` loads local paths only, once',
    text: 'SMG downloads a Hugging Face id and retries a failed load 3 times, 2 s apart; Switchyard never downloads at run time, so a source that is not a local path fails its job at once saying so, and a load is tried once. Loads run one at a time (building a tokenizer blocks the event loop for most of a second).',
    doc: 'docs/api.md (Token and tokenizer routes)',
  },
  {
    title: "The Messages routes answer errors in Anthropic's shape and accept `x-api-key`",
    text: 'SMG answers `/v1/messages` errors with its OpenAI-style body, which the Anthropic SDKs cannot read, and reads only `Authorization: Bearer`, so Claude Code started with `ANTHROPIC_API_KEY` (which sends `x-api-key`) gets a bare 401. Switchyard answers `{"type":"error","error":{"type","message"}}` (the type by status, as Anthropic\'s API names them; the code stays in `X-SMG-Error-Code`), ends a broken stream with an `event: error`, and takes `x-api-key` as the client\'s credential on these routes.',
    doc: 'docs/api.md (Anthropic Messages API)',
  },
  {
    title: '`anthropic-version` and `anthropic-beta` reach the worker',
    text: "SMG forwards only its allow-listed headers, so an engine's Messages endpoint never sees the client's API version or beta flags, which Anthropic's gateway requirements say a gateway must pass on. Switchyard forwards both (only Anthropic clients send them).",
    doc: 'docs/api.md (Anthropic Messages API)',
  },
  {
    title: '`POST /v1/messages/count_tokens` is served',
    text: "SMG has no such route (404), and Claude Code calls it. Switchyard counts a gRPC model's prompt with the gateway's tokenizer and template, exactly as `/v1/messages` would encode it, and relays an HTTP model's request to one of its workers (SGLang and vLLM serve it).",
    doc: 'docs/api.md (Anthropic Messages API)',
  },
  {
    title: "gRPC Messages keep a turn's block order and honour `disable_parallel_tool_use`",
    text: "SMG renders a user turn's text before its `tool_result`s, which puts a user turn between a call and its result (Anthropic requires the results first, and Claude Code sends text after them); Switchyard keeps the order sent. SMG ignores `disable_parallel_tool_use`; Switchyard keeps one call per answer. A `tool_result` that answers no `tool_use` of the assistant turn before it is a 400, as Anthropic's API refuses it, and `message_start` carries the prompt's real `input_tokens` (SMG: 0).",
    doc: 'docs/grpc.md (Anthropic Messages)',
  },
  {
    title: 'gRPC chat renders a tool-call-only assistant turn with content ""',
    text: "An agent loop sends its assistant turn back as `content: null`. SMG hands the template null, and templates that test content with `in` or `+` (Qwen3's `'</think>' in message.content`) fail on it, so every tool loop's second request fails; Switchyard hands the template \"\", as vLLM and SGLang do.",
    doc: 'docs/grpc.md (Chat messages)',
  },
  {
    title: 'PD leg errors keep the upstream status',
    text: 'A prefill or decode 429/408/504 is relayed as such with a leg-specific code, where SMG answers 500.',
    doc: 'docs/api.md (PD leg errors)',
  },
  {
    title: "A worker with its own key never receives the client's `Authorization`",
    text: "A worker gets its own `api_key`, else `--api-key`; the client's header reaches a worker only when neither exists and it is not one of the gateway's keys. In SMG the client's header wins, which hands the gateway's own key to every worker.",
    doc: 'docs/configuration.md (Authentication), docs/security.md',
  },
  {
    title: 'Malformed `--control-plane-api-keys` entries stop startup',
    text: 'SMG logs a warning and skips a malformed entry; Switchyard exits 2 naming the entry (never the key), and also refuses a control-plane key equal to `--api-key`, which would open the admin routes to every inference client.',
    doc: 'docs/configuration.md (Authentication)',
  },
  {
    title: 'A `--cors-allowed-origins` entry no browser sends as `Origin` stops startup',
    text: 'SMG compares the `Origin` header with each entry byte for byte and keeps an entry that can never equal one (`https://app.example.com/`, upper case, a default port, `a,b`), so the origin the operator meant is silently refused; Switchyard exits 2 naming the spelling a browser sends. `*` stops both (SMG panics in tower-http).',
    doc: 'docs/configuration.md (Request handling, Validation), docs/security.md (CORS)',
  },
  {
    title: 'CORS covers unknown paths too',
    text: "SMG adds its fallback after its layers, so the 404 for an unknown path carries no CORS headers and an `OPTIONS` there is that 404; a page then sees a network error instead of the 404. Switchyard's CORS wraps every path of the main port.",
    doc: 'docs/security.md (CORS)',
  },
  {
    title: 'Request bodies are typed and bounded a little differently',
    text: 'Chat `n` may go up to 128 (SMG: 10), a completions `prompt` may be token ids and `/generate` `text` a list (SGLang batches), and a request without `model` or `prompt` is forwarded; bodies nest at most 128 levels (SMG refuses at 128).',
    doc: 'docs/api.md (Request limits and validation)',
  },
  {
    title: 'The concurrency permit is taken after the body is read',
    text: 'SMG admits before reading the body; Switchyard reads it first (under `--request-body-timeout-secs`), so clients that stall their bodies cannot hold every `--max-concurrent-requests` permit.',
    doc: 'docs/reliability.md (Gateway concurrency limit)',
  },
  {
    title: 'Worker `x-smg-*` response headers are not relayed',
    text: "Those headers are the gateway's statements about its own answer (error code, routed worker), so a worker's copy is dropped and never counted as the gateway's error code.",
    doc: 'docs/api.md (Response headers), docs/security.md',
  },
  {
    title: 'PD `/health_generate` probes the first available pair',
    text: 'SMG lets the leg policies choose the pair; Switchyard takes the first available prefill and decode worker, so a probe never moves round-robin or cache state. In IGW mode the probe and the info routes keep the first-available-worker behaviour.',
    doc: 'docs/api.md (Proxied GET routes)',
  },
  {
    title: '`--health-check-port 0` binds an ephemeral port',
    text: 'As `--port 0` here; SMG refuses 0.',
    doc: 'docs/configuration.md, docs/operations.md',
  },
  {
    title: 'A discovery selector entry that is not a `key=value` label pair stops startup',
    text: 'SMG drops an entry without `=` from `--selector`, `--prefill-selector` and `--decode-selector`, which widens the selection to pods the operator did not name, and sends the API server keys or values it refuses; Switchyard exits 2 naming the entry.',
    doc: 'docs/service-discovery.md (Flags)',
  },
  {
    title: 'Discovered pods are HTTP workers',
    text: "SMG registers a pod's `{podIP}:{port}` without a scheme and probes it over HTTP and gRPC; Switchyard registers `http://{podIP}:{port}`, so a gRPC engine is found only through `--worker-urls` or `POST /workers`.",
    doc: 'docs/service-discovery.md (Pods to workers)',
  },
  {
    title: 'A discovered pod that loses readiness has its workers drained',
    text: "SMG's reconciler keeps an unready pod's workers and leaves readiness flaps to its health checker; Switchyard drains them as a terminating pod's (no new requests, in-flight ones finish, gone after `--drain-settle-secs`) once the pod is no longer Running and Ready, and registers them anew when it is ready again. Kubernetes' own readiness signal (the engine loading a model, overloaded, failing its probe) then stops new traffic at once, as a Service's endpoints do, instead of waiting for the gateway's health checker to reach its failure threshold.",
    doc: 'docs/service-discovery.md (Lifecycle)',
  },
  {
    title: '`--service-discovery` without a Kubernetes configuration stops startup',
    text: 'SMG logs an error and runs without discovery when it finds no kubeconfig and no service account; Switchyard exits 1 saying so, as a command line asking for a feature it cannot have fails loudly here.',
    doc: 'docs/service-discovery.md (Where the API server comes from)',
  },
  {
    title: 'Trace spans are named differently, and a URL endpoint means OTLP/HTTP',
    text: "With `--enable-trace`, SMG's own form of `--otlp-traces-endpoint`, `host:port` (default `localhost:4317`), works as in SMG: OTLP/gRPC in plaintext. SMG also sends OTLP/gRPC to an `http://host:port` value; Switchyard takes an `http(s)://` URL as an OTLP/HTTP receiver (JSON bodies, `/v1/traces` appended when the URL has no path), so such a value needs the collector's OTLP/HTTP port (usually 4318; startup warns when it is 4317). The spans are Switchyard's own (a server span per request, an attempt span per try, a span per PD leg), not SMG's `http_request` and `grpc_execute`; and the client's `traceparent`/`tracestate` reach gRPC engines as metadata even when tracing is off.",
    doc: 'docs/observability.md (Traces)',
  },
  {
    title: 'The memory history store is bounded',
    text: "SMG's `--history-backend memory` keeps every stored response and conversation until the process ends; Switchyard keeps at most `--history-memory-max-responses` (10000) responses and `--history-memory-max-conversations` (10000) conversations, the oldest dropped first. A dropped conversation takes its links and the items no other conversation links, and a `previous_response_id` chain ends at a dropped response.",
    doc: 'docs/storage.md (Memory backend and its bounds)',
  },
  {
    title: '`--redis-retention-days 0` is refused',
    text: 'SMG takes it and sets `EXPIRE 0` on every record it writes, which deletes the record at once: a store that keeps nothing while every write succeeds. Switchyard exits 2 with `--history-backend redis` and a retention of 0, pointing to a number of days, a negative value (no expiry) or `--history-backend none`.',
    doc: 'docs/storage.md (Redis)',
  },
  {
    title: '`/readiness` reports the history store',
    text: 'Every `/readiness` body also carries `history_store: {backend, reachable}`. An unreachable Redis or Postgres does not change the status: the requests that need the store answer 503 `history_store_unavailable`, and the replica keeps serving the traffic that never touches it.',
    doc: 'docs/storage.md (Readiness)',
  },
];
