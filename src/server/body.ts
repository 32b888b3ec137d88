/**
 * Reads a request body once into a Buffer under `--max-payload-size`, and parses JSON once.
 */
import type { IncomingMessage } from 'node:http';
import { GatewayError } from '../errors/gateway-error.js';
import { assertJsonDepth } from './request-limits.js';

export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    throw new GatewayError('payload_too_large', `Request body of ${declared} bytes exceeds the limit of ${limit} bytes`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      throw new GatewayError('payload_too_large', `Request body exceeds the limit of ${limit} bytes`);
    }
    chunks.push(chunk);
  }
  return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size);
}

export type JsonObject = Record<string, unknown>;

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
    throw new GatewayError('invalid_json', `Request body is not valid JSON: ${(err as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new GatewayError('invalid_body', 'Request body must be a JSON object');
  }
  return value as JsonObject;
}
