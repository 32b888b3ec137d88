/**
 * The worker address rules applied again each time a connection to a worker is opened. A host
 * name that resolved to a worker when it was registered may later resolve to the cloud metadata
 * service (DNS rebinding); checking only at registration would then send it inference traffic,
 * probes and load polls. `lookup` takes the place of dns.lookup in net.connect (undici passes its
 * `connect` options through to it), so a refused address fails the connection before any packet
 * is sent to it. Pools keep connections alive, so this runs per connection, not per request.
 * IP-literal hosts never reach a lookup: they were judged at registration and cannot change.
 */
import type { LookupAddress, LookupOptions } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { Agent } from 'undici';
import type { GatewayConfig } from '../config/schema.js';
import type { Logger } from '../observability/logger.js';
import type { Clock } from '@switchyard/kit';
import { addressRefusal, CidrSet } from './address-rules.js';
import type { HostLookup } from './target-guard.js';

/** A refused connection is logged at most once per host and address in this window. */
export const REFUSAL_LOG_INTERVAL_MS = 60_000;
/** Bounds the log limiter's memory when a name keeps resolving to new addresses. */
const MAX_TRACKED_REFUSALS = 1024;

/** The error a connection to a refused address fails with; undici reports it as a connect error. */
export class WorkerAddressRefusedError extends Error {
  override name = 'WorkerAddressRefusedError';
  readonly code = 'ERR_WORKER_ADDRESS_REFUSED';

  constructor(
    readonly host: string,
    readonly address: string,
    readonly reason: string,
  ) {
    super(`connection to worker host ${host} refused: its address ${reason}`);
  }
}

type ResolveAll = (host: string, options: LookupOptions) => Promise<LookupAddress[]>;

const systemResolveAll: ResolveAll = (host, options) =>
  dnsLookup(host, { family: options.family ?? 0, hints: options.hints ?? 0, all: true });

/** An injected `HostLookup` (tests) answers bare addresses; net wants each with its family. */
function resolveAllWith(lookup: HostLookup): ResolveAll {
  return async (host, options) => {
    const wanted = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
    return (await lookup(host))
      .map((address) => ({ address, family: isIP(address) }))
      .filter((a) => a.family !== 0 && (!wanted || a.family === wanted));
  };
}

export interface ConnectGuardOptions {
  /** `--worker-allow-cidr`: when non-empty, every address connected to must be inside one range. */
  allowCidrs: readonly string[];
  /** Resolves names (tests inject one); defaults to dns.lookup with the options net.connect gives. */
  lookup?: HostLookup | undefined;
  logger: Logger;
  clock: Clock;
}

interface LoggedRefusal {
  at: number;
  suppressed: number;
}

/** `--worker-allow-cidr`, judged again at every connection to a worker. */
export function connectGuardFromConfig(
  c: Pick<GatewayConfig, 'workerAllowCidr'>,
  deps: Omit<ConnectGuardOptions, 'allowCidrs'>,
): WorkerConnectGuard {
  return new WorkerConnectGuard({ allowCidrs: c.workerAllowCidr, ...deps });
}

/**
 * The Agent for calls to workers outside the pools (probes, load polls, fan-outs), behind the
 * same connect-time guard. 10 s to connect, as the pools (upstream/pools.ts).
 */
export function guardedWorkerAgent(guard: WorkerConnectGuard): Agent {
  return new Agent({ connect: { lookup: guard.lookup, timeout: 10_000 } });
}

export class WorkerConnectGuard {
  readonly #allow: CidrSet | undefined;
  readonly #resolveAll: ResolveAll;
  readonly #logger: Logger;
  readonly #clock: Clock;
  /** Last log time per `host address`, oldest first (a Map keeps insertion order). */
  readonly #logged = new Map<string, LoggedRefusal>();

  constructor(opts: ConnectGuardOptions) {
    this.#allow = opts.allowCidrs.length > 0 ? new CidrSet(opts.allowCidrs) : undefined;
    this.#resolveAll = opts.lookup ? resolveAllWith(opts.lookup) : systemResolveAll;
    this.#logger = opts.logger;
    this.#clock = opts.clock;
  }

  /**
   * net.connect's `lookup`: resolves as dns.lookup does and fails when any resolved address is
   * refused, as registration does, so a name cannot hide a metadata address behind a good one.
   */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    this.#resolveAll(hostname, options).then(
      (addresses) => {
        const refused = this.#firstRefusal(hostname, addresses);
        if (refused) {
          this.#report(refused);
          callback(refused, '');
          return;
        }
        const first = addresses[0];
        if (!first) {
          callback(notFound(hostname), '');
          return;
        }
        if (options.all === true) callback(null, addresses);
        else callback(null, first.address, first.family);
      },
      (err: unknown) => callback(err instanceof Error ? err : new Error(String(err)), ''),
    );
  };

  #firstRefusal(
    host: string,
    addresses: readonly LookupAddress[],
  ): WorkerAddressRefusedError | undefined {
    for (const { address } of addresses) {
      const reason = addressRefusal(address, this.#allow, host);
      if (reason !== undefined) return new WorkerAddressRefusedError(host, address, reason);
    }
    return undefined;
  }

  /** Every request to a refused worker fails the same way: say so once a window, with a count. */
  #report(refused: WorkerAddressRefusedError): void {
    const key = `${refused.host} ${refused.address}`;
    const now = this.#clock.now();
    const last = this.#logged.get(key);
    if (last && now - last.at < REFUSAL_LOG_INTERVAL_MS) {
      last.suppressed += 1;
      return;
    }
    this.#logger.warn(
      {
        host: refused.host,
        address: refused.address,
        reason: refused.reason,
        suppressed: last?.suppressed ?? 0,
      },
      'worker connection refused: the worker host resolves to an address that is not allowed',
    );
    this.#logged.delete(key);
    this.#logged.set(key, { at: now, suppressed: 0 });
    if (this.#logged.size > MAX_TRACKED_REFUSALS) {
      const oldest = this.#logged.keys().next();
      if (!oldest.done) this.#logged.delete(oldest.value);
    }
  }
}

function notFound(host: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), {
    code: 'ENOTFOUND',
    hostname: host,
  });
}
