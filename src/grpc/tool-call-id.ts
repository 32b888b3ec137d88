/**
 * Tool call ids as SMG mints them: `call_` and 24 hex digits of a UUIDv7 for most models;
 * Kimi-K2 numbers its calls across the whole conversation (`functions.NAME:N`, N counting the
 * calls of earlier assistant messages too), because its template renders the id into the prompt.
 */
import { uuidv7 } from '../util/uuid7.js';

export function toolCallId(model: string, name: string, index: number, history: number): string {
  if (!/kimi/i.test(model)) return `call_${uuidv7().replaceAll('-', '').slice(0, 24)}`;
  return /k3/i.test(model) ? `${name}_${history + index}` : `functions.${name}:${history + index}`;
}
