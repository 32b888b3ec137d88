/**
 * Forks and keeps the N gateway processes of `launch --workers N`. Each runs the same command
 * line (node:cluster forks `process.argv`), marked by its slot in the environment. A process
 * that dies after the launch is up is forked again into the same slot, after a delay that
 * doubles while it keeps dying; a process that dies before every slot first listened ends the
 * launch instead, since a failure at startup (a port in use, a refused flag) would only repeat.
 */
import cluster, { type Worker } from 'node:cluster';
import { CLUSTER_SLOT_ENV } from '../admission/store/cluster-store.js';
import type { Logger } from '../observability/logger.js';
import { controlToPrimary, type ListeningMessage } from './messages.js';

/** The delay before forking again after the n-th exit in a row (n >= 1): 100 ms doubling to 30 s. */
export function restartDelayMs(exitsInRow: number): number {
  return Math.min(30_000, 100 * 2 ** Math.max(0, exitsInRow - 1));
}

/** A process that served at least this long before it died was not crash-looping. */
export const STABLE_MS = 10_000;

/** A gateway process that reported listening. */
export interface LiveProcess {
  readonly slot: number;
  readonly worker: Worker;
  readonly listening: ListeningMessage;
}

export interface SupervisorHooks {
  /** A process was forked (before any of its messages). */
  onFork(worker: Worker): void;
  /** A message that is not the supervisor's own (admission, metrics answers). */
  onMessage(worker: Worker, msg: unknown): void;
  /** The process exited, however. */
  onExit(worker: Worker): void;
  /** A slot is forked again after an unexpected exit. */
  onRestart(slot: number): void;
}

/** A gateway process exited before the launch was up. */
export class StartupFailed extends Error {
  constructor(
    readonly slot: number,
    readonly exitCode: number,
  ) {
    super(`gateway process ${slot} exited with code ${exitCode} before it listened`);
  }
}

interface Slot {
  readonly index: number;
  worker: Worker | undefined;
  listening: ListeningMessage | undefined;
  listeningSince: number | undefined;
  exitsInRow: number;
  restart: NodeJS.Timeout | undefined;
}

export class Supervisor {
  readonly #slots: Slot[];
  readonly #env: Record<string, string>;
  readonly #logger: Logger;
  readonly #hooks: SupervisorHooks;
  #phase: 'starting' | 'up' | 'stopping' = 'starting';
  #startup: { resolve: () => void; reject: (err: StartupFailed) => void } | undefined;
  /** False once a process exits non-zero while stopping. */
  #clean = true;

  constructor(opts: {
    processes: number;
    /** Added to each process's environment. */
    env: Record<string, string>;
    logger: Logger;
    hooks: SupervisorHooks;
  }) {
    this.#slots = Array.from({ length: opts.processes }, (_, index) => ({
      index,
      worker: undefined,
      listening: undefined,
      listeningSince: undefined,
      exitsInRow: 0,
      restart: undefined,
    }));
    this.#env = opts.env;
    this.#logger = opts.logger;
    this.#hooks = opts.hooks;
  }

  /** Forks every slot; resolves once each has listened, rejects with StartupFailed if one exits. */
  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#startup = { resolve, reject };
      for (const slot of this.#slots) this.#fork(slot);
    });
  }

  /** The processes serving now, by slot. */
  live(): LiveProcess[] {
    const live: LiveProcess[] = [];
    for (const { index, worker, listening } of this.#slots)
      if (worker && listening) live.push({ slot: index, worker, listening });
    return live;
  }

  /**
   * Sends `signal` to every process for its graceful drain and resolves once all have exited:
   * true when every one exited 0. Any still running after `hardStopMs` is killed.
   */
  async stop(signal: NodeJS.Signals, hardStopMs: number): Promise<boolean> {
    this.#phase = 'stopping';
    const running: Promise<unknown>[] = [];
    for (const slot of this.#slots) {
      clearTimeout(slot.restart);
      const worker = slot.worker;
      if (worker === undefined || worker.isDead()) continue;
      running.push(new Promise((resolve) => worker.once('exit', resolve)));
      worker.process.kill(signal);
    }
    const all = Promise.all(running);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>(
      (resolve) => (timer = setTimeout(resolve, hardStopMs, 'late')),
    );
    if ((await Promise.race([all, late])) === 'late') {
      this.#logger.warn({ hardStopMs }, 'gateway processes still draining; killing them');
      for (const slot of this.#slots) slot.worker?.process.kill('SIGKILL');
      this.#clean = false;
      await all;
    }
    clearTimeout(timer);
    return this.#clean;
  }

  #fork(slot: Slot): void {
    const worker = cluster.fork({ ...this.#env, [CLUSTER_SLOT_ENV]: String(slot.index) });
    slot.worker = worker;
    this.#hooks.onFork(worker);
    worker.on('message', (msg: unknown) => this.#onMessage(slot, worker, msg));
    worker.on('exit', (code: number | null, signal: string | null) =>
      this.#onExit(slot, worker, code, signal),
    );
    // A send racing the process's exit is reported here; the exit handler does the cleanup.
    worker.on('error', (err: Error) =>
      this.#logger.debug({ proc: slot.index, err: err.message }, 'gateway process channel error'),
    );
  }

  #onMessage(slot: Slot, worker: Worker, msg: unknown): void {
    const control = controlToPrimary(msg);
    if (control?.t !== 'sy-listening') {
      this.#hooks.onMessage(worker, msg);
      return;
    }
    if (slot.worker !== worker) return;
    slot.listening = control;
    slot.listeningSince = Date.now();
    if (this.#phase === 'up') {
      const pid = worker.process.pid;
      this.#logger.info({ proc: slot.index, pid }, 'gateway process restarted');
    } else if (this.#phase === 'starting' && this.#slots.every((s) => s.listening)) {
      this.#phase = 'up';
      this.#startup?.resolve();
    }
  }

  #onExit(slot: Slot, worker: Worker, code: number | null, signal: string | null): void {
    this.#hooks.onExit(worker);
    if (slot.worker !== worker) return;
    const servedMs = slot.listeningSince === undefined ? 0 : Date.now() - slot.listeningSince;
    slot.worker = undefined;
    slot.listening = undefined;
    slot.listeningSince = undefined;
    const pid = worker.process.pid;
    if (this.#phase === 'stopping') {
      if (code !== 0) this.#clean = false;
      return;
    }
    if (this.#phase === 'starting') {
      this.#phase = 'stopping';
      this.#startup?.reject(new StartupFailed(slot.index, code || 1));
      return;
    }
    slot.exitsInRow = servedMs >= STABLE_MS ? 1 : slot.exitsInRow + 1;
    const restartInMs = restartDelayMs(slot.exitsInRow);
    this.#logger.warn(
      { proc: slot.index, pid, code, signal, restartInMs },
      'gateway process exited unexpectedly',
    );
    slot.restart = setTimeout(() => {
      slot.restart = undefined;
      this.#hooks.onRestart(slot.index);
      this.#fork(slot);
    }, restartInMs);
  }
}
