/**
 * A chat request's tools as the gRPC pipeline uses them: which functions the model may call, and
 * how `tool_choice` steers it. `auto` leaves the model free and its markup is parsed from the
 * answer; `required` and a named function are enforced with a JSON-schema constraint sent to the
 * engine (SMG's fallback when no structural tag is configured): `required` makes the answer a
 * JSON array of `{name, parameters}`, a named function makes it that function's arguments.
 * `none` hides the tools from the template and parses nothing.
 */
import type { Constraint } from '../engine/types.js';
import { isJsonObject, type JsonObject } from '../util/json.js';
import { badParam } from './sampling.js';

export interface FunctionTool {
  name: string;
  /** The function's JSON schema for its arguments (an object schema). */
  parameters: unknown;
}

export type ToolMode = { kind: 'auto' } | { kind: 'required' } | { kind: 'named'; name: string };

export interface ChatTools {
  /** The tools as the chat template receives them (the request's own objects). */
  templateTools: unknown[];
  functions: FunctionTool[];
  mode: ToolMode;
  /** Calls in earlier assistant messages: Kimi-K2 numbers its call ids across the conversation. */
  historyCalls: number;
  /** `parallel_tool_calls` (default true); false keeps at most one call per answer. */
  parallel: boolean;
}

function readFunctions(tools: unknown[]): FunctionTool[] {
  return tools.map((t, i) => {
    const fn = isJsonObject(t) ? t.function : undefined;
    if (!isJsonObject(t) || (t.type !== undefined && t.type !== 'function') || !isJsonObject(fn))
      throw badParam(`'tools[${i}]' must be {"type": "function", "function": {...}}`);
    if (typeof fn.name !== 'string' || fn.name === '')
      throw badParam(`'tools[${i}].function.name' must be a non-empty string`);
    const parameters = fn.parameters ?? { type: 'object', properties: {} };
    if (!isJsonObject(parameters))
      throw badParam(`'tools[${i}].function.parameters' must be a JSON schema object`);
    return { name: fn.name, parameters };
  });
}

function readMode(choice: unknown, functions: readonly FunctionTool[]): ToolMode | 'none' {
  if (choice === undefined || choice === null || choice === 'auto') return { kind: 'auto' };
  if (choice === 'none') return 'none';
  if (choice === 'required') return { kind: 'required' };
  const fn = isJsonObject(choice) ? choice.function : undefined;
  const name = isJsonObject(fn) ? fn.name : undefined;
  if (!isJsonObject(choice) || choice.type !== 'function' || typeof name !== 'string')
    throw badParam(
      `'tool_choice' must be "none", "auto", "required" or {"type": "function", "function": {"name": ...}}`,
    );
  if (!functions.some((f) => f.name === name))
    throw badParam(`'tool_choice' names '${name}', which is not one of the request's tools`);
  return { kind: 'named', name };
}

function historyCalls(messages: unknown): number {
  if (!Array.isArray(messages)) return 0;
  let n = 0;
  for (const m of messages) {
    if (isJsonObject(m) && m.role === 'assistant' && Array.isArray(m.tool_calls))
      n += m.tool_calls.length;
  }
  return n;
}

/** The request's tools, or undefined when it has none or `tool_choice` is `none`. */
export function chatToolsOf(body: JsonObject): ChatTools | undefined {
  const tools = body.tools;
  if (tools === undefined || tools === null) {
    const choice = body.tool_choice;
    if (choice !== undefined && choice !== null && choice !== 'none' && choice !== 'auto')
      throw badParam("'tool_choice' needs 'tools'");
    return undefined;
  }
  if (!Array.isArray(tools)) throw badParam("'tools' must be a list");
  if (tools.length === 0) return undefined;
  const functions = readFunctions(tools);
  const mode = readMode(body.tool_choice, functions);
  if (mode === 'none') return undefined;
  const parallel = body.parallel_tool_calls;
  if (parallel !== undefined && parallel !== null && typeof parallel !== 'boolean')
    throw badParam("'parallel_tool_calls' must be a boolean");
  return {
    // A named function is the only tool the model is shown, as SMG filters them.
    templateTools:
      mode.kind === 'named' ? tools.filter((_, i) => functions[i]?.name === mode.name) : tools,
    functions,
    mode,
    historyCalls: historyCalls(body.messages),
    parallel: parallel !== false,
  };
}

/** The engine constraint that enforces `required` or a named function; none for `auto`. */
export function toolConstraint(tools: ChatTools): Constraint | undefined {
  const { mode, functions } = tools;
  if (mode.kind === 'auto') return undefined;
  if (mode.kind === 'named') {
    const fn = functions.find((f) => f.name === mode.name);
    return { kind: 'json_schema', value: JSON.stringify(fn?.parameters ?? { type: 'object' }) };
  }
  // A Map: a definition named `constructor` or `__proto__` is just a name here.
  const defs = new Map<string, unknown>();
  for (const f of functions) {
    const own = (f.parameters as JsonObject).$defs;
    if (!isJsonObject(own)) continue;
    for (const [k, v] of Object.entries(own)) {
      const seen = defs.get(k);
      if (seen !== undefined && JSON.stringify(seen) !== JSON.stringify(v))
        throw badParam(`Tool definition '${k}' has multiple conflicting schemas`);
      defs.set(k, v);
    }
  }
  const schema: JsonObject = {
    type: 'array',
    minItems: 1,
    ...(tools.parallel ? {} : { maxItems: 1 }),
    items: {
      type: 'object',
      anyOf: functions.map((f) => ({
        properties: { name: { type: 'string', enum: [f.name] }, parameters: f.parameters },
        required: ['name', 'parameters'],
      })),
    },
  };
  if (defs.size > 0) schema.$defs = Object.fromEntries<unknown>(defs);
  return { kind: 'json_schema', value: JSON.stringify(schema) };
}
