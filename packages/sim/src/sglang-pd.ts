// SGLang/TokenSpeed PD legs. The router sends the same request to both legs at once with
// `bootstrap_host`, `bootstrap_port` and `bootstrap_room` (arrays for batches).
//   Prefill: registers its rooms and waits for the decode peers (bootstrap queue) up to the
//   bootstrap timeout; then computes the prompt, hands the KV over and answers one token.
//   Decode: queues for a slot of its running window (pre-allocation), then joins every room on
//   the prefill's bootstrap server and waits for the KV up to the waiting timeout; then decodes.
import type { Clock, Timer } from '@switchyard/kit';
import type { KvClient, KvResponse, PendingCall } from './kv-client.js';
import type { PdHost, PdLeg } from './pd-leg.js';
import type { PrefillPeer, RoomTable } from './room-table.js';
import type { StatsRecorder } from './stats.js';

/** Path of the decode's join on the bootstrap server (a simulator stand-in for the KV handshake). */
export const BOOTSTRAP_JOIN_PATH = '/sim/bootstrap/join';

/** SGLang's default --disaggregation-bootstrap-port, used when the router sends null. */
const DEFAULT_BOOTSTRAP_PORT = 8998;

export class SglangPrefillLeg implements PdLeg, PrefillPeer {
  readonly remoteKv = false;
  private host: PdHost | undefined;
  private readonly pending = new Set<string>();
  private registered: string[] = [];
  private timer: Timer | undefined;
  private ended = false;

  constructor(
    private readonly table: RoomTable,
    private readonly rooms: readonly string[],
    private readonly clock: Clock,
    private readonly timeoutSecs: number,
    private readonly stats: StatsRecorder,
  ) {}

  prepare(host: PdHost): void {
    this.host = host;
    for (const room of this.rooms) {
      const reg = this.table.registerPrefill(room, this);
      if (reg === 'busy') {
        host.fail(400, `bootstrap room ${room} is already in use`, 'room_in_use');
        return;
      }
      this.registered.push(room);
      if (reg === 'waiting') this.pending.add(room);
    }
    if (this.pending.size === 0) host.proceed();
    else this.timer = this.clock.setTimer(this.timeoutSecs * 1000, this.onTimeout);
  }

  joined(room: string): void {
    if (this.ended || !this.pending.delete(room) || this.pending.size > 0) return;
    this.clock.clearTimer(this.timer);
    this.timer = undefined;
    this.host?.proceed();
  }

  peerLeft(room: string): void {
    if (this.ended) return;
    this.registered = this.registered.filter((r) => r !== room);
    this.stats.roomsAborted++;
    this.host?.fail(
      500,
      `bootstrap room ${room} aborted: the decode leg went away`,
      'room_aborted',
    );
  }

  onFinished(): undefined {
    this.ended = true;
    for (const room of this.registered) {
      this.table.transfer(room, this);
      this.stats.kvTransfersSent++;
    }
    this.registered = [];
    return undefined;
  }

  onEnd(): void {
    if (this.ended) return;
    this.ended = true;
    this.clock.clearTimer(this.timer);
    for (const room of this.registered) this.table.prefillGone(room, this);
    this.registered = [];
  }

  private readonly onTimeout = (): void => {
    this.timer = undefined;
    this.stats.bootstrapTimeouts += this.pending.size;
    const [room] = this.pending;
    this.host?.fail(
      500,
      `KV bootstrap timed out after ${this.timeoutSecs} s: no decode joined room ${room ?? ''}`,
      'bootstrap_timeout',
    );
  };
}

/** Where one room's prefill is. */
export interface RoomTarget {
  room: string;
  host: string;
  port: number;
}

export class SglangDecodeLeg implements PdLeg {
  readonly remoteKv = true;
  private host: PdHost | undefined;
  private readonly calls: PendingCall[] = [];
  private received = 0;
  private timer: Timer | undefined;
  private ended = false;

  constructor(
    private readonly targets: readonly RoomTarget[],
    private readonly client: KvClient,
    private readonly clock: Clock,
    private readonly timeoutSecs: number,
    private readonly stats: StatsRecorder,
  ) {}

  onAdmitted(host: PdHost): void {
    this.host = host;
    // The waiting deadline starts at pre-allocation, not at arrival: a decode that queued behind
    // its window still gets the full timeout once it finally joins, so a burst's orphaned decodes
    // fail a whole waiting timeout after they join, not after they arrive.
    this.timer = this.clock.setTimer(this.timeoutSecs * 1000, this.onDeadline);
    for (const t of this.targets) {
      const hostPart = t.host.includes(':') && !t.host.startsWith('[') ? `[${t.host}]` : t.host;
      const call = this.client.post(
        `http://${hostPart}:${t.port}${BOOTSTRAP_JOIN_PATH}`,
        `{"bootstrap_room":${t.room}}`,
      );
      this.calls.push(call);
      call.result.then(
        (r) => this.onJoined(t, r),
        (err: unknown) => this.onUnreachable(t, err),
      );
    }
  }

  onFinished(): undefined {
    this.ended = true;
    return undefined;
  }

  onEnd(): void {
    if (this.ended) return;
    this.ended = true;
    this.clock.clearTimer(this.timer);
    // Closing the joins is what tells the prefill side that this decode is gone.
    for (const call of this.calls) call.abort();
  }

  private onJoined(t: RoomTarget, r: KvResponse): void {
    if (this.ended) return;
    const status = (r.body as { status?: unknown } | undefined)?.status;
    if (r.status === 200 && status === 'ok') {
      if (++this.received < this.targets.length) return;
      this.clock.clearTimer(this.timer);
      this.timer = undefined;
      this.stats.kvTransfers += this.targets.length;
      this.host?.kvReady();
      return;
    }
    if (status === 'aborted') {
      this.stats.roomsAborted++;
      this.host?.fail(500, `bootstrap room ${t.room} aborted by its prefill`, 'room_aborted');
      return;
    }
    this.host?.fail(
      500,
      `bootstrap join for room ${t.room} answered ${r.status}`,
      'bootstrap_failed',
    );
  }

  private onUnreachable(t: RoomTarget, err: unknown): void {
    if (this.ended) return;
    const why = err instanceof Error ? err.message : String(err);
    this.host?.fail(
      500,
      `cannot reach bootstrap server ${t.host}:${t.port} for room ${t.room}: ${why}`,
      'bootstrap_unreachable',
    );
  }

  private readonly onDeadline = (): void => {
    this.timer = undefined;
    this.stats.transferTimeouts++;
    const room = this.targets[0]?.room ?? '';
    this.host?.fail(
      500,
      `KV transfer timed out after ${this.timeoutSecs} s waiting for room ${room}`,
      'waiting_timeout',
    );
  };
}

/**
 * Targets for the decode from the request's bootstrap fields: host and port are scalars repeated
 * for every room, or arrays with one entry per room. Returns an error message when malformed.
 */
export function roomTargets(
  rooms: readonly string[],
  host: unknown,
  port: unknown,
): RoomTarget[] | string {
  const targets: RoomTarget[] = [];
  for (let i = 0; i < rooms.length; i++) {
    const h = Array.isArray(host) ? (host as unknown[])[i] : host;
    const p = Array.isArray(port) ? (port as unknown[])[i] : port;
    if (typeof h !== 'string' || h === '') return "'bootstrap_host' must name the prefill host";
    if (p !== null && p !== undefined && (!Number.isInteger(p) || (p as number) < 1)) {
      return "'bootstrap_port' must be a port number or null";
    }
    const room = rooms[i] ?? '';
    targets.push({
      room,
      host: h,
      port: (p as number | null | undefined) ?? DEFAULT_BOOTSTRAP_PORT,
    });
  }
  return targets;
}
