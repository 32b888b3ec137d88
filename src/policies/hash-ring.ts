/**
 * Consistent-hash ring (SMG `worker/hash_ring.rs`): 150 virtual nodes per member at
 * `hash("{member}#{vnode}")`, kept sorted; a lookup binary-searches the first position at or after
 * `hash(key)` and walks clockwise to the first member the caller accepts. SMG hashes with blake3;
 * this ring uses SHA-256 (see hash.ts), so placements differ from SMG's while the properties that
 * matter hold: adding an (N+1)th member moves about 1/(N+1) of the keys, and removing one moves
 * only the keys it owned.
 */
import { ringPosition } from './hash.js';

export const VIRTUAL_NODES = 150;

export class HashRing {
  /** Sorted vnode positions, and the member owning each (parallel arrays). */
  #positions: number[] = [];
  #owners: string[] = [];
  readonly #members = new Set<string>();

  constructor(members: Iterable<string> = []) {
    const all: [number, string][] = [];
    for (const member of members) {
      if (this.#members.has(member)) continue;
      this.#members.add(member);
      for (const position of vnodePositions(member)) all.push([position, member]);
    }
    all.sort(compareEntries);
    this.#positions = all.map((e) => e[0]);
    this.#owners = all.map((e) => e[1]);
  }

  get size(): number {
    return this.#members.size;
  }

  has(member: string): boolean {
    return this.#members.has(member);
  }

  members(): IterableIterator<string> {
    return this.#members.values();
  }

  /** Adds a member by merging its 150 sorted vnodes into the ring: O(ring size). */
  add(member: string): void {
    if (this.#members.has(member)) return;
    this.#members.add(member);
    const fresh = vnodePositions(member).sort((a, b) => a - b);
    const positions: number[] = new Array<number>(this.#positions.length + fresh.length);
    const owners: string[] = new Array<string>(positions.length);
    let i = 0;
    let j = 0;
    for (let k = 0; k < positions.length; k++) {
      const old = this.#positions[i];
      const neu = fresh[j];
      const oldOwner = this.#owners[i] as string;
      const takeOld =
        neu === undefined ||
        (old !== undefined && (old < neu || (old === neu && oldOwner <= member)));
      if (takeOld) {
        positions[k] = old as number;
        owners[k] = oldOwner;
        i++;
      } else {
        positions[k] = neu;
        owners[k] = member;
        j++;
      }
    }
    this.#positions = positions;
    this.#owners = owners;
  }

  /** Removes a member's vnodes: O(ring size). */
  remove(member: string): void {
    if (!this.#members.delete(member)) return;
    const positions: number[] = [];
    const owners: string[] = [];
    for (let i = 0; i < this.#owners.length; i++) {
      const owner = this.#owners[i] as string;
      if (owner === member) continue;
      positions.push(this.#positions[i] as number);
      owners.push(owner);
    }
    this.#positions = positions;
    this.#owners = owners;
  }

  /** The owner of `key` walking clockwise from its position, skipping members `accept` rejects. */
  lookup(key: string, accept: (member: string) => boolean): string | undefined {
    const n = this.#positions.length;
    if (n === 0) return undefined;
    const start = this.#firstAtOrAfter(ringPosition(key));
    let rejected: string | undefined;
    for (let step = 0; step < n; step++) {
      const owner = this.#owners[(start + step) % n] as string;
      if (owner === rejected) continue; // consecutive vnodes of one rejected member
      if (accept(owner)) return owner;
      rejected = owner;
    }
    return undefined;
  }

  /** Binary search for the first vnode at or after `position`, wrapping to 0 past the end. */
  #firstAtOrAfter(position: number): number {
    const positions = this.#positions;
    let lo = 0;
    let hi = positions.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((positions[mid] as number) < position) lo = mid + 1;
      else hi = mid;
    }
    return lo === positions.length ? 0 : lo;
  }
}

function vnodePositions(member: string): number[] {
  const out: number[] = new Array<number>(VIRTUAL_NODES);
  for (let v = 0; v < VIRTUAL_NODES; v++) out[v] = ringPosition(`${member}#${v}`);
  return out;
}

/** Position order, ties broken by member so the ring is the same whatever the insertion order. */
function compareEntries(a: readonly [number, string], b: readonly [number, string]): number {
  if (a[0] !== b[0]) return a[0] - b[0];
  return a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0;
}
