/**
 * SMG's parser admin routes: `POST /parse/function_call` and `POST /parse/reasoning` run one of
 * the gateway's tool-call or reasoning parsers, by name, on a text the caller gives, and answer
 * with SMG's shapes (`{remaining_text, tool_calls, success}`, `{normal_text, reasoning_text,
 * success}`; a failure is `{error, success: false}` with 400).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendJson } from '../../errors/respond.js';
import { reasoningParserNamed, toolParserNamed } from '../../parsers/catalog.js';
import type { JsonObject } from '../../util/json.js';
import type { AppContext } from '../app-context.js';
import { readAdminObject } from './admin-json.js';

function failed(res: ServerResponse, message: string): void {
  sendJson(res, 400, { error: message, success: false });
}

/** The body's `text` and the parser name field, or undefined once the 400 was sent. */
async function readParseRequest(
  req: IncomingMessage,
  res: ServerResponse,
  app: AppContext,
  nameField: string,
): Promise<{ text: string; name: string; body: JsonObject } | undefined> {
  const read = await readAdminObject(req, res, app);
  if (read === undefined) return undefined;
  if ('invalid' in read) {
    failed(res, `Invalid JSON body: ${read.invalid}`);
    return undefined;
  }
  const { text } = read.body;
  const name = read.body[nameField];
  if (typeof text !== 'string' || typeof name !== 'string') {
    failed(res, `'text' and '${nameField}' must be strings`);
    return undefined;
  }
  return { text, name, body: read.body };
}

export async function parseFunctionCall(
  req: IncomingMessage,
  res: ServerResponse,
  app: AppContext,
): Promise<void> {
  const r = await readParseRequest(req, res, app, 'tool_call_parser');
  if (r === undefined) return;
  const parser = toolParserNamed(r.name);
  if (parser === undefined) {
    failed(res, `Unknown tool parser: ${r.name}`);
    return;
  }
  const { content, calls } = parser.parse(r.text);
  sendJson(res, 200, {
    remaining_text: content,
    tool_calls: calls.map((c) => ({ function: { name: c.name, arguments: c.arguments } })),
    success: true,
  });
}

export async function parseReasoning(
  req: IncomingMessage,
  res: ServerResponse,
  app: AppContext,
): Promise<void> {
  const r = await readParseRequest(req, res, app, 'reasoning_parser');
  if (r === undefined) return;
  const parser = reasoningParserNamed(r.name);
  if (parser === undefined) {
    failed(res, `Unknown reasoning parser: ${r.name}`);
    return;
  }
  // A fresh parse of a whole text, as SMG's: it starts in reasoning only for models that never
  // print the opening tag.
  const { reasoning, content } = parser.parse(r.text, {
    inReasoning: parser.alwaysStartsInReasoning,
  });
  sendJson(res, 200, { normal_text: content, reasoning_text: reasoning, success: true });
}
