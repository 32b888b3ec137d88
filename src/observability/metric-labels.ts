/**
 * SMG's values for the router-level metric labels, so dashboards and alerts written against SMG
 * find Switchyard's series: the constants of SMG's `metrics_labels` module
 * (model_gateway/src/observability/metrics.rs) and its route and status mappings
 * (model_gateway/src/routers/grpc/utils/metrics.rs, shared by SMG's HTTP routers).
 */

/** `router_type` of the core router families: both HTTP routers are SMG's `http`. */
export const ROUTER_TYPE_HTTP = 'http';

/** `backend_type`: the router's kind of backend, never the worker's engine runtime. */
export type BackendType = 'regular' | 'pd';

export const CONNECTION_HTTP = 'http';

/**
 * SMG's `route_to_endpoint`: the route path, not the body shape, names the endpoint. SMG maps
 * `/v1/embeddings` and the unversioned `/rerank` to `other`, so they do too here.
 */
const ENDPOINT_BY_ROUTE: ReadonlyMap<string, string> = new Map([
  ['/v1/chat/completions', 'chat'],
  ['/generate', 'generate'],
  ['/v1/completions', 'completions'],
  ['/v1/rerank', 'rerank'],
  ['/v1/responses', 'responses'],
  ['/v1/messages', 'messages'],
  ['/v1/audio/transcriptions', 'audio_transcriptions'],
]);

export function endpointLabel(route: string): string {
  return ENDPOINT_BY_ROUTE.get(route) ?? 'other';
}

/** SMG's `error_type_from_status`: the class of an error response's status. */
export function errorTypeForStatus(status: number): string {
  if (status === 400) return 'validation_error';
  if (status === 404) return 'no_workers';
  if (status === 408 || status === 504) return 'timeout';
  if (status >= 500 && status <= 599) return 'backend_error';
  return 'internal_error';
}
