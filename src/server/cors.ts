/**
 * CORS on the main port, as SMG's outermost layer (server.rs `create_cors_layer`, a tower-http
 * 0.7 `CorsLayer`). Every header value is computed once at startup; per request the layer costs
 * a few `setHeader` calls, plus one `Origin` lookup with an allow-list.
 *
 * What tower-http sends, and so what is sent here:
 * - Every `OPTIONS` request is a preflight: it is answered `200` with an empty body by the
 *   layer, before routing, auth, request ids and metrics, so it never reaches a handler or a
 *   worker. tower-http does not look for `Access-Control-Request-Method`.
 * - The headers go on every answer, with or without `Origin`: `Access-Control-Allow-Origin` is
 *   `*` (no list) or the request's own origin when the list holds it (and absent otherwise);
 *   `Vary: origin` comes with a list, since the answer then depends on the origin and a cache
 *   must not hand one origin's answer to another. Preflights add the allowed methods and
 *   headers and `Max-Age`; other answers add `Access-Control-Expose-Headers`.
 * - No `Access-Control-Allow-Credentials`: with `*` a browser sends no cookies, and an
 *   `Authorization` header set by the page's script still goes through.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Preflight answers may be cached by the browser this long (SMG: 3600 s). */
const MAX_AGE_SECS = '3600';

/** With an allow-list: SMG's fixed sets. PUT is not among the methods, nor x-api-key among the headers. */
const LIST_METHODS = 'GET,POST,PATCH,DELETE,OPTIONS';
const LIST_REQUEST_HEADERS = 'content-type,authorization';
const LIST_EXPOSED_HEADERS = 'x-request-id';

type HeaderPairs = readonly (readonly [string, string])[];

/** The precomputed answer for one kind of request. */
export interface CorsHeaders {
  /** Headers put on the response the gateway goes on to write. */
  readonly regular: HeaderPairs;
  /** The whole head of a preflight answer. */
  readonly preflight: Readonly<Record<string, string>>;
}

export interface CorsPolicy {
  /** `any` without `--cors-allowed-origins`, `list` with it. */
  readonly mode: 'any' | 'list';
  /** The headers for a request from `origin` (the `Origin` header, undefined without one). */
  headersFor(origin: string | undefined): CorsHeaders;
  /**
   * Applies the policy to a request at the top of the handler. Returns true when the request
   * was a preflight and has been answered; otherwise the headers are set on `res` and the
   * request goes on to routing.
   */
  handle(req: IncomingMessage, res: ServerResponse): boolean;
}

/** `base` goes on both kinds of answer; a preflight is the whole answer, so it says its length. */
function headersOf(
  base: HeaderPairs,
  preflightOnly: HeaderPairs,
  regularOnly: HeaderPairs,
): CorsHeaders {
  return {
    regular: [...base, ...regularOnly],
    preflight: Object.fromEntries([...base, ...preflightOnly, ['content-length', '0']]),
  };
}

/** Builds the policy for `--cors-allowed-origins` (already checked: config/cors-origin.ts). */
export function createCorsPolicy(allowedOrigins: readonly string[]): CorsPolicy {
  if (allowedOrigins.length === 0) {
    const any = headersOf(
      [['access-control-allow-origin', '*']],
      [
        ['access-control-allow-methods', '*'],
        ['access-control-allow-headers', '*'],
        ['access-control-max-age', MAX_AGE_SECS],
      ],
      [['access-control-expose-headers', '*']],
    );
    return policy('any', () => any, false);
  }
  const preflightOnly = [
    ['access-control-allow-methods', LIST_METHODS],
    ['access-control-allow-headers', LIST_REQUEST_HEADERS],
    ['access-control-max-age', MAX_AGE_SECS],
  ] as const;
  const regularOnly = [['access-control-expose-headers', LIST_EXPOSED_HEADERS]] as const;
  const vary = ['vary', 'origin'] as const;
  const denied = headersOf([vary], preflightOnly, regularOnly);
  const allowed = new Map(
    allowedOrigins.map((origin) => [
      origin,
      headersOf([vary, ['access-control-allow-origin', origin]], preflightOnly, regularOnly),
    ]),
  );
  return policy(
    'list',
    (origin) => (origin === undefined ? denied : (allowed.get(origin) ?? denied)),
    true,
  );
}

function policy(
  mode: CorsPolicy['mode'],
  headersFor: (origin: string | undefined) => CorsHeaders,
  readsOrigin: boolean,
): CorsPolicy {
  return {
    mode,
    headersFor,
    handle(req, res) {
      const headers = headersFor(readsOrigin ? req.headers.origin : undefined);
      if (req.method === 'OPTIONS') {
        res.writeHead(200, headers.preflight).end();
        return true;
      }
      for (const [name, value] of headers.regular) res.setHeader(name, value);
      return false;
    },
  };
}
