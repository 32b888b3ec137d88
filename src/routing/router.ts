import type { Answer } from './answer.js';
import type { RequestContext } from './request-context.js';

/** SMG router ids; the IGW router manager picks among these per request. */
export type RouterType = 'http-regular' | 'http-pd';

/**
 * A router turns one inference request into an answer: it selects worker(s), sends, and returns
 * the answer with every lease it still holds attached (the writer releases them). A request it
 * cannot answer is thrown as a GatewayError, with everything it took already released.
 */
export interface Router {
  readonly type: RouterType;
  route(ctx: RequestContext): Promise<Answer>;
}
