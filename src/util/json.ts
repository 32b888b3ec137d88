/** A parsed JSON object body: what the edge hands to routing and PD once it is known to be one. */
export type JsonObject = Record<string, unknown>;
