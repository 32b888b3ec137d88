/**
 * An in-memory stand-in for the IPC channel between the cluster primary and one gateway process:
 * messages are copied through JSON (as Node's IPC serializes them) and delivered on a later turn,
 * in order, as a real channel does. `close()` is the primary going away.
 */
import type { AdmissionPrimary, WorkerPort } from '../../src/admission/store/admission-primary.js';
import type { AdmissionToWorker } from '../../src/admission/store/cluster-protocol.js';
import type { PrimaryChannel } from '../../src/admission/store/cluster-store.js';

export interface FakeLink {
  readonly channel: PrimaryChannel;
  /** Every message the primary sent to this process, in order. */
  readonly received: AdmissionToWorker[];
  /** The primary side goes away: the channel reports closed. */
  close(): void;
}

const copy = <T>(msg: T): T => JSON.parse(JSON.stringify(msg)) as T;

/** Attaches process `workerId` to the primary and returns its end of the channel. */
export function fakeLink(primary: AdmissionPrimary, workerId: number): FakeLink {
  const listeners = new Set<(msg: unknown) => void>();
  const closers = new Set<() => void>();
  const received: AdmissionToWorker[] = [];
  let connected = true;
  const port: WorkerPort = {
    send: (msg) => {
      const sent = copy(msg);
      setImmediate(() => {
        if (!connected) return;
        received.push(sent);
        for (const listener of listeners) listener(sent);
      });
    },
  };
  primary.attach(workerId, port);
  const channel: PrimaryChannel = {
    get connected() {
      return connected;
    },
    send: (msg) => {
      const sent = copy(msg);
      setImmediate(() => connected && primary.handle(workerId, sent));
    },
    onMessage: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    onClose: (listener) => {
      closers.add(listener);
      return () => closers.delete(listener);
    },
  };
  return {
    channel,
    received,
    close: () => {
      connected = false;
      for (const closer of closers) closer();
    },
  };
}

/** Lets every message in flight arrive (each hop is one setImmediate). */
export async function settle(hops = 4): Promise<void> {
  for (let i = 0; i < hops; i++) await new Promise((resolve) => setImmediate(resolve));
}
