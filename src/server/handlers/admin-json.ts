/**
 * The JSON object body of an admin route, read under the gateway's body limits. Each route
 * answers a body that is not a JSON object in its own error shape, so that is returned, not sent.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { GatewayError } from '../../errors/gateway-error.js';
import { sendError } from '../../errors/respond.js';
import type { JsonObject } from '../../util/json.js';
import type { AppContext } from '../app-context.js';
import { parseJsonObject, readBody } from '../body.js';

/** The body's bytes under the gateway's limits, or undefined once an error answer was sent. */
export async function readAdminBody(
  req: IncomingMessage,
  res: ServerResponse,
  app: AppContext,
): Promise<Buffer | undefined> {
  try {
    return await readBody(
      req,
      res,
      app.config.maxPayloadSize,
      app.config.requestBodyTimeoutSecs * 1000,
      app.bodyBudget,
      app.clock,
    );
  } catch (err) {
    if (err instanceof GatewayError) sendError(res, err);
    else res.destroy();
    return undefined;
  }
}

/** The body, `{ invalid }` when it is not a JSON object, or undefined once an answer was sent. */
export async function readAdminObject(
  req: IncomingMessage,
  res: ServerResponse,
  app: AppContext,
): Promise<{ body: JsonObject } | { invalid: string } | undefined> {
  const raw = await readAdminBody(req, res, app);
  if (raw === undefined) return undefined;
  try {
    return { body: parseJsonObject(raw) };
  } catch (err) {
    return { invalid: (err as Error).message };
  }
}
