// The seam between an inference session and a PD protocol. A session runs a request through the
// engine and writes the response; a PdLeg adds what one leg of a disaggregated request does around
// that: SGLang's prefill waits for its decode peer before computing and hands the KV over when it
// finishes; a decode fetches the KV once admitted; vLLM's prefill pins KV and returns the handoff
// parameters. Legs never write to the response themselves: they call back into the host.

/** What a leg may ask of its session. */
export interface PdHost {
  /** Submits the request to the engine (after the prefill's bootstrap wait). */
  proceed(): void;
  /** Ends the request with an engine error (JSON error, or an SSE error event mid-stream). */
  fail(status: number, message: string, type: string): void;
  /** The remote KV arrived: decode without computing the prompt. */
  kvReady(): void;
  /** No remote KV: compute the prompt here. */
  recompute(): void;
}

export interface PdLeg {
  /** The request's prompt KV comes from a peer (decode legs). */
  readonly remoteKv: boolean;
  /** If present, called instead of `host.proceed()`; the leg proceeds or fails later. */
  prepare?(host: PdHost): void;
  /** remoteKv: the engine admitted the request (slot and KV pre-allocated). */
  onAdmitted?(host: PdHost): void;
  /** The engine produced every token; returns extra top-level fields for the JSON response. */
  onFinished?(): Record<string, unknown> | undefined;
  /** The request ended without finishing (failed, aborted, dropped). Idempotent. */
  onEnd?(): void;
}
