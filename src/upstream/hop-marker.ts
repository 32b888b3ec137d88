/**
 * Request-loop protection. Every request a gateway forwards to a worker carries this gateway's
 * random pseudonym in the standard `Via` header (RFC 9110 §7.6.3 names loop detection as one of
 * its uses), appended after the entries of earlier hops so a chain of gateways keeps them all. A
 * request that arrives already carrying the pseudonym has gone round a loop: this gateway
 * listed as its own worker, two gateways listing each other, or a worker URL that is a load
 * balancer in front of the gateways. It is refused instead of forwarded again.
 */
import { randomBytes } from 'node:crypto';

const PROTOCOL = '1.1';

export class HopMarker {
  /** `switchyard-<16 hex digits>`: random per gateway, so another gateway never matches it. */
  readonly pseudonym: string;
  /** This gateway's own `Via` entry. */
  readonly #entry: string;

  constructor(id: string = randomBytes(8).toString('hex')) {
    this.pseudonym = `switchyard-${id}`;
    this.#entry = `${PROTOCOL} ${this.pseudonym}`;
  }

  /** Whether a request's `Via` shows that it already passed through this gateway. */
  seenIn(via: string | string[] | undefined): boolean {
    if (via === undefined) return false;
    for (const entry of (Array.isArray(via) ? via.join(',') : via).split(',')) {
      // An entry is `[protocol-name/]protocol-version received-by [comment]`.
      const receivedBy = entry.trim().split(/\s+/, 2)[1];
      if (receivedBy === this.pseudonym) return true;
    }
    return false;
  }

  /** The `Via` value to send upstream: the entries the request came with, then this gateway's. */
  append(via: string | string[] | undefined): string {
    const earlier = Array.isArray(via) ? via.join(', ') : via;
    return earlier === undefined || earlier.trim() === ''
      ? this.#entry
      : `${earlier}, ${this.#entry}`;
  }
}
