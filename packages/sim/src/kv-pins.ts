// vLLM prefill side of a KV handoff. A prefill that finished on its length cap keeps ("pins") its
// prompt's full KV blocks until the decode reads them or the abort timeout
// (VLLM_NIXL_ABORT_REQUEST_TIMEOUT / VLLM_MOONCAKE_ABORT_REQUEST_TIMEOUT, 480 s) frees them.
//   NIXL (pull): the prefill returns block ids; the decode pulls by engine id + request id.
//   Mooncake (push): the router mints a transfer_id for both legs; the decode queries it and is
//   answered as soon as the prefill with that id finishes.
import type { Clock, Timer } from '@switchyard/kit';
import type { SimEngine } from './engine.js';
import type { StatsRecorder } from './stats.js';

interface Pin {
  blockIds: number[];
  release: () => void;
  timer: Timer;
}

type Waiter = (ok: boolean) => void;

interface MooncakeEntry {
  pin: Pin | undefined;
  waiters: Set<Waiter>;
}

export class KvPins {
  private readonly nixl = new Map<string, Pin>();
  private readonly mooncake = new Map<string, MooncakeEntry>();
  private nextBlock = 1;

  constructor(
    readonly engineId: string,
    private readonly engine: SimEngine,
    private readonly clock: Clock,
    private readonly abortTimeoutSecs: number,
    private readonly blockSize: number,
    private readonly stats: StatsRecorder,
  ) {}

  /** KV handoffs currently pinned. */
  get pinned(): number {
    let n = this.nixl.size;
    for (const e of this.mooncake.values()) if (e.pin !== undefined) n++;
    return n;
  }

  /** NIXL: pins the prompt's full blocks under `requestId`; undefined if it has none. */
  pinNixl(requestId: string, promptTokens: number): number[] | undefined {
    const pin = this.pin(promptTokens, () => {
      if (this.nixl.get(requestId) === pin) this.nixl.delete(requestId);
    });
    if (pin !== undefined) this.nixl.set(requestId, pin);
    return pin?.blockIds;
  }

  /** NIXL read: succeeds once, for the right engine, request and blocks. */
  pullNixl(engineId: unknown, requestId: unknown, blockIds: unknown): boolean {
    if (engineId !== this.engineId || typeof requestId !== 'string') return false;
    const pin = this.nixl.get(requestId);
    if (pin === undefined || !sameIds(pin.blockIds, blockIds)) return false;
    this.nixl.delete(requestId);
    this.unpin(pin);
    this.stats.kvTransfersSent++;
    return true;
  }

  /** Mooncake: a prefill with this transfer id started; decodes that query it now wait. */
  expectMooncake(transferId: string): void {
    if (!this.mooncake.has(transferId))
      this.mooncake.set(transferId, { pin: undefined, waiters: new Set() });
  }

  /** Mooncake: the prefill finished on its cap; the KV is ready to push. */
  readyMooncake(transferId: string, promptTokens: number): void {
    const entry = this.mooncake.get(transferId);
    if (entry === undefined) return;
    entry.pin = this.pin(promptTokens, () => {
      if (this.mooncake.get(transferId) === entry) this.mooncake.delete(transferId);
    });
    if (entry.pin === undefined) {
      this.dropMooncake(transferId);
      return;
    }
    const [first] = entry.waiters;
    if (first !== undefined) this.takeMooncake(transferId, entry, first);
  }

  /** Mooncake: the prefill ended without KV (EOS, failure, client gone). */
  dropMooncake(transferId: string): void {
    const entry = this.mooncake.get(transferId);
    if (entry === undefined || entry.pin !== undefined) return;
    this.mooncake.delete(transferId);
    for (const w of entry.waiters) w(false);
  }

  /**
   * Mooncake decode query: answers at once if the KV is ready (or unknown), else when the prefill
   * finishes. Returns a cancel function for a decode that leaves first.
   */
  queryMooncake(transferId: unknown, engineId: unknown, done: Waiter): () => void {
    const entry = typeof transferId === 'string' ? this.mooncake.get(transferId) : undefined;
    if (entry === undefined || engineId !== this.engineId) {
      done(false);
      return () => {};
    }
    if (entry.pin !== undefined) {
      this.takeMooncake(transferId as string, entry, done);
      return () => {};
    }
    entry.waiters.add(done);
    return () => entry.waiters.delete(done);
  }

  close(): void {
    for (const pin of this.nixl.values()) this.unpin(pin);
    for (const e of this.mooncake.values()) if (e.pin !== undefined) this.unpin(e.pin);
    this.nixl.clear();
    this.mooncake.clear();
  }

  private takeMooncake(transferId: string, entry: MooncakeEntry, done: Waiter): void {
    this.mooncake.delete(transferId);
    if (entry.pin !== undefined) this.unpin(entry.pin);
    this.stats.kvTransfersSent++;
    for (const w of entry.waiters) if (w !== done) w(false);
    done(true);
  }

  private pin(promptTokens: number, forget: () => void): Pin | undefined {
    // Only full blocks are shipped: a prompt shorter than a block gives no handoff at all.
    const blocks = Math.floor(promptTokens / this.blockSize);
    if (blocks === 0) return undefined;
    const blockIds = Array.from({ length: blocks }, (_, i) => this.nextBlock + i);
    this.nextBlock += blocks;
    const pin: Pin = {
      blockIds,
      release: this.engine.holdKv(blocks * this.blockSize),
      timer: this.clock.setTimer(this.abortTimeoutSecs * 1000, () => {
        forget();
        pin.release();
        this.stats.kvExpired++;
      }),
    };
    return pin;
  }

  private unpin(pin: Pin): void {
    this.clock.clearTimer(pin.timer);
    pin.release();
  }
}

function sameIds(pinned: readonly number[], given: unknown): boolean {
  if (!Array.isArray(given)) return false;
  // vLLM's hybrid allocator sends one list per KV-cache group; the simulator has one group.
  const flat = (given as unknown[]).flat();
  return flat.length === pinned.length && flat.every((id, i) => id === pinned[i]);
}
