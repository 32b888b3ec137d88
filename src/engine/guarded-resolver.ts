/**
 * Name resolution for gRPC channels through the gateway's connect-time guard. grpc-js resolves
 * a worker's name itself and re-resolves on every reconnect, outside the lookup that refuses an
 * HTTP worker's name once it resolves to a forbidden address (DNS rebinding to the metadata
 * service). A channel dialled as `switchyard-guarded:host:port` resolves through that lookup
 * instead, each time grpc-js asks, so a refused address fails the channel (UNAVAILABLE) before
 * anything is sent to it.
 */
import * as grpc from '@grpc/grpc-js';
import type { LookupFunction } from 'node:net';

export const GUARDED_SCHEME = 'switchyard-guarded';
/** The channel option carrying the guard's lookup (net.connect's `lookup` shape). */
export const GUARDED_LOOKUP_OPTION = 'switchyard.guarded_lookup';

type Listener = grpc.experimental.ResolverListener;
interface Target {
  path: string;
}

/** `host:port` → its parts; an IPv6 host comes in brackets. */
function splitHostPort(path: string): { host: string; port: number } | undefined {
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d+)$/.exec(path);
  if (m === null) return undefined;
  return { host: (m[1] ?? m[2]) as string, port: Number(m[3]) };
}

function unavailable(details: string): Parameters<Listener>[0] {
  return {
    ok: false,
    error: { code: grpc.status.UNAVAILABLE, details, metadata: new grpc.Metadata() },
  };
}

class GuardedResolver implements grpc.experimental.Resolver {
  readonly #target: { host: string; port: number } | undefined;
  readonly #path: string;
  readonly #lookup: LookupFunction | undefined;
  #resolving = false;
  #destroyed = false;

  constructor(
    target: Target,
    private readonly listener: Listener,
    options: grpc.ChannelOptions,
  ) {
    this.#path = target.path;
    this.#target = splitHostPort(target.path);
    this.#lookup = options[GUARDED_LOOKUP_OPTION] as LookupFunction | undefined;
  }

  updateResolution(): void {
    if (this.#resolving) return;
    this.#destroyed = false;
    const target = this.#target;
    const lookup = this.#lookup;
    if (target === undefined || lookup === undefined) {
      // Never synchronously from updateResolution (grpc-js's contract).
      setImmediate(() =>
        this.#report(unavailable(`cannot resolve ${this.#path}: no guarded lookup or no port`)),
      );
      return;
    }
    this.#resolving = true;
    lookup(target.host, { all: true }, (err, addresses) => {
      this.#resolving = false;
      if (err) {
        this.#report(unavailable(`worker address refused or not found: ${err.message}`));
        return;
      }
      const list = Array.isArray(addresses) ? addresses : [{ address: addresses }];
      this.#report({
        ok: true,
        value: list.map((a) => ({ addresses: [{ host: a.address, port: target.port }] })),
      });
    });
  }

  destroy(): void {
    this.#destroyed = true;
  }

  #report(result: Parameters<Listener>[0]): void {
    if (!this.#destroyed) this.listener(result, {}, null, '');
  }

  /** The name the channel presents (HTTP/2 `:authority`, TLS server name): the worker's own. */
  static getDefaultAuthority(target: Target): string {
    return target.path;
  }
}

grpc.experimental.registerResolver(GUARDED_SCHEME, GuardedResolver);
