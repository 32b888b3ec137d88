/**
 * SMG's cross-field startup rules (config/validation.rs `ConfigValidator`), each refusing what SMG
 * refuses with one line naming the flag, the value and the rule.
 */
import type { GatewayConfig } from './schema.js';

type Rule = (c: GatewayConfig) => string | undefined;

/** `--model-alias` pairs as SMG splits them: at the first `=`. */
export function splitModelAlias(pair: string): { alias: string; canonical: string } {
  const at = pair.indexOf('=');
  return { alias: pair.slice(0, at), canonical: pair.slice(at + 1) };
}

/** `--model-alias` as the alias -> canonical model map requests are resolved with. */
export function modelAliasMap(pairs: readonly string[]): Map<string, string> {
  return new Map(
    pairs.map((p) => {
      const { alias, canonical } = splitModelAlias(p);
      return [alias, canonical];
    }),
  );
}

/** SMG counts the workers of the routing mode: the URLs of regular mode, prefill + decode in PD. */
function staticWorkerCount(c: GatewayConfig): number {
  return c.pdDisaggregation ? c.prefill.length + c.decode.length : c.workerUrls.length;
}

export const SMG_RULES: readonly Rule[] = [
  // A queued request must be able to wait: SMG allows a 0 timeout only when nothing queues.
  (c) =>
    c.queueSize > 0 && c.queueTimeoutSecs === 0
      ? `--queue-timeout-secs: must be > 0 when --queue-size is above 0 (got 0 with --queue-size ${c.queueSize})`
      : undefined,
  // SMG validates the effective retry config, where --disable-retries makes max_retries 1.
  (c) =>
    !c.disableRetries && c.retryMaxRetries < 1
      ? `--retry-max-retries: must be >= 1 (1 = no retry, or give --disable-retries) (got ${c.retryMaxRetries})`
      : undefined,
  (c) =>
    c.retryMaxBackoffMs < c.retryInitialBackoffMs
      ? `--retry-max-backoff-ms: must be >= --retry-initial-backoff-ms (${c.retryInitialBackoffMs}) (got ${c.retryMaxBackoffMs})`
      : undefined,
  // SMG validates the effective breaker config, where --disable-circuit-breaker makes the threshold u32::MAX.
  (c) =>
    !c.disableCircuitBreaker && c.cbFailureThreshold < 1
      ? `--cb-failure-threshold: must be >= 1, or give --disable-circuit-breaker (got ${c.cbFailureThreshold})`
      : undefined,
  (c) => {
    const seen = new Map<string, string>();
    for (const pair of c.modelAlias) {
      const { alias, canonical } = splitModelAlias(pair);
      if (alias === canonical)
        return `--model-alias: alias must differ from the canonical model ID (got '${pair}')`;
      const previous = seen.get(alias);
      if (previous !== undefined && previous !== canonical) {
        return `--model-alias: alias '${alias}' maps to both '${previous}' and '${canonical}'`;
      }
      seen.set(alias, canonical);
    }
    return undefined;
  },
  // power_of_two compares two distinct workers. SMG checks the static lists (IGW, whose workers
  // arrive at run time, is exempt): --policy against the mode's total, a leg policy against its leg.
  (c) => {
    if (c.enableIgw) return undefined;
    if (c.policy === 'power_of_two' && staticWorkerCount(c) < 2) {
      return `--policy power_of_two: requires at least 2 workers (got ${staticWorkerCount(c)})`;
    }
    if (!c.pdDisaggregation) return undefined;
    if (c.prefillPolicy === 'power_of_two' && c.prefill.length < 2) {
      return `--prefill-policy power_of_two: requires at least 2 prefill workers (got ${c.prefill.length})`;
    }
    if (c.decodePolicy === 'power_of_two' && c.decode.length < 2) {
      return `--decode-policy power_of_two: requires at least 2 decode workers (got ${c.decode.length})`;
    }
    return undefined;
  },
  // Discovery needs the selector its mode reads (config/validation.rs `validate_discovery`).
  (c) => {
    if (!c.serviceDiscovery) return undefined;
    if (c.serviceDiscoveryPort === 0) {
      return '--service-discovery-port: must be > 0 with --service-discovery (got 0)';
    }
    if (!c.pdDisaggregation && c.selector.length === 0) {
      return '--service-discovery: regular mode needs a non-empty --selector';
    }
    if (c.pdDisaggregation && c.prefillSelector.length === 0 && c.decodeSelector.length === 0) {
      return '--service-discovery: PD mode needs a non-empty --prefill-selector or --decode-selector';
    }
    return undefined;
  },
];
