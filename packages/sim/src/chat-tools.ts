// A chat request's `tools` and `tool_choice`, as the engines' OpenAI servers read them (vLLM with
// `--enable-auto-tool-choice --tool-call-parser hermes`, SGLang with `--tool-call-parser qwen25`):
// whether the tool parser reads the answer, and which function a constrained engine must call.
// Under `tool_choice: "required"` or a named function the engines constrain decoding to a call
// (a JSON schema built from the tools); the simulator answers that call directly, its arguments
// the value json-schema-value.ts gives the function's parameters schema.
import { BadRequest } from './bad-request.js';
import { valueForSchema } from './json-schema-value.js';
import { CALL_CLOSE, CALL_OPEN, pythonJson } from './tool-markup.js';

type Body = Record<string, unknown>;

export interface ToolRules {
  /** Tools were given and `tool_choice` is not `none`: the tool parser reads the answer. */
  parse: boolean;
  /** `required` (the first tool) or a named function: the call a constrained engine makes. */
  forced: { name: string; parameters: unknown } | undefined;
}

const CHOICE_MESSAGE =
  "'tool_choice' must be 'none', 'auto', 'required' or {type: 'function', function: {name}}";

/** The tool rules of a chat body; undefined when it has no tools and no tool_choice. */
export function readToolRules(body: Body): ToolRules | undefined {
  const tools = readTools(body['tools']);
  const choice = body['tool_choice'];
  if (tools === undefined && (choice === undefined || choice === null)) return undefined;
  const list = tools ?? [];
  const mode = readChoice(choice);
  if (mode === 'none' || mode === 'auto') {
    return { parse: mode === 'auto' && list.length > 0, forced: undefined };
  }
  // vLLM: "When using `tool_choice`, `tools` must be set."
  if (list.length === 0) throw new BadRequest(`'tool_choice' ${describe(mode)} needs 'tools'`);
  if (mode === 'required') return { parse: true, forced: list[0] };
  const forced = list.find((t) => t.name === mode.name);
  if (forced === undefined) {
    throw new BadRequest(`'tool_choice' names function '${mode.name}', which is not in 'tools'`);
  }
  return { parse: true, forced };
}

/**
 * The answer text of a forced call, in the markup the tool parser reads, so a forced call is
 * parsed, streamed and converted like one the prompt asked for.
 */
export function forcedCallText(forced: { name: string; parameters: unknown }): string {
  const value = valueForSchema(forced.parameters);
  const args = typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {};
  return `${CALL_OPEN}\n${pythonJson({ name: forced.name, arguments: args })}\n${CALL_CLOSE}`;
}

function readTools(tools: unknown): { name: string; parameters: unknown }[] | undefined {
  if (tools === undefined || tools === null) return undefined;
  if (!Array.isArray(tools)) throw new BadRequest("'tools' must be an array");
  return tools.map((t: unknown, i) => {
    const fn = isObject(t) ? t['function'] : undefined;
    if (!isObject(t) || (t['type'] !== undefined && t['type'] !== 'function') || !isObject(fn)) {
      throw new BadRequest(`'tools[${i}]' must be {type: 'function', function: {name, …}}`);
    }
    if (typeof fn['name'] !== 'string' || fn['name'] === '') {
      throw new BadRequest(`'tools[${i}].function.name' must be a non-empty string`);
    }
    return { name: fn['name'], parameters: fn['parameters'] };
  });
}

type ChoiceMode = 'none' | 'auto' | 'required' | { name: string };

function readChoice(choice: unknown): ChoiceMode {
  if (choice === undefined || choice === null) return 'auto';
  if (choice === 'none' || choice === 'auto' || choice === 'required') return choice;
  const fn = isObject(choice) ? choice['function'] : undefined;
  if (isObject(choice) && choice['type'] === 'function' && isObject(fn)) {
    if (typeof fn['name'] === 'string') return { name: fn['name'] };
  }
  throw new BadRequest(CHOICE_MESSAGE);
}

function describe(mode: 'required' | { name: string }): string {
  return mode === 'required' ? '"required"' : `naming '${mode.name}'`;
}

function isObject(v: unknown): v is Body {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
