/**
 * `--otlp-traces-endpoint` → the URL spans are POSTed to. SMG takes `host:port` and exports
 * OTLP over gRPC (default `localhost:4317`); Switchyard exports OTLP over HTTP with JSON bodies
 * (OpenTelemetry JS), so the same value names an HTTP receiver here:
 *
 * - `host:port` (SMG's form) → `http://host:port/v1/traces`;
 * - `http(s)://host[:port]` → the same with `/v1/traces` appended (the OTLP/HTTP signal path);
 * - `http(s)://host[:port]/path` → that URL as it is (a collector behind a path prefix).
 */

/** The OTLP/HTTP path of the traces signal (OTLP specification, "OTLP/HTTP Request"). */
export const OTLP_TRACES_PATH = '/v1/traces';

/** OTLP/gRPC's registered port: an OTLP/HTTP receiver listens on 4318 by convention. */
export const OTLP_GRPC_PORT = 4317;

const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

export type OtlpEndpoint = { ok: true; url: URL } | { ok: false; problem: string };

/** Parses an endpoint as above; a problem names what is wrong, for a one-line usage error. */
export function parseOtlpEndpoint(endpoint: string): OtlpEndpoint {
  const bare = !SCHEME.test(endpoint);
  let url: URL;
  try {
    url = new URL(bare ? `http://${endpoint}` : endpoint);
  } catch {
    return { ok: false, problem: 'expects host:port or an http(s):// URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { ok: false, problem: 'expects an http:// or https:// URL (OTLP/HTTP)' };
  if (url.hostname === '') return { ok: false, problem: 'expects a host' };
  // SMG requires the port of its host:port form; `new URL` drops a port equal to the scheme's.
  if (bare && !/:\d+(\/|$)/.test(endpoint))
    return { ok: false, problem: 'expects host:port (port 1-65535) or an http(s):// URL' };
  if (url.port === '0' || /:0+(\/|$)/.test(endpoint))
    return { ok: false, problem: 'expects a port from 1 to 65535' };
  if (url.pathname === '/' || url.pathname === '') url.pathname = OTLP_TRACES_PATH;
  return { ok: true, url };
}

/** The endpoint's problem, or undefined when it parses: the flag's validation rule. */
export function otlpEndpointProblem(endpoint: string): string | undefined {
  const parsed = parseOtlpEndpoint(endpoint);
  return parsed.ok ? undefined : parsed.problem;
}

/** The port the export URL connects to (the scheme's when the URL names none). */
export function otlpPort(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}
