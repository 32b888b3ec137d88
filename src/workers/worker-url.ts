/**
 * The one parser of worker URLs. Every entry point (`--worker-urls`, `--prefill`, `--decode`,
 * `POST /workers`, `PUT /workers/{id}`) goes through `parseWorkerUrl`, so a worker has exactly
 * one spelling (its registry key, its `x-smg-routed-worker-id`, its metric label) and nothing
 * that spelling carries can be a secret.
 *
 * What needs no configuration is checked here, synchronously: syntax, credentials, and literal
 * addresses that are never a worker (link-local, cloud metadata). What depends on the gateway
 * (its own addresses, `--worker-allow-cidr`) or on DNS is `target-guard.ts`.
 */
import { isIP } from 'node:net';
import { z } from 'zod';
import {
  forbiddenAddressMessage,
  isForbiddenAddress,
  isMetadataHostname,
} from './address-rules.js';

export interface WorkerUrl {
  /** The normalised URL: lower-case scheme and host, no default port, no trailing slash. */
  readonly url: string;
  /** Host without IPv6 brackets or a trailing dot: an IP literal or a DNS name. */
  readonly host: string;
  /** The TCP port requests go to (the scheme's default when the URL names none). */
  readonly port: number;
}

export type WorkerUrlResult = { ok: true; value: WorkerUrl } | { ok: false; reason: string };

const DEFAULT_PORTS: Readonly<Record<string, number>> = { 'http:': 80, 'https:': 443 };

/**
 * Trims, parses with WHATWG URL and normalises. WHATWG URL already lower-cases the scheme and
 * host, drops the scheme's default port and rewrites decimal, hex and octal IPv4 spellings
 * (`http://2852039166/` is `169.254.169.254`), so the address checks below see canonical hosts.
 */
export function parseWorkerUrl(raw: string): WorkerUrlResult {
  const text = raw.trim();
  const schemeRefusal = schemeReason(text);
  if (schemeRefusal) return { ok: false, reason: schemeRefusal };
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    return { ok: false, reason: 'must be an http:// or https:// URL with a host' };
  }
  const defaultPort = DEFAULT_PORTS[u.protocol];
  if (defaultPort === undefined || u.hostname === '') {
    return { ok: false, reason: 'must be an http:// or https:// URL with a host' };
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
  const portPart = u.port === '' ? '' : `:${u.port}`;
  const path = u.pathname.replace(/\/+$/, '');
  return { ok: true, value: { url: `${u.protocol}//${hostPart}${portPart}${path}`, host, port } };
}

/** Schemes SMG takes for workers that Switchyard has no client for yet. */
const NOT_YET_SUPPORTED: Readonly<Record<string, string>> = {
  grpc: 'gRPC workers (grpc://, grpcs://) are not supported yet; use the http:// or https:// URL of the worker',
  grpcs:
    'gRPC workers (grpc://, grpcs://) are not supported yet; use the http:// or https:// URL of the worker',
  ipc: 'ipc:// (ZMQ) workers are not supported yet; use the http:// or https:// URL of the worker',
};

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
  if (
    scheme !== lower &&
    (lower === 'http' || lower === 'https' || NOT_YET_SUPPORTED[lower] !== undefined)
  ) {
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
