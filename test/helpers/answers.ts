/** Answers for unit tests of the code that passes answers around (retry, pacing, the writer). */
import { GatewayError } from '../../src/errors/gateway-error.js';
import type { Answer, AnswerEnd } from '../../src/routing/answer.js';
import { PushBody } from '../../src/upstream/body-source.js';

/** A body the test feeds by hand, recording whether it was resumed or cancelled. */
export class ManualBody extends PushBody {
  resumed = 0;
  cancelledWith: Error | undefined;
  /** Whether the last push was accepted without asking the producer to stop. */
  lastPushAccepted = true;

  send(chunk: string | Buffer): boolean {
    this.lastPushAccepted = this.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
    return this.lastPushAccepted;
  }
  finish(): void {
    this.end();
  }
  break(err: Error): void {
    this.fail(err);
  }
  protected resumeProducer(): void {
    this.resumed += 1;
  }
  protected cancelProducer(reason: Error): void {
    this.cancelledWith = reason;
  }
}

/** Counts each lease's releases, so a test can assert "exactly once". */
export class LeaseLog {
  readonly ends: AnswerEnd[] = [];
  lease(): { release(end: AnswerEnd): void } {
    return { release: (end) => void this.ends.push(end) };
  }
}

export function testAnswer(
  opts: {
    status?: number;
    body?: ManualBody;
    eventStream?: boolean;
    leases?: LeaseLog;
    headers?: Record<string, string>;
  } = {},
): Answer & { body: ManualBody } {
  const body = opts.body ?? new ManualBody();
  return {
    status: opts.status ?? 200,
    headers: opts.headers ?? {
      'content-type': opts.eventStream ? 'text/event-stream' : 'application/json',
    },
    body,
    eventStream: opts.eventStream ?? false,
    leases: opts.leases ? [opts.leases.lease()] : [],
    midStreamError: (cause) =>
      new GatewayError('upstream_stream_failed', `worker failed mid-response: ${String(cause)}`),
  };
}
