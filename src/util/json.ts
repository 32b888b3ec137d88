/** A parsed JSON object body: what the edge hands to routing and PD once it is known to be one. */
export type JsonObject = Record<string, unknown>;

/** A JSON object (not null, not an array): what a field must be to be read as one. */
export function isJsonObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
