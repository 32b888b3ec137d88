// The structured-output fields of an HTTP inference body and the answer that honours them: the
// same text the gRPC engine answers for the same constraint (grpc-constraint.ts), so a JSON schema
// gets the same value over either transport. Read where the engines read them:
// - chat and completions, every runtime: `response_format` `{type: "json_object"}` or
//   `{type: "json_schema", json_schema: {schema}}` (`text` and SGLang's `structural_tag` leave
//   the answer free);
// - vLLM chat and completions: `guided_json` (an object or its JSON text), `guided_choice`, and
//   their newer spelling `structured_outputs: {json | json_object | choice}`;
// - SGLang's /generate: `sampling_params.json_schema` (JSON text).
// Regex, EBNF and grammar constraints (SGLang's `regex`/`ebnf`, vLLM's `guided_regex`/
// `guided_grammar`) are accepted and ignored: the answer is what it would be without them.
import type { GrpcConstraint } from './grpc-constraint.js';
import type { SimRuntime } from './options.js';
import { BadRequest } from './bad-request.js';
import { constraintAnswer } from './grpc-constraint.js';

type Body = Record<string, unknown>;

/**
 * The answer text a body's constraint forces, or undefined when it leaves the answer free.
 * `generate`: the body is SGLang's /generate, whose constraint sits in `sampling_params`.
 */
export function readHttpConstraint(
  body: Body,
  generate: boolean,
  runtime: SimRuntime | undefined,
): string | undefined {
  const c = generate
    ? generateConstraint(body['sampling_params'])
    : (responseFormat(body['response_format']) ??
      (runtime === 'vllm' ? vllmConstraint(body) : undefined));
  return constraintAnswer(c);
}

function responseFormat(rf: unknown): GrpcConstraint | undefined {
  if (rf === undefined || rf === null) return undefined;
  if (!isObject(rf)) throw new BadRequest("'response_format' must be an object");
  switch (rf['type']) {
    case 'text':
    case 'structural_tag':
      return undefined;
    case 'json_object':
      return { kind: 'json_object' };
    case 'json_schema': {
      const js = rf['json_schema'];
      if (!isObject(js)) throw new BadRequest("'response_format.json_schema' must be an object");
      // `schema` is optional in OpenAI's API; without it any JSON object will do.
      return { kind: 'json_schema', schema: js['schema'] ?? { type: 'object' } };
    }
    default:
      throw new BadRequest(
        "'response_format.type' must be 'text', 'json_object', 'json_schema' or 'structural_tag'",
      );
  }
}

function vllmConstraint(body: Body): GrpcConstraint | undefined {
  const so = body['structured_outputs'];
  const outputs = isObject(so) ? so : {};
  const json = outputs['json'] ?? body['guided_json'];
  if (json !== undefined && json !== null) return { kind: 'json_schema', schema: schemaOf(json) };
  if (outputs['json_object'] === true) return { kind: 'json_object' };
  const choice = outputs['choice'] ?? body['guided_choice'];
  if (Array.isArray(choice)) {
    return { kind: 'choice', choices: choice.filter((c): c is string => typeof c === 'string') };
  }
  return undefined;
}

function generateConstraint(params: unknown): GrpcConstraint | undefined {
  const text = isObject(params) ? params['json_schema'] : undefined;
  if (text === undefined || text === null) return undefined;
  // SGLang's SamplingParams.json_schema is a string; its grammar backend compiles it.
  if (typeof text !== 'string') throw new BadRequest("'json_schema' must be a string");
  return { kind: 'json_schema', schema: schemaOf(text) };
}

/** A schema given as an object or as its JSON text (vLLM takes both). */
function schemaOf(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v) as unknown;
  } catch (err) {
    throw new BadRequest(`json_schema is not valid JSON: ${(err as Error).message}`);
  }
}

function isObject(v: unknown): v is Body {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
