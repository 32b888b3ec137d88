/**
 * The arguments of a call whose format writes them as JSON (DeepSeek, Kimi K2). The model's text
 * is kept, trimmed, rather than re-serialised: a parse and re-print would round integers past
 * 2^53 and rewrite numbers such as `1.0`.
 */

/**
 * The arguments text for `raw`, or undefined when `raw` is not JSON. A JSON value other than an
 * object is rejected, or wrapped as `{"value": …}` with `nonObject: 'wrap'` (SMG's DeepSeek rule).
 */
export function jsonArguments(raw: string, nonObject: 'reject' | 'wrap'): string | undefined {
  const text = raw.trim();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return text;
  return nonObject === 'wrap' ? `{"value":${text}}` : undefined;
}
