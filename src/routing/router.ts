import type { ServerResponse } from 'node:http';
import type { RequestContext } from './request-context.js';

/** SMG router ids; the IGW router manager picks among these per request. */
export type RouterType = 'http-regular' | 'http-pd';

/**
 * A router answers one inference request completely: it selects worker(s), forwards, relays,
 * and releases every lease it took. Errors before the response head are thrown as
 * GatewayError for the caller to write; after the head they are written in-stream.
 */
export interface Router {
  readonly type: RouterType;
  route(ctx: RequestContext, res: ServerResponse): Promise<void>;
}
