/**
 * The request id, decided once per request at the edge as SMG's global RequestIdLayer
 * (middleware/request_id.rs): taken from the first configured header that carries one, else
 * generated in OpenAI's style for the route, then echoed as `x-request-id` on every response of
 * the main listener (errors, probes and admin routes included) and sent to the worker.
 */
import { randomFillSync } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { dropConnectionNominated } from '../upstream/headers.js';

/** SMG's list when `--request-id-headers` is not given (server.rs); a given list replaces it. */
export const DEFAULT_REQUEST_ID_HEADERS: readonly string[] = [
  'x-request-id',
  'x-correlation-id',
  'x-trace-id',
  'request-id',
];

/** The header names to read, lower-cased (Node lower-cases incoming names). */
export function requestIdHeaderNames(configured: readonly string[]): readonly string[] {
  return (configured.length > 0 ? configured : DEFAULT_REQUEST_ID_HEADERS).map((name) =>
    name.toLowerCase(),
  );
}

/** SMG's prefixes by route suffix; `/chat/completions` is tested before `/completions`. */
const PREFIXES: readonly (readonly [suffix: string, prefix: string])[] = [
  ['/chat/completions', 'chatcmpl-'],
  ['/completions', 'cmpl-'],
  ['/generate', 'gnt-'],
  ['/responses', 'resp-'],
  ['/messages', 'msg_'],
];

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const ALPHABET_CODES = Buffer.from(ALPHABET, 'latin1');
const RANDOM_CHARS = 24;

/**
 * Id characters drawn 256 ids at a time: one `randomFillSync` per id cost about 8 µs of the
 * gateway's CPU per request in bench/overhead's profile, and `crypto.randomUUID` pools the same
 * way. The random bytes are mapped to alphabet characters once per refill, so an id is one
 * latin1 slice of the pool rather than 24 string appends.
 */
const pool = Buffer.alloc(RANDOM_CHARS * 256);
let poolOffset = pool.length;

function randomChars(): string {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    for (let i = 0; i < pool.length; i++) {
      pool[i] = ALPHABET_CODES[(pool[i] as number) % ALPHABET_CODES.length] as number;
    }
    poolOffset = 0;
  }
  const chars = pool.toString('latin1', poolOffset, poolOffset + RANDOM_CHARS);
  poolOffset += RANDOM_CHARS;
  return chars;
}

function prefixFor(pathname: string): string {
  for (const [suffix, prefix] of PREFIXES) if (pathname.endsWith(suffix)) return prefix;
  return 'req-';
}

/**
 * A fresh id such as `chatcmpl-…` with 24 random alphanumerics, as SMG generates. Mapping a
 * byte modulo 62 favours a few characters slightly; an id only has to be unique, and 24 such
 * characters carry well over 128 random bits.
 */
export function generateRequestId(pathname: string): string {
  return prefixFor(pathname) + randomChars();
}

/**
 * The first non-empty value among `names`, else a generated id. `headers` must already be
 * without the client's `Connection`-nominated headers: those were meant for one hop only.
 */
export function pickRequestId(
  headers: IncomingHttpHeaders,
  names: readonly string[],
  pathname: string,
): string {
  for (const name of names) {
    const value = headers[name];
    const first = Array.isArray(value) ? value[0] : value;
    if (first) return first;
  }
  return generateRequestId(pathname);
}

/** What the edge decided about a request, for the handlers. */
interface EdgeDecision {
  readonly id: string;
  readonly headers: IncomingHttpHeaders;
}

/**
 * Where the decision is kept: a property of the request object. A WeakMap entry per request
 * costs about ten times as much to add (bench/micro/request-path.bench.ts).
 */
const DECIDED = Symbol('switchyard.edgeDecision');

interface DecidedRequest extends IncomingMessage {
  [DECIDED]?: EdgeDecision;
}

/**
 * Decides the request's id from the client's headers without its `Connection`-nominated ones,
 * records both for the handlers, and sets `x-request-id` on the response. Run once per request.
 */
export function assignRequestId(
  req: IncomingMessage,
  res: ServerResponse,
  names: readonly string[],
  pathname: string,
): string {
  const headers = dropConnectionNominated(req.headers);
  const id = pickRequestId(headers, names, pathname);
  (req as DecidedRequest)[DECIDED] = { id, headers };
  res.setHeader('x-request-id', id);
  return id;
}

/** The id `assignRequestId` gave this request (a generated one if it was never assigned). */
export function requestIdOf(req: IncomingMessage): string {
  return (
    (req as DecidedRequest)[DECIDED]?.id ??
    generateRequestId((req.url ?? '/').split('?', 1)[0] ?? '/')
  );
}

/**
 * The client's headers the gateway may act on and forward: without those its `Connection`
 * header nominated, which were meant for the gateway's hop only (RFC 9110 §7.6.1).
 */
export function clientHeadersOf(req: IncomingMessage): IncomingHttpHeaders {
  return (req as DecidedRequest)[DECIDED]?.headers ?? dropConnectionNominated(req.headers);
}
