/**
 * Reading and answering for SMG's token routes (`/v1/tokenize`, `/v1/detokenize`,
 * `/v1/tokenizers*`). SMG takes their bodies with axum's plain `Json` extractor, so a client sees
 * `415` without a JSON `Content-Type`, `400` for bytes that are not JSON, and `422` for JSON of
 * the wrong shape. Switchyard keeps those statuses but answers them in its error envelope with
 * stable codes (`unsupported_media_type`, `invalid_json`, `unprocessable_entity`) instead of
 * axum's plain-text bodies. What the handlers themselves refuse uses SMG's own route body,
 * `{"error":{"message","type"}}`, with the type also in `X-SMG-Error-Code`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { GatewayError } from '../../errors/gateway-error.js';
import { recordErrorCode, sendError, sendJson } from '../../errors/respond.js';
import { assertJsonDepth } from '../../routing/request-limits.js';
import type { JsonObject } from '../../util/json.js';
import type { AppContext } from '../app-context.js';
import { readAdminBody } from './admin-json.js';

/**
 * axum's `json_content_type`: `application/json` or any `application/*+json`, parameters
 * allowed.
 */
const JSON_ESSENCE = /^application\/(?:[^\s/;]+\+)?json$/;

export function isJsonContentType(header: string | undefined): boolean {
  if (header === undefined) return false;
  return JSON_ESSENCE.test((header.split(';', 1)[0] ?? '').trim().toLowerCase());
}

/** `fatal`: bytes that are not UTF-8 are not JSON (serde_json refuses them too). */
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** A lone UTF-16 surrogate: JSON.parse keeps `"\ud800"`, serde_json refuses it (a 400). */
const LONE_SURROGATE = /\p{Cs}/u;

/** The body as a JSON object, or undefined once the error was sent. */
export async function readJsonObject(
  req: IncomingMessage,
  res: ServerResponse,
  app: AppContext,
): Promise<JsonObject | undefined> {
  if (!isJsonContentType(req.headers['content-type'])) {
    // The body is left unread, so the connection cannot carry another request.
    sendError(
      res,
      new GatewayError(
        'unsupported_media_type',
        'Expected request with `Content-Type: application/json`',
        { headers: { connection: 'close' } },
      ),
    );
    return undefined;
  }
  const raw = await readAdminBody(req, res, app);
  if (raw === undefined) return undefined;
  let value: unknown;
  try {
    assertJsonDepth(raw);
    value = JSON.parse(utf8.decode(raw));
  } catch (err) {
    sendError(
      res,
      err instanceof GatewayError
        ? err
        : new GatewayError(
            'invalid_json',
            `Failed to parse the request body as JSON: ${(err as Error).message}`,
          ),
    );
    return undefined;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    sendUnprocessable(res, 'Request body must be a JSON object');
    return undefined;
  }
  return value as JsonObject;
}

/** `422 unprocessable_entity`: JSON, but not the route's request shape. */
export function sendUnprocessable(res: ServerResponse, message: string): void {
  sendError(
    res,
    new GatewayError(
      'unprocessable_entity',
      `Failed to deserialize the JSON body into the target type: ${message}`,
    ),
  );
}

/** `400 invalid_json` when a string holds a lone surrogate, which is not Unicode text. */
export function refuseLoneSurrogates(
  res: ServerResponse,
  field: string,
  values: readonly string[],
): boolean {
  if (!values.some((v) => LONE_SURROGATE.test(v))) return false;
  sendError(
    res,
    new GatewayError('invalid_json', `'${field}' holds a lone UTF-16 surrogate (not Unicode text)`),
  );
  return true;
}

/** SMG's tokenize error body, `{"error":{"message","type"}}`. */
export function sendTypedError(
  res: ServerResponse,
  status: number,
  type: string,
  message: string,
): void {
  recordErrorCode(res, type);
  sendJson(res, status, { error: { message, type } });
}

/**
 * Field checks that answer with the 422 message of the first wrong field. Each returns the
 * value, or undefined after recording the problem; `problem` is then set.
 */
export class FieldReader {
  problem: string | undefined;

  constructor(private readonly body: JsonObject) {}

  string(name: string): string | undefined {
    const v = this.body[name];
    if (typeof v === 'string') return v;
    this.#fail(name, v, 'a string');
    return undefined;
  }

  /** A string, or undefined when the field is absent or null (serde's `Option<String>`). */
  optionalString(name: string): string | undefined {
    const v = this.body[name];
    if (v === undefined || v === null) return undefined;
    return this.string(name);
  }

  #fail(name: string, v: unknown, expected: string): void {
    this.problem ??=
      v === undefined ? `missing field \`${name}\`` : `\`${name}\` must be ${expected}`;
  }

  /** Records a problem found by the caller's own check of `name`. */
  fail(name: string, expected: string): void {
    this.#fail(name, this.body[name], expected);
  }
}
