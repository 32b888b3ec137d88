/**
 * SMG's tokenizer admin routes (`routers/tokenize/handlers.rs`), with its bodies and statuses:
 * `POST /v1/tokenizers` queues a load and answers `202` (`409` for a name already loaded, `503`
 * when the queue is full), `GET /v1/tokenizers` lists every tokenizer by name, and
 * `GET`/`DELETE /v1/tokenizers/{id}` and `GET /v1/tokenizers/{id}/status` take an id or a name.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson } from '../../errors/respond.js';
import type { CatalogEntry } from '../../tokenizer/catalog.js';
import type { AppContext } from '../app-context.js';
import {
  FieldReader,
  readJsonObject,
  refuseLoneSurrogates,
  sendTypedError,
  sendUnprocessable,
} from './token-routes-io.js';

/** SMG's `TokenizerInfo`; `vocab_size` without added tokens, as SMG's `vocab_size()`. */
function info(e: CatalogEntry): Record<string, unknown> {
  return {
    id: e.id,
    name: e.name,
    source: e.tokenizer.source,
    vocab_size: e.tokenizer.baseVocabSize,
  };
}

export async function addTokenizer(
  req: IncomingMessage,
  res: ServerResponse,
  app: AppContext,
): Promise<void> {
  const body = await readJsonObject(req, res, app);
  if (body === undefined) return;
  const fields = new FieldReader(body);
  const name = fields.string('name');
  const source = fields.string('source');
  const chatTemplatePath = fields.optionalString('chat_template_path');
  if (fields.problem !== undefined || name === undefined || source === undefined) {
    sendUnprocessable(res, fields.problem ?? 'missing field `name`');
    return;
  }
  const strings = [name, source, ...(chatTemplatePath === undefined ? [] : [chatTemplatePath])];
  if (refuseLoneSurrogates(res, 'name, source or chat_template_path', strings)) return;
  const submitted = app.tokenizerLoads.submit({
    name,
    source,
    chatTemplatePath,
    failOnDuplicate: true,
  });
  switch (submitted.kind) {
    case 'duplicate':
      sendJson(res, 409, {
        id: submitted.id,
        status: 'failed',
        message: `Tokenizer '${name}' already exists`,
      });
      return;
    case 'full':
      sendJson(res, 503, { id: '', status: 'failed', message: submitted.message });
      return;
    case 'queued':
      sendJson(res, 202, {
        id: submitted.id,
        status: 'pending',
        message: `Tokenizer '${name}' registration job submitted. Loading from: ${source}`,
      });
      return;
  }
}

export function listTokenizers(_req: IncomingMessage, res: ServerResponse, app: AppContext): void {
  sendJson(res, 200, { tokenizers: app.tokenizerCatalog.list().map(info) });
}

/** `GET` and `DELETE /v1/tokenizers/{id}`: by id, else by name. */
export function tokenizerById(
  req: IncomingMessage,
  res: ServerResponse,
  app: AppContext,
  key: string,
): void {
  if (req.method === 'DELETE') {
    const removed = app.tokenizerCatalog.remove(key);
    if (removed === undefined) {
      sendJson(res, 404, { success: false, message: `Tokenizer '${key}' not found` });
      return;
    }
    app.logger.info({ tokenizer: removed.name, id: removed.id }, 'tokenizer removed');
    sendJson(res, 200, {
      success: true,
      message: `Tokenizer '${removed.name}' removed successfully`,
    });
    return;
  }
  const entry = app.tokenizerCatalog.byIdOrName(key);
  if (entry === undefined) {
    sendTypedError(res, 404, 'tokenizer_not_found', `Tokenizer '${key}' not found`);
    return;
  }
  sendJson(res, 200, info(entry));
}

/**
 * A loaded tokenizer (by id or name) is `completed`; otherwise the job's own status (jobs are
 * known by id only), as SMG.
 */
export function tokenizerStatus(
  _req: IncomingMessage,
  res: ServerResponse,
  app: AppContext,
  key: string,
): void {
  const entry = app.tokenizerCatalog.byIdOrName(key);
  if (entry !== undefined) {
    sendJson(res, 200, {
      id: entry.id,
      status: 'completed',
      message: `Tokenizer '${entry.name}' is loaded and ready`,
      vocab_size: entry.tokenizer.baseVocabSize,
    });
    return;
  }
  const job = app.tokenizerLoads.status(key);
  if (job !== undefined) {
    sendJson(res, 200, {
      id: key,
      status: job.status,
      message: job.message ?? `Tokenizer job is ${job.status}`,
    });
    return;
  }
  sendTypedError(res, 404, 'not_found', `Tokenizer '${key}' not found and no pending job`);
}
