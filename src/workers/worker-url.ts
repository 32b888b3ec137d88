/**
 * The one parser of worker URLs. Every entry point (`--worker-urls`, `--prefill`, `--decode`,
 * `POST /workers`, `PUT /workers/{id}`) goes through `parseWorkerUrl`, so a worker has exactly
 * one spelling (its registry key, its `x-smg-routed-worker-id`, its metric label) and nothing
 * that spelling carries can be a secret.
 *
 * What needs no configuration is checked here, synchronously: syntax, credentials, and literal
 * addresses that are never a worker (link-local, cloud metadata). What depends on the gateway
 * (its own addresses, `--worker-allow-cidr`) or on DNS is `target-guard.ts`.
 *
 * The scheme decides the connection mode, as SMG's `ConnectionMode::from_url`: `http://` and
 * `https://` are HTTP workers, `grpc://` and `grpcs://` gRPC workers (TLS for `grpcs://`).
 */
import { isIP } from 'node:net';
import { z } from 'zod';
import {
  forbiddenAddressMessage,
  isForbiddenAddress,
  isMetadataHostname,
} from './address-rules.js';

/** How the gateway talks to a worker: SMG's `ConnectionMode` (its `zmq` has no client here). */
export type ConnectionMode = 'http' | 'grpc';

export interface WorkerUrl {
  /**
   * The normalised URL: lower-case scheme and host, no trailing slash; an HTTP URL drops its
   * scheme's default port, a gRPC URL always names its port (`grpc://h` is `grpc://h:80`).
   */
  readonly url: string;
  /** Host without IPv6 brackets or a trailing dot: an IP literal or a DNS name. */
  readonly host: string;
  /** The TCP port requests go to (the scheme's default when the URL names none). */
  readonly port: number;
  readonly connectionMode: ConnectionMode;
}

export type WorkerUrlResult = { ok: true; value: WorkerUrl } | { ok: false; reason: string };

const DEFAULT_PORTS: Readonly<Record<string, number>> = { 'http:': 80, 'https:': 443 };

/**
 * SMG dials a gRPC worker by rewriting `grpc://` to `http://` and `grpcs://` to `https://`
 * (`channel.rs::normalize_grpc_endpoint`), so a gRPC URL without a port reaches 80 or 443.
 * Parsing it under the HTTP scheme also gets WHATWG's canonical host (lower case, IPv4 in
 * dotted form), which a non-special scheme like `grpc:` would leave as typed.
 */
const GRPC_AS_HTTP: Readonly<Record<string, string>> = { grpc: 'http', grpcs: 'https' };

const SCHEME_MESSAGE = 'must be an http://, https://, grpc:// or grpcs:// URL with a host';

/**
 * Trims, parses with WHATWG URL and normalises. WHATWG URL already lower-cases the scheme and
 * host, drops the scheme's default port and rewrites decimal, hex and octal IPv4 spellings
 * (`http://2852039166/` is `169.254.169.254`), so the address checks below see canonical hosts.
 */
export function parseWorkerUrl(raw: string): WorkerUrlResult {
  const text = raw.trim();
  const schemeRefusal = schemeReason(text);
  if (schemeRefusal) return { ok: false, reason: schemeRefusal };
  const grpcScheme = /^(grpcs?):\/\//.exec(text)?.[1];
  const asHttp =
    grpcScheme === undefined ? text : `${GRPC_AS_HTTP[grpcScheme]}${text.slice(grpcScheme.length)}`;
  let u: URL;
  try {
    u = new URL(asHttp);
  } catch {
    return { ok: false, reason: SCHEME_MESSAGE };
  }
  const defaultPort = DEFAULT_PORTS[u.protocol];
  if (defaultPort === undefined || u.hostname === '') {
    return { ok: false, reason: SCHEME_MESSAGE };
  }
  if (u.username !== '' || u.password !== '') {
    // The URL becomes the worker's id, header value, metric label and log field: no secrets in it.
    return {
      ok: false,
      reason:
        "must not contain credentials (user:password@); give the worker's key in the api_key field",
    };
  }
  if (u.search !== '' || u.hash !== '' || text.includes('?') || text.includes('#')) {
    return {
      ok: false,
      reason: 'must not have a query string or fragment (requests go to url + path)',
    };
  }
  const host = stripBrackets(u.hostname).replace(/\.$/, '');
  const refusal = forbiddenHostReason(host);
  if (refusal) return { ok: false, reason: refusal };
  const port = u.port === '' ? defaultPort : Number(u.port);
  const hostPart = isIP(host) === 6 ? `[${host}]` : host;
  const path = u.pathname.replace(/\/+$/, '');
  if (grpcScheme !== undefined) {
    // gRPC calls go to `/<package>.<Service>/<Rpc>` on the channel: a path has nowhere to go.
    if (path !== '') {
      return {
        ok: false,
        reason: 'a gRPC worker URL must not have a path (grpc://host:port names the engine)',
      };
    }
    return {
      ok: true,
      value: { url: `${grpcScheme}://${hostPart}:${port}`, host, port, connectionMode: 'grpc' },
    };
  }
  const portPart = u.port === '' ? '' : `:${u.port}`;
  return {
    ok: true,
    value: {
      url: `${u.protocol}//${hostPart}${portPart}${path}`,
      host,
      port,
      connectionMode: 'http',
    },
  };
}

/** The connection mode a worker URL's scheme names (SMG `ConnectionMode::from_url`). */
export function connectionModeOf(url: string): ConnectionMode {
  return url.startsWith('grpc://') || url.startsWith('grpcs://') ? 'grpc' : 'http';
}

/** Schemes SMG takes for workers that Switchyard has no client for yet. */
const NOT_YET_SUPPORTED: Readonly<Record<string, string>> = {
  ipc: 'ipc:// (ZMQ) workers are not supported yet; use the http:// or grpc:// URL of the worker',
};

/** Every scheme SMG allows (config/validation.rs `ALLOWED_SCHEMES`), judged for its case. */
const SMG_SCHEMES: ReadonlySet<string> = new Set(['http', 'https', 'grpc', 'grpcs', 'ipc']);

/**
 * Judges the scheme as typed, before WHATWG URL lower-cases it. SMG allows only a lower-case
 * scheme (config/validation.rs `validate_worker_url`): its registry keys a worker by the URL as
 * given, so `HTTP://h` and `http://h` would be two workers there.
 */
function schemeReason(text: string): string | undefined {
  const match = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(text);
  if (!match) return undefined;
  const scheme = match[1] ?? '';
  const lower = scheme.toLowerCase();
  if (NOT_YET_SUPPORTED[lower] !== undefined && scheme === lower) return NOT_YET_SUPPORTED[lower];
  if (scheme !== lower && SMG_SCHEMES.has(lower)) {
    return `the scheme must be lower-case (${lower}://), as SMG requires`;
  }
  return undefined;
}

/** Why a host is never a worker, judged from its literal spelling alone. */
export function forbiddenHostReason(host: string): string | undefined {
  if (isMetadataHostname(host)) return `must not point at a cloud metadata service (${host})`;
  return isIP(host) !== 0 && isForbiddenAddress(host) ? forbiddenAddressMessage(host) : undefined;
}

/** A zod field for a worker URL: the normalised URL, or the parser's reason as the issue. */
export const workerUrlSchema = z.string().transform((s, ctx) => {
  const parsed = parseWorkerUrl(s);
  if (parsed.ok) return parsed.value.url;
  ctx.addIssue({ code: 'custom', message: parsed.reason });
  return z.NEVER;
});

function stripBrackets(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/** Replaces `user:password@` in any URL inside `text`, for messages that echo user input. */
export function redactUrlCredentials(text: string): string {
  return text.replace(/([a-z][a-z0-9+.-]*:\/\/)[^/?#\s"'@]*@/gi, '$1***@');
}
