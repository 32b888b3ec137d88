// POST /v1/messages/count_tokens. The engines answer it from the tokenizer and the chat
// template alone, without scheduling anything, so the simulator counts the prompt /v1/messages
// would plan and answers at once: no engine slot, no faults, no completed/failed counter (the
// request is still counted by path and recorded as `lastRequest`).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { WorkerContext } from './worker-context.js';
import { readJsonBody, sendJson } from './http-io.js';
import { countMessagesTokens } from './messages-parse.js';
import { anthropicErrorBody } from './messages-responses.js';

export async function handleCountTokens(
  w: WorkerContext,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
): Promise<void> {
  const read = await readJsonBody(req, res, anthropicErrorBody);
  if (!read.ok) return;
  w.stats.recordPost(path, req.headers, read.body);
  const counted = countMessagesTokens(read.body, {
    model: w.opts.model,
    outputTokens: w.opts.outputTokens,
  });
  if (!counted.ok) {
    sendJson(res, 400, anthropicErrorBody(400, counted.message, 'invalid_request_error'));
    return;
  }
  sendJson(res, 200, { input_tokens: counted.inputTokens });
}
