/** `GET /v1/models`: the model cards announced by registered workers, OpenAI list shape. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson, sendText } from '../../errors/respond.js';
import type { AppContext } from '../app-context.js';

export function listModels(_req: IncomingMessage, res: ServerResponse, app: AppContext): void {
  const models = app.registry.models();
  if (models.length === 0) {
    sendText(res, 503, 'No models available');
    return;
  }
  const created = Math.floor(Date.now() / 1000);
  sendJson(res, 200, {
    object: 'list',
    data: models.map((m) => ({ id: m.id, object: 'model', created, owned_by: m.ownedBy })),
  });
}
