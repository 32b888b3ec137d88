/**
 * Whether a PD request skips the prefill leg. A fan-out request (`n > 1`) cannot use the
 * single-consumer KV handoff (the first sample to finish would free the blocks under its siblings),
 * so it goes to the decode worker alone, unless the prefill leg is needed for something else: an
 * encode leg feeding it, multimodal inputs that ride only on the prefill leg, or Mooncake, whose
 * decode is pointed at the prefill's bootstrap address anyway.
 */
export type KvConnectorMode = 'nixl' | 'mooncake' | 'passthrough';

export interface SkipInputs {
  /** The KV handoff can be relayed (n <= 1). */
  relayPossible: boolean;
  hasEncodeLeg: boolean;
  hasMultimodalInput: boolean;
  mode: KvConnectorMode;
}

export function shouldSkipPrefill(i: SkipInputs): boolean {
  return (
    !i.relayPossible &&
    !i.hasEncodeLeg &&
    !i.hasMultimodalInput &&
    (i.mode === 'nixl' || i.mode === 'passthrough')
  );
}
