/**
 * `--otlp-traces-endpoint` → where and how spans are exported. SMG takes `host:port` (default
 * `localhost:4317`) and exports OTLP over gRPC in plaintext (it prefixes `http://` for tonic), so
 * the same value does here; a URL names an OTLP/HTTP receiver instead:
 *
 * - `host:port` (SMG's form) → OTLP/gRPC, plaintext, to that address;
 * - `http(s)://host[:port]` → OTLP/HTTP (JSON bodies) to the URL plus `/v1/traces`;
 * - `http(s)://host[:port]/path` → OTLP/HTTP to that URL as it is (a collector behind a prefix).
 */

/** The OTLP/HTTP path of the traces signal (OTLP specification, "OTLP/HTTP Request"). */
export const OTLP_TRACES_PATH = '/v1/traces';

/** OTLP/gRPC's registered port: an OTLP/HTTP receiver listens on 4318 by convention. */
export const OTLP_GRPC_PORT = 4317;

const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
/** SMG's check: the text after the last `:` is a port from 1 to 65535 (u16, not 0). */
const PORT_SUFFIX = /:(\d{1,5})$/;

export type OtlpEndpoint =
  /** `target` is `host:port` as given (IPv6 in brackets), for a plaintext gRPC channel. */
  | { ok: true; protocol: 'grpc'; target: string }
  | { ok: true; protocol: 'http'; url: URL }
  | { ok: false; problem: string };

function parseHostPort(endpoint: string): OtlpEndpoint {
  const port = PORT_SUFFIX.exec(endpoint);
  if (port === null)
    return { ok: false, problem: 'expects host:port (port 1-65535) or an http(s):// URL' };
  const number = Number(port[1]);
  if (number < 1 || number > 65_535)
    return { ok: false, problem: 'expects a port from 1 to 65535' };
  let url: URL;
  try {
    url = new URL(`http://${endpoint}`);
  } catch {
    return { ok: false, problem: 'expects host:port or an http(s):// URL' };
  }
  // `user@host:port` or `host/path:port` parse as URLs but name no plain host:port.
  if (url.hostname === '' || /[@/?#\\\s]/.test(endpoint))
    return { ok: false, problem: 'expects host:port (a host, then a port)' };
  return { ok: true, protocol: 'grpc', target: endpoint };
}

function parseUrl(endpoint: string): OtlpEndpoint {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return { ok: false, problem: 'expects host:port or an http(s):// URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { ok: false, problem: 'expects host:port (OTLP/gRPC) or an http(s):// URL (OTLP/HTTP)' };
  if (url.hostname === '') return { ok: false, problem: 'expects a host' };
  // `new URL` drops a port equal to the scheme's and keeps 0, which nothing listens on.
  if (url.port === '0' || /^[a-z]+:\/\/[^/]*:0+(\/|$)/i.test(endpoint))
    return { ok: false, problem: 'expects a port from 1 to 65535' };
  if (url.pathname === '/' || url.pathname === '') url.pathname = OTLP_TRACES_PATH;
  return { ok: true, protocol: 'http', url };
}

/** Parses an endpoint as above; a problem names what is wrong, for a one-line usage error. */
export function parseOtlpEndpoint(endpoint: string): OtlpEndpoint {
  return SCHEME.test(endpoint) ? parseUrl(endpoint) : parseHostPort(endpoint);
}

/** The endpoint's problem, or undefined when it parses: the flag's validation rule. */
export function otlpEndpointProblem(endpoint: string): string | undefined {
  const parsed = parseOtlpEndpoint(endpoint);
  return parsed.ok ? undefined : parsed.problem;
}

/** The port an OTLP/HTTP URL connects to (the scheme's when the URL names none). */
export function otlpPort(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}
