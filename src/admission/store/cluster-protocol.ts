/**
 * The admission messages of `launch --workers N`, sent over the IPC channel between the cluster
 * primary (which holds the totals) and its gateway processes. Plain JSON objects with a `t`
 * discriminant prefixed `sy-adm-`: the channel also carries Node's own cluster messages and those
 * of other modules, which each side ignores.
 */

/** Worker to primary: take `units` of `key` if its total stays within `limit`. */
export interface TakeRequest {
  readonly t: 'sy-adm-take';
  /** Chosen by the worker; echoed in the answer. */
  readonly id: number;
  readonly key: string;
  readonly units: number;
  readonly limit: number;
}

/** Primary to worker: the answer to one take. */
export interface TakeAnswer {
  readonly t: 'sy-adm-took';
  readonly id: number;
  /** The primary's ticket id when the units fitted; absent when refused. */
  readonly ticket?: number;
  /** The key's total across every process, after this take when it succeeded. */
  readonly total: number;
}

/** Worker to primary: give back `units` of a ticket this worker holds. */
export interface GiveBackMessage {
  readonly t: 'sy-adm-give';
  readonly ticket: number;
  readonly units: number;
}

/** Primary to every worker: units of `key` were given back; waiters may try again. */
export interface FreedMessage {
  readonly t: 'sy-adm-freed';
  readonly key: string;
  readonly total: number;
}

export type AdmissionToPrimary = TakeRequest | GiveBackMessage;
export type AdmissionToWorker = TakeAnswer | FreedMessage;

type Fields = Readonly<Record<string, unknown>>;

function fields(msg: unknown): Fields | undefined {
  return typeof msg === 'object' && msg !== null ? (msg as Fields) : undefined;
}

const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** The admission message a worker sent, or undefined when the message is not one (or malformed). */
export function admissionToPrimary(msg: unknown): AdmissionToPrimary | undefined {
  const m = fields(msg);
  if (m?.t === 'sy-adm-take') {
    const { id, key, units, limit } = m;
    if (isNum(id) && typeof key === 'string' && isNum(units) && isNum(limit))
      return { t: 'sy-adm-take', id, key, units, limit };
  } else if (m?.t === 'sy-adm-give') {
    const { ticket, units } = m;
    if (isNum(ticket) && isNum(units)) return { t: 'sy-adm-give', ticket, units };
  }
  return undefined;
}

/** The admission message the primary sent, or undefined when the message is not one. */
export function admissionToWorker(msg: unknown): AdmissionToWorker | undefined {
  const m = fields(msg);
  if (m?.t === 'sy-adm-took') {
    const { id, ticket, total } = m;
    if (isNum(id) && isNum(total) && (ticket === undefined || isNum(ticket)))
      return ticket === undefined
        ? { t: 'sy-adm-took', id, total }
        : { t: 'sy-adm-took', id, ticket, total };
  } else if (m?.t === 'sy-adm-freed') {
    const { key, total } = m;
    if (typeof key === 'string' && isNum(total)) return { t: 'sy-adm-freed', key, total };
  }
  return undefined;
}
