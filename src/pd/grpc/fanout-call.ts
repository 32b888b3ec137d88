/**
 * Several `Generate` calls seen as one. SGLang and TokenSpeed cannot run n samples on one
 * bootstrap room (the samples would pre-allocate the same room twice), so a fan-out request is
 * sent to each leg as n single-sample calls, each with its own room and request id; this merges
 * their outputs in arrival order with each call's sample index set to its position. Completing,
 * deferring, expiring and disposing apply to every call; it has started when all have, and is closed when
 * all are.
 */
import type { EngineOutput, GenerateCall } from '../../engine/types.js';

type Pulled = { i: number; r: IteratorResult<EngineOutput> } | { i: number; err: unknown };

export class FanoutCall implements GenerateCall {
  readonly requestId: string;
  readonly started: Promise<void>;
  readonly closed: Promise<void>;

  constructor(private readonly calls: readonly GenerateCall[]) {
    this.requestId = calls[0]?.requestId ?? '';
    this.started = Promise.all(calls.map((c) => c.started)).then(() => undefined);
    // As for one call: a caller that only iterates need not await `started`.
    this.started.catch(() => undefined);
    this.closed = Promise.all(calls.map((c) => c.closed)).then(() => undefined);
  }

  markCompleted(): void {
    for (const c of this.calls) c.markCompleted();
  }

  deferAbortUntilFirstItem(): this {
    for (const c of this.calls) c.deferAbortUntilFirstItem();
    return this;
  }

  expireAfter(ms: number): this {
    for (const c of this.calls) c.expireAfter(ms);
    return this;
  }

  dispose(): void {
    for (const c of this.calls) c.dispose();
  }

  disposeNow(): void {
    for (const c of this.calls) c.disposeNow();
  }

  [Symbol.asyncIterator](): AsyncIterator<EngineOutput> {
    const its = this.calls.map((c) => c[Symbol.asyncIterator]());
    const pending = new Map<number, Promise<Pulled>>();
    const pull = (i: number): void => {
      const it = its[i];
      if (it === undefined) return;
      // Never rejects: a failure is carried as a value, so the calls not raced yet cannot
      // leave an unhandled rejection behind.
      pending.set(
        i,
        it.next().then(
          (r) => ({ i, r }),
          (err: unknown) => ({ i, err }),
        ),
      );
    };
    its.forEach((_, i) => pull(i));
    return {
      next: async (): Promise<IteratorResult<EngineOutput>> => {
        while (pending.size > 0) {
          const got = await Promise.race(pending.values());
          if ('err' in got) {
            pending.clear();
            throw got.err;
          }
          if (got.r.done === true) {
            pending.delete(got.i);
            continue;
          }
          pull(got.i);
          return { done: false, value: { ...got.r.value, index: got.i } };
        }
        return { done: true, value: undefined };
      },
      return: async (): Promise<IteratorResult<EngineOutput>> => {
        pending.clear();
        for (const it of its) await it.return?.();
        return { done: true, value: undefined };
      },
    };
  }
}
