// The prefill's bootstrap rooms (SGLang `bootstrap_room`), keyed by the room's exact decimal text.
// A room pairs the prefill request that registered it with the decode that joined it over HTTP;
// whichever leg arrives first creates the entry. Each side is told when the other leaves:
//   - the prefill finishes           → the decode's join is answered 'ok' (KV transferred);
//   - the prefill ends otherwise     → a joined decode is answered 'aborted' at once;
//   - the decode's join closes       → the prefill fails at once (room aborted).
// A prefill that times out before any decode joined leaves nothing behind, so a decode joining
// that room later waits for a prefill that never comes, and fails at its own deadline: the
// orphaned room a burst wider than the decode's running window leaves behind.

export interface PrefillPeer {
  /** The decode of `room` joined. */
  joined(room: string): void;
  /** The decode of `room` closed its join before the KV was transferred. */
  peerLeft(room: string): void;
}

export interface DecodePeer {
  deliver(status: 'ok' | 'aborted'): void;
}

interface RoomEntry {
  prefill: PrefillPeer | undefined;
  decode: DecodePeer | undefined;
}

export type RoomRegistration = 'joined' | 'waiting' | 'busy';

export class RoomTable {
  private readonly rooms = new Map<string, RoomEntry>();

  /** Open rooms (either leg present). */
  get size(): number {
    return this.rooms.size;
  }

  /** Rooms whose prefill waits for its decode (SGLang's prefill bootstrap queue). */
  bootstrapping(): number {
    let n = 0;
    for (const e of this.rooms.values()) if (e.prefill !== undefined && e.decode === undefined) n++;
    return n;
  }

  registerPrefill(room: string, peer: PrefillPeer): RoomRegistration {
    const e = this.rooms.get(room);
    if (e === undefined) {
      this.rooms.set(room, { prefill: peer, decode: undefined });
      return 'waiting';
    }
    if (e.prefill !== undefined) return 'busy';
    e.prefill = peer;
    return e.decode === undefined ? 'waiting' : 'joined';
  }

  join(room: string, peer: DecodePeer): RoomRegistration {
    const e = this.rooms.get(room);
    if (e === undefined) {
      this.rooms.set(room, { prefill: undefined, decode: peer });
      return 'waiting';
    }
    if (e.decode !== undefined) return 'busy';
    e.decode = peer;
    e.prefill?.joined(room);
    return e.prefill === undefined ? 'waiting' : 'joined';
  }

  /** The prefill computed the room's KV: hand it to the decode and close the room. */
  transfer(room: string, peer: PrefillPeer): void {
    const e = this.rooms.get(room);
    if (e?.prefill !== peer) return;
    this.rooms.delete(room);
    e.decode?.deliver('ok');
  }

  /** The prefill ended without a transfer (timeout, failure, client gone). */
  prefillGone(room: string, peer: PrefillPeer): void {
    const e = this.rooms.get(room);
    if (e?.prefill !== peer) return;
    this.rooms.delete(room);
    e.decode?.deliver('aborted');
  }

  /** The decode's join closed before the transfer (its deadline, or its client gone). */
  decodeGone(room: string, peer: DecodePeer): void {
    const e = this.rooms.get(room);
    if (e?.decode !== peer) return;
    this.rooms.delete(room);
    e.prefill?.peerLeft(room);
  }

  /** Worker shutdown: forget every room (their requests are being aborted anyway). */
  clear(): void {
    this.rooms.clear();
  }
}
