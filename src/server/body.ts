/**
 * Reads a request body once into a Buffer under `--max-payload-size` and the body deadline, and
 * parses JSON once.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { systemClock, type Clock } from '@switchyard/kit';
import { GatewayError } from '../errors/gateway-error.js';
import type { JsonObject } from '../util/json.js';
import { budgetExhausted, type BodyBudget, type BodyCharge } from './body-budget.js';
import { assertJsonDepth } from '../routing/request-limits.js';

/** Both answers leave unread bytes on the socket: closing it is cheaper than draining them. */
const CLOSE_CONNECTION = { connection: 'close' };

function tooLarge(message: string): GatewayError {
  return new GatewayError('payload_too_large', message, { headers: CLOSE_CONNECTION });
}

/**
 * Resolves with the whole body, or rejects with `413 payload_too_large` past `limit` bytes, or
 * `408 request_body_timeout` when the body is still incomplete `deadlineMs` after the read began.
 * The deadline covers the whole body, not the gap between chunks, so a client trickling a byte at
 * a time is cut as surely as one that went silent. A client that hangs up mid-body rejects with a
 * plain Error (nobody is left to answer).
 *
 * The bytes are charged to `budget` as they arrive, the declared length up front so a body that
 * cannot fit is refused (`503 request_body_budget_exhausted`) before any byte is read. The Buffer
 * lives until the response closes (retries resend it), so that is when the charge is released,
 * whichever way the request ends.
 */
export function readBody(
  req: IncomingMessage,
  res: ServerResponse,
  limit: number,
  deadlineMs: number,
  budget: BodyBudget,
  clock: Clock = systemClock,
): Promise<Buffer> {
  const charge = budget.open();
  res.once('close', () => charge.release());
  return readChargedBody(req, charge, limit, deadlineMs, budget.capacity, clock);
}

/**
 * `readBody` for a caller that opened the charge itself and releases it when the response
 * closes (the inference handler, which releases everything a request holds in one listener).
 */
export function readChargedBody(
  req: IncomingMessage,
  charge: BodyCharge,
  limit: number,
  deadlineMs: number,
  capacity: number,
  clock: Clock = systemClock,
): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    return Promise.reject(
      tooLarge(`Request body of ${declared} bytes exceeds the limit of ${limit} bytes`),
    );
  }
  if (Number.isFinite(declared) && !charge.holdUpTo(declared)) {
    return Promise.reject(budgetExhausted(capacity));
  }
  return collect(req, limit, deadlineMs, charge, capacity, clock);
}

function collect(
  req: IncomingMessage,
  limit: number,
  deadlineMs: number,
  charge: BodyCharge,
  capacity: number,
  clock: Clock,
): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (err: Error | undefined): void => {
      clock.clearTimer(timer);
      req.off('data', onData).off('end', onEnd).off('error', onError).off('close', onClose);
      if (err) {
        // Stop pulling bytes the answer will not use; the socket closes after the answer.
        req.pause();
        reject(err);
        return;
      }
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) settle(tooLarge(`Request body exceeds the limit of ${limit} bytes`));
      else if (!charge.holdUpTo(size)) settle(budgetExhausted(capacity));
      else chunks.push(chunk);
    };
    const onEnd = (): void => settle(undefined);
    const onError = (err: Error): void => settle(err);
    // 'close' before 'end' is a client that hung up mid-body.
    const onClose = (): void =>
      settle(new Error('client closed the connection before the request body ended'));
    const timer = clock.setTimer(deadlineMs, () => {
      const secs = deadlineMs / 1000;
      settle(
        new GatewayError(
          'request_body_timeout',
          `Request body was not complete after ${secs} seconds`,
          { headers: CLOSE_CONNECTION },
        ),
      );
    });
    req.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}

/** `fatal`: a body that is not UTF-8 is refused, never forwarded raw as U+FFFD-replaced text. */
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Parses a JSON object body; anything else is a 400 that never reaches a worker. The nesting
 * depth is bounded here, once, so no later recursive walk of the body can overflow the stack.
 */
export function parseJsonObject(raw: Buffer): JsonObject {
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    throw new GatewayError('invalid_json', 'Request body is not valid UTF-8');
  }
  assertJsonDepth(raw);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new GatewayError(
      'invalid_json',
      `Request body is not valid JSON: ${(err as Error).message}`,
    );
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new GatewayError('invalid_body', 'Request body must be a JSON object');
  }
  return value as JsonObject;
}
