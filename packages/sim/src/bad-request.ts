// The error a request parser throws for a body it refuses (400 invalid_request_error). Shared by
// the parsers that build a plan together (request-parse.ts and the answer rules it reads), so one
// `instanceof` catches them all.

/** A client error in a request body; its message is the 400 answer's. */
export class BadRequest extends Error {}
