/**
 * The admission state of `launch --workers N`, held by the cluster primary. Every gateway process
 * asks it over IPC (a ClusterStore), so the primary alone decides whether units fit: the decode
 * window and the prefill limit stay exact across the processes, as they are within one.
 *
 * Tickets are tagged with the process that took them. When a process exits, for whatever reason,
 * the primary gives back every ticket it held at once: no lease or timeout is needed, because
 * the primary learns of the exit from the operating system and nothing else holds the units.
 */
import { InProcessStore } from './in-process-store.js';
import {
  admissionToPrimary,
  type AdmissionToWorker,
  type GiveBackMessage,
  type TakeRequest,
} from './cluster-protocol.js';
import type { StoreTicket } from './types.js';

/** The primary's end of one gateway process's channel (cluster `Worker.send`; a fake in tests). */
export interface WorkerPort {
  send(msg: AdmissionToWorker): void;
}

interface Attached {
  readonly port: WorkerPort;
  /** Tickets still holding units, by the id the worker gives back with. */
  readonly tickets: Map<number, StoreTicket>;
}

export class AdmissionPrimary {
  // The primary runs no controllers: its totals are one in-process store, whose atomic
  // check-and-take is exact because the primary handles one message at a time.
  readonly #store = new InProcessStore();
  readonly #workers = new Map<number, Attached>();
  #nextTicket = 1;
  /** While a process's tickets are released in bulk: the keys freed, broadcast once each after. */
  #releasing: Set<string> | undefined;

  constructor() {
    this.#store.onFreed((key) => {
      if (this.#releasing) this.#releasing.add(key);
      else this.#broadcast(key);
    });
  }

  /** A gateway process was forked: its messages are answered from now on. */
  attach(workerId: number, port: WorkerPort): void {
    this.#workers.set(workerId, { port, tickets: new Map() });
  }

  /**
   * Handles one message from a gateway process. Returns false when it is not an admission
   * message (the caller may have another use for it). Messages from a process not attached
   * (already detached) are dropped: the process is gone and anything it took would leak.
   */
  handle(workerId: number, msg: unknown): boolean {
    const parsed = admissionToPrimary(msg);
    if (parsed === undefined) return false;
    const worker = this.#workers.get(workerId);
    if (worker === undefined) return true;
    if (parsed.t === 'sy-adm-take') this.#take(worker, parsed);
    else this.#giveBack(worker, parsed);
    return true;
  }

  /**
   * The process exited or died: every ticket it held is given back now, and every process left
   * is told which keys freed (one message per key, however many tickets it held).
   */
  detach(workerId: number): void {
    const worker = this.#workers.get(workerId);
    if (worker === undefined) return;
    this.#workers.delete(workerId);
    const freed = new Set<string>();
    this.#releasing = freed;
    try {
      for (const ticket of worker.tickets.values()) this.#store.giveBack(ticket, ticket.units);
    } finally {
      this.#releasing = undefined;
    }
    for (const key of freed) this.#broadcast(key);
  }

  /** Units held on the key by every process. */
  total(key: string): number {
    return this.#store.seen(key);
  }

  /** Units held per key by every process, from the tickets (the primary's leak check metric). */
  held(): Map<string, number> {
    const held = new Map<string, number>();
    for (const { tickets } of this.#workers.values())
      for (const t of tickets.values()) held.set(t.key, (held.get(t.key) ?? 0) + t.units);
    return held;
  }

  /** Tickets the process holds (tests and diagnostics). */
  ticketsOf(workerId: number): number {
    return this.#workers.get(workerId)?.tickets.size ?? 0;
  }

  #take(worker: Attached, msg: TakeRequest): void {
    const { ticket, total } = this.#store.tryTake(msg.key, msg.units, msg.limit);
    if (ticket === undefined) {
      worker.port.send({ t: 'sy-adm-took', id: msg.id, total });
      return;
    }
    const id = this.#nextTicket++;
    worker.tickets.set(id, ticket);
    worker.port.send({ t: 'sy-adm-took', id: msg.id, ticket: id, total });
  }

  /**
   * Partial and idempotent: the store gives back at most the units the ticket still holds, and
   * a ticket already given back in full is forgotten, so a repeated give-back changes nothing.
   */
  #giveBack(worker: Attached, msg: GiveBackMessage): void {
    const ticket = worker.tickets.get(msg.ticket);
    if (ticket === undefined) return;
    this.#store.giveBack(ticket, msg.units);
    if (!(ticket.units > 0)) worker.tickets.delete(msg.ticket);
  }

  #broadcast(key: string): void {
    const msg: AdmissionToWorker = { t: 'sy-adm-freed', key, total: this.#store.seen(key) };
    for (const worker of this.#workers.values()) worker.port.send(msg);
  }
}
