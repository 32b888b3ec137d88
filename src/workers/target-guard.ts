/**
 * Decides whether a worker URL may be registered, with what `parseWorkerUrl` cannot know alone:
 * the addresses a host name resolves to, the gateway's own listeners (a gateway registered as
 * its own worker turns one request into thousands), and `--worker-allow-cidr`. Checked when a
 * registration is asked for and again by the registration job before it contacts the worker.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import type { GatewayConfig } from '../config/schema.js';
import { addressRefusal, CidrSet, familyOf } from './address-rules.js';
import { parseWorkerUrl } from './worker-url.js';

/** One socket the gateway listens on, with the port it actually bound (tests listen on 0). */
export interface OwnListener {
  readonly name: 'listen' | 'metrics' | 'health-check';
  readonly host: string;
  readonly port: number;
}

export type TargetCheck =
  | { kind: 'ok' }
  | { kind: 'refused'; reason: string }
  /** The host name does not resolve yet: nothing to judge; the registration job checks again. */
  | { kind: 'unresolved' };

export type HostLookup = (host: string) => Promise<string[]>;

const systemLookup: HostLookup = async (host) =>
  (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** Loopback and the unspecified addresses: a connection to any of them reaches this host. */
const ALWAYS_LOCAL = new BlockList();
ALWAYS_LOCAL.addSubnet('127.0.0.0', 8, 'ipv4');
ALWAYS_LOCAL.addAddress('::1', 'ipv6');
ALWAYS_LOCAL.addAddress('0.0.0.0', 'ipv4');
ALWAYS_LOCAL.addAddress('::', 'ipv6');

const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]']);

export interface TargetGuardOptions {
  /** `--worker-allow-cidr`: when non-empty, every worker address must be inside one range. */
  allowCidrs: readonly string[];
  lookup?: HostLookup | undefined;
  /** This host's interface addresses (defaults to `os.networkInterfaces()`). */
  localAddresses?: () => string[];
}

/** `--worker-allow-cidr` and the always-refused ranges, judged when a worker URL is registered. */
export function targetGuardFromConfig(
  c: Pick<GatewayConfig, 'workerAllowCidr'>,
  deps: { lookup?: HostLookup | undefined },
): WorkerTargetGuard {
  return new WorkerTargetGuard({ allowCidrs: c.workerAllowCidr, lookup: deps.lookup });
}

export class WorkerTargetGuard {
  readonly #allow: CidrSet | undefined;
  readonly #lookup: HostLookup;
  readonly #localAddresses: () => string[];
  #own: OwnListener[] = [];

  constructor(opts: TargetGuardOptions) {
    this.#allow = opts.allowCidrs.length > 0 ? new CidrSet(opts.allowCidrs) : undefined;
    this.#lookup = opts.lookup ?? systemLookup;
    this.#localAddresses = opts.localAddresses ?? interfaceAddresses;
  }

  /** Records a listener once it is bound; registrations of its address are refused from then on. */
  addOwnListener(listener: OwnListener): void {
    this.#own = [...this.#own.filter((l) => l.name !== listener.name), listener];
  }

  async check(url: string): Promise<TargetCheck> {
    const parsed = parseWorkerUrl(url);
    if (!parsed.ok) return { kind: 'refused', reason: parsed.reason };
    const { host, port } = parsed.value;
    const literal = isIP(host) !== 0;
    let addresses: string[];
    try {
      addresses = literal ? [host] : await this.#lookup(host);
    } catch {
      return { kind: 'unresolved' };
    }
    if (addresses.length === 0) return { kind: 'unresolved' };
    const via = literal ? undefined : host;
    for (const address of addresses) {
      const refusal = addressRefusal(address, this.#allow, via);
      if (refusal !== undefined) return { kind: 'refused', reason: refusal };
      const own = await this.#ownListenerAt(address, port);
      if (own) {
        return {
          kind: 'refused',
          reason: `must not be this gateway's own ${own.name} address (port ${own.port}); a gateway registered as its own worker forwards requests to itself`,
        };
      }
    }
    return { kind: 'ok' };
  }

  async #ownListenerAt(address: string, port: number): Promise<OwnListener | undefined> {
    for (const listener of this.#own) {
      if (listener.port !== port) continue;
      if (await this.#reaches(listener.host, address)) return listener;
    }
    return undefined;
  }

  /** Whether a connection to `address` reaches a socket bound to `listenHost`. */
  async #reaches(listenHost: string, address: string): Promise<boolean> {
    const family = familyOf(address);
    if (family === undefined) return false;
    if (
      ALWAYS_LOCAL.check(address, family) &&
      (WILDCARD_HOSTS.has(listenHost) || isUnspecified(address))
    )
      return true;
    const bound = new BlockList();
    const hostAddresses = WILDCARD_HOSTS.has(listenHost)
      ? this.#localAddresses()
      : isIP(listenHost) !== 0
        ? [listenHost]
        : await this.#lookup(listenHost).catch(() => []);
    for (const a of hostAddresses) {
      const f = familyOf(a);
      if (f) bound.addAddress(a, f);
    }
    return bound.check(address, family);
  }
}

function isUnspecified(address: string): boolean {
  return (
    address === '0.0.0.0' ||
    address === '::' ||
    address === '::ffff:0.0.0.0' ||
    address === '::ffff:0:0'
  );
}

function interfaceAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address));
}
