// Minimal request/response helpers for the simulator's node:http servers.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorBody } from './responses.js';

/** Larger than any prompt a test sends; guards the simulator against runaway bodies. */
const MAX_BODY_BYTES = 64 * 1024 * 1024;

/** `raw` is the body text as received: bootstrap rooms are read from it digit for digit. */
export type JsonBody = { ok: true; body: unknown; raw: string } | { ok: false };

class BodyTooLarge extends Error {}

/** Builds an error body in a surface's shape (OpenAI's by default, Anthropic's on /v1/messages). */
export type ErrorFormat = (status: number, message: string, type: string) => unknown;

/**
 * Reads and parses a JSON body. On failure it answers the request itself (400 bad JSON, 413 too
 * large) in the `errors` shape or, if the client vanished mid-body, answers nothing; either way it
 * returns `ok: false`.
 */
export async function readJsonBody(
  req: IncomingMessage,
  res: ServerResponse,
  errors: ErrorFormat = errorBody,
): Promise<JsonBody> {
  let raw: string;
  try {
    raw = await readText(req);
  } catch (err) {
    if (err instanceof BodyTooLarge) {
      sendJson(res, 413, errors(413, 'request body too large', 'payload_too_large'));
    }
    return { ok: false };
  }
  try {
    return { ok: true, body: JSON.parse(raw) as unknown, raw };
  } catch {
    sendJson(res, 400, errors(400, 'request body is not valid JSON', 'invalid_json'));
    return { ok: false };
  }
}

async function readText(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > MAX_BODY_BYTES) throw new BodyTooLarge();
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const json = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(json),
  });
  res.end(json);
}

export function sendText(
  res: ServerResponse,
  status: number,
  text: string,
  type = 'text/plain',
): void {
  res.writeHead(status, {
    'content-type': `${type}; charset=utf-8`,
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

export function sendEmpty(res: ServerResponse, status: number): void {
  res.writeHead(status, { 'content-length': 0 });
  res.end();
}
