/**
 * Pieces the three request builders share. The builders produce plain objects with the proto's
 * snake_case field names (proto-loader runs with keepCase), which grpc-js serializes through
 * `fromObject`: an absent key stays unset on the wire, which is how a proto3 `optional` field is
 * left out.
 */
import { I32_MAX, I32_MIN } from '../util/rust-int-limits.js';
import type { Constraint, SamplingInput } from './types.js';

/** SGLang's and TokenSpeed's constraint oneof members (their SamplingParams share the names). */
export type SchedulerConstraint =
  | { regex: string }
  | { json_schema: string }
  | { ebnf_grammar: string }
  | { structural_tag: string };

/**
 * SGLang and TokenSpeed have no `json_object` member, so SMG sends the schema that means "any
 * JSON object" instead.
 */
export const ANY_OBJECT_SCHEMA = '{"type":"object"}';

export function schedulerConstraint(c: Constraint | undefined): SchedulerConstraint | undefined {
  if (c === undefined) return undefined;
  switch (c.kind) {
    case 'json_object':
      return { json_schema: ANY_OBJECT_SCHEMA };
    case 'json_schema':
      return { json_schema: c.value };
    case 'regex':
      return { regex: c.value };
    case 'ebnf':
      return { ebnf_grammar: c.value };
    case 'structural_tag':
      return { structural_tag: c.value };
  }
}

/** Clamps to the int32 range, as SMG does for a seed before it goes into vLLM's int32 field. */
export function clampInt32(n: number): number {
  return Math.min(I32_MAX, Math.max(I32_MIN, Math.trunc(n)));
}

/**
 * Copies a logit-bias map (string keys on SGLang and TokenSpeed); undefined when empty so the
 * map field is simply absent.
 */
export function copyLogitBias(
  bias: Readonly<Record<string, number>> | undefined,
): Record<string, number> | undefined {
  if (bias === undefined) return undefined;
  const keys = Object.keys(bias);
  if (keys.length === 0) return undefined;
  const out: Record<string, number> = {};
  for (const k of keys) out[k] = bias[k] as number;
  return out;
}

/**
 * The scalar sampling fields SGLang and TokenSpeed both take, with SMG's defaults for the ones the
 * client left out (proto3 zeros are not the engines' defaults, so every one is sent).
 */
export function schedulerScalars(s: SamplingInput): {
  temperature: number;
  top_p: number;
  top_k: number;
  min_p: number;
  frequency_penalty: number;
  presence_penalty: number;
  repetition_penalty: number;
} {
  return {
    temperature: s.temperature ?? 1,
    top_p: s.topP ?? 1,
    top_k: s.topK ?? -1,
    min_p: s.minP ?? 0,
    frequency_penalty: s.frequencyPenalty ?? 0,
    presence_penalty: s.presencePenalty ?? 0,
    repetition_penalty: s.repetitionPenalty ?? 1,
  };
}
