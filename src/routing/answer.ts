/**
 * An answer is what dispatch returns: the status and headers the client will get, a body that
 * has not been written yet, the worker it came from, and the leases held until the answer is
 * over. Nothing is written to the client while an answer is being decided, so a decorator
 * (retry) can look at the status, throw the answer away and try again.
 */
import type { OutgoingHttpHeaders } from 'node:http';
import type { GatewayError } from '../errors/gateway-error.js';
import { BufferBody, dumpBody, type BodySource } from '../upstream/body-source.js';
import type { Worker } from '../workers/worker.js';

/** How an answer ended: written whole, abandoned by the client, cut by a failing worker, or thrown away unwritten. */
export type AnswerEnd = 'complete' | 'client_closed' | 'upstream_failed' | 'discarded';

/** Something held until its answer ends; told how it ended (a breaker records it). */
export interface AnswerLease {
  release(end: AnswerEnd, error?: unknown): void;
}

export interface Answer {
  readonly status: number;
  /** The response headers the client gets, already filtered for relaying. */
  readonly headers: OutgoingHttpHeaders;
  readonly body: BodySource;
  /** `text/event-stream`: the head goes out at once, and a late failure is an error event. */
  readonly eventStream: boolean;
  /** The worker that produced the answer; undefined for answers the gateway made itself. */
  readonly routedTo?: Worker | undefined;
  /** Released exactly once, when the answer has been written, abandoned or discarded. */
  readonly leases: AnswerLease[];
  /** The error the client sees when the body fails after the answer was chosen. */
  readonly midStreamError: (cause: unknown) => GatewayError;
  /** Called once with the first body chunk written (time to first token for streams). */
  readonly onFirstByte?: (() => void) | undefined;
}

/**
 * Releases an answer's leases, each once, in order. A lease that throws is a bug, but it must
 * neither skip the leases after it nor crash the process from inside a socket callback, so it is
 * reported as a process warning.
 */
export function releaseLeases(answer: Answer, end: AnswerEnd, error?: unknown): void {
  const leases = answer.leases.splice(0);
  for (const l of leases) {
    try {
      l.release(end, error);
    } catch (err) {
      process.emitWarning(err instanceof Error ? err : new Error(String(err)), 'LeaseReleaseError');
    }
  }
}

/**
 * Throws an answer away unwritten: its body is dumped (read and dropped, or cut when large, so
 * the worker's connection is freed either way) and its leases released at once.
 */
export function discardAnswer(answer: Answer): void {
  dumpBody(answer.body);
  releaseLeases(answer, 'discarded');
}

/** An answer whose body is already in memory. */
export function bufferAnswer(
  status: number,
  headers: OutgoingHttpHeaders,
  bytes: Buffer,
  opts: Pick<Answer, 'routedTo' | 'midStreamError'> & { leases?: AnswerLease[] },
): Answer {
  return {
    status,
    headers: { ...headers, 'content-length': String(bytes.length) },
    body: new BufferBody(bytes),
    eventStream: false,
    routedTo: opts.routedTo,
    leases: opts.leases ?? [],
    midStreamError: opts.midStreamError,
  };
}
