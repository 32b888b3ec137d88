/**
 * Facts about IP addresses that decide whether one may be a worker: the ranges that never are
 * (link-local, where every major cloud serves instance metadata and credentials), cloud metadata
 * host names, and `--worker-allow-cidr` sets. Pure functions; no DNS, no configuration.
 */
import { BlockList, isIP } from 'node:net';

export type IpFamily = 'ipv4' | 'ipv6';

export function familyOf(address: string): IpFamily | undefined {
  const v = isIP(address);
  return v === 4 ? 'ipv4' : v === 6 ? 'ipv6' : undefined;
}

/**
 * Never a worker. BlockList also matches the IPv4-mapped IPv6 form of an IPv4 entry
 * (`::ffff:169.254.169.254`), which a dual-stack socket connects to as plain IPv4.
 */
const FORBIDDEN = new BlockList();
// IPv4 link-local: AWS, GCP, Azure, OCI and DigitalOcean metadata at 169.254.169.254, ECS task
// credentials at 169.254.170.2.
FORBIDDEN.addSubnet('169.254.0.0', 16, 'ipv4');
FORBIDDEN.addSubnet('fe80::', 10, 'ipv6');
// Metadata services outside the link-local ranges: AWS IMDS over IPv6, Alibaba Cloud.
FORBIDDEN.addAddress('fd00:ec2::254', 'ipv6');
FORBIDDEN.addAddress('100.100.100.200', 'ipv4');

/** Names that resolve to a metadata service inside the cloud they belong to. */
const METADATA_HOSTNAMES = new Set([
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'instance-data',
  'instance-data.ec2.internal',
]);

export function isMetadataHostname(host: string): boolean {
  return METADATA_HOSTNAMES.has(host.toLowerCase().replace(/\.$/, ''));
}

/** True for an IP address that is never a worker (link-local or a cloud metadata service). */
export function isForbiddenAddress(address: string): boolean {
  const family = familyOf(address);
  return family !== undefined && FORBIDDEN.check(address, family);
}

/** The refusal for a forbidden address; `via` names the host that resolved to it, if any. */
export function forbiddenAddressMessage(address: string, via?: string): string {
  const where = via === undefined ? address : `${via} resolves to ${address}`;
  return `must not point at a link-local or cloud metadata address (${where})`;
}

/**
 * Why `address` may not be a worker's address, or undefined when it may: forbidden ranges first,
 * then the `--worker-allow-cidr` fence when one is set. `via` names the host that resolved to it.
 * Used at registration and again whenever a connection to a worker is opened.
 */
export function addressRefusal(
  address: string,
  allow: CidrSet | undefined,
  via?: string,
): string | undefined {
  if (isForbiddenAddress(address)) return forbiddenAddressMessage(address, via);
  if (allow && !allow.contains(address)) {
    const where = via === undefined ? address : `${via} resolves to ${address}`;
    return `must be inside --worker-allow-cidr (${where})`;
  }
  return undefined;
}

/** A set of CIDR ranges (`10.0.0.0/8`, `fd00::/8`; a bare address is one host). */
export class CidrSet {
  readonly #list = new BlockList();

  constructor(cidrs: readonly string[]) {
    for (const cidr of cidrs) {
      const parsed = parseCidr(cidr);
      if (!parsed) throw new Error(`invalid CIDR '${cidr}'`);
      this.#list.addSubnet(parsed.network, parsed.prefix, parsed.family);
    }
  }

  contains(address: string): boolean {
    const family = familyOf(address);
    return family !== undefined && this.#list.check(address, family);
  }
}

export function parseCidr(
  cidr: string,
): { network: string; prefix: number; family: IpFamily } | undefined {
  const [network = '', prefixText, extra] = cidr.trim().split('/');
  const family = familyOf(network);
  if (family === undefined || extra !== undefined) return undefined;
  const max = family === 'ipv4' ? 32 : 128;
  if (prefixText === undefined) return { network, prefix: max, family };
  if (!/^\d{1,3}$/.test(prefixText) || Number(prefixText) > max) return undefined;
  return { network, prefix: Number(prefixText), family };
}
