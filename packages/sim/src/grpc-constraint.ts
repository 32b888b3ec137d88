// The structured-output constraint of a gRPC GenerateRequest and the answer that honours it. The
// three protos hold it in a `constraint` oneof of SamplingParams: SGLang and TokenSpeed `regex`,
// `json_schema`, `ebnf_grammar`, `structural_tag`; vLLM `json_schema`, `regex`, `grammar`,
// `structural_tag`, `json_object` (a bool) and `choice` (a list). proto-loader's `oneofs` option
// names the member that is set. The simulator can answer a JSON schema, JSON object or choice
// exactly; a regex, grammar or structural tag is recorded but does not shape the answer.

import { valueForSchema } from './json-schema-value.js';

type Msg = Record<string, unknown>;

export type GrpcConstraint =
  | { kind: 'json_schema'; schema: unknown }
  | { kind: 'json_object' }
  | { kind: 'choice'; choices: string[] }
  | { kind: 'regex' | 'grammar' | 'ebnf_grammar' | 'structural_tag' };

const IGNORED = new Set(['regex', 'grammar', 'ebnf_grammar', 'structural_tag'] as const);

/**
 * The constraint of decoded SamplingParams, none, or a message for INVALID_ARGUMENT (a schema that
 * is not JSON, which the engines' grammar compilers refuse too).
 */
export function readConstraint(sp: Msg): GrpcConstraint | undefined | string {
  const kind = sp['constraint'];
  if (kind === 'json_schema') {
    const text = sp['json_schema'];
    try {
      return { kind, schema: JSON.parse(typeof text === 'string' ? text : '') as unknown };
    } catch (err) {
      return `json_schema is not valid JSON: ${(err as Error).message}`;
    }
  }
  if (kind === 'json_object') return sp['json_object'] === true ? { kind } : undefined;
  if (kind === 'choice') {
    const list = (sp['choice'] as Msg | undefined)?.['choices'];
    const choices = Array.isArray(list)
      ? list.filter((c): c is string => typeof c === 'string')
      : [];
    return { kind, choices };
  }
  for (const k of IGNORED) if (kind === k) return { kind: k };
  return undefined;
}

/** The answer text a constraint forces, or undefined when it leaves the answer free. */
export function constraintAnswer(c: GrpcConstraint | undefined): string | undefined {
  switch (c?.kind) {
    case 'json_schema':
      return JSON.stringify(valueForSchema(c.schema)) ?? '{}';
    case 'json_object':
      // The smallest JSON object: what the gateway's `response_format: json_object` expects.
      return '{}';
    case 'choice':
      return c.choices[0];
    case 'regex':
    case 'grammar':
    case 'ebnf_grammar':
    case 'structural_tag':
    case undefined:
      return undefined;
  }
}
