/**
 * Who may call which route, as SMG separates them: the data plane (inference) takes `--api-key`;
 * the control plane (admin routes) takes `--control-plane-api-keys` when any is given, and
 * `--api-key` only otherwise. Keys are kept as SHA-256 digests and compared in constant time, so
 * neither their plaintext nor a timing signal stays in memory after startup.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { ControlPlaneKey, ControlPlaneRole } from '../config/control-plane-key.js';

/** `data`: inference (`--api-key`); `admin`: control plane (control-plane keys, else `--api-key`); `public`: probes. */
export type AuthClass = 'data' | 'admin' | 'public';

export type AuthOutcome = 'allowed' | 'unauthorized' | 'forbidden';

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/** Constant-time membership: every digest is compared, so the time does not say which matched. */
function findDigest<T extends { digest: Buffer }>(
  entries: readonly T[],
  candidate: Buffer,
): T | undefined {
  let found: T | undefined;
  for (const entry of entries) if (timingSafeEqual(entry.digest, candidate)) found = entry;
  return found;
}

/** SMG's control-plane bearer parse: the scheme in any case, then one or more spaces, then the token. */
function bearerToken(header: string | undefined): string | undefined {
  const match = header === undefined ? null : /^bearer +(.+)$/i.exec(header);
  return match?.[1];
}

/**
 * The credential of a request to an Anthropic route: its `Authorization`, else its `x-api-key`
 * as a bearer token. Anthropic's SDKs and Claude Code (with `ANTHROPIC_API_KEY`) send the key as
 * `x-api-key`; SMG reads only `Authorization` and answers them 401 (docs/compat.md).
 */
export function anthropicCredential(headers: IncomingHttpHeaders): string | undefined {
  if (headers.authorization !== undefined) return headers.authorization;
  const key = headers['x-api-key'];
  return typeof key === 'string' && key !== '' ? `Bearer ${key}` : undefined;
}

export class GatewayAuth {
  readonly #dataPlane: { digest: Buffer }[];
  readonly #controlPlane: { digest: Buffer; role: ControlPlaneRole }[];
  /** Every key of the gateway, bare: what must never be passed on to a worker. */
  readonly #ownKeys: { digest: Buffer }[];

  constructor(apiKey: string | undefined, controlPlaneKeys: readonly ControlPlaneKey[]) {
    this.#dataPlane = apiKey === undefined ? [] : [{ digest: digest(`Bearer ${apiKey}`) }];
    this.#controlPlane = controlPlaneKeys.map((k) => ({ digest: digest(k.key), role: k.role }));
    this.#ownKeys = [
      ...(apiKey === undefined ? [] : [{ digest: digest(apiKey) }]),
      ...this.#controlPlane,
    ];
  }

  /** Whether a request with this `Authorization` header may call a route of this class with this method. */
  check(authorization: string | undefined, auth: AuthClass, method: string): AuthOutcome {
    if (auth === 'public') return 'allowed';
    if (auth === 'admin' && this.#controlPlane.length > 0) {
      const token = bearerToken(authorization);
      const entry = token === undefined ? undefined : findDigest(this.#controlPlane, digest(token));
      if (!entry) return 'unauthorized';
      // SMG: `user` keys may read the control plane (GET, HEAD); changes need `admin`.
      return entry.role === 'admin' || method === 'GET' || method === 'HEAD'
        ? 'allowed'
        : 'forbidden';
    }
    if (this.#dataPlane.length === 0) return 'allowed';
    return authorization !== undefined && findDigest(this.#dataPlane, digest(authorization))
      ? 'allowed'
      : 'unauthorized';
  }

  /**
   * The client's `Authorization` as its own credential for a worker, or undefined when it must
   * not travel. With `--api-key` set every worker is sent a key (its own `api_key`, else
   * `--api-key`), so a client's header never reaches one and is not even looked at; without it,
   * a header carrying one of the gateway's own (control-plane) keys is dropped.
   */
  clientCredentialForWorkers(authorization: string | undefined): string | undefined {
    if (authorization === undefined || authorization === '' || this.#dataPlane.length > 0)
      return undefined;
    if (this.#ownKeys.length === 0) return authorization;
    const token = bearerToken(authorization) ?? authorization;
    return findDigest(this.#ownKeys, digest(token)) === undefined ? authorization : undefined;
  }
}
