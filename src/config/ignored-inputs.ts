/**
 * Inputs SMG accepts but ignores, or reads in its own way. Switchyard accepts them too, behaves as
 * SMG, and returns one warning line per input for `launch` to log at startup:
 * - the lists of the mode not in use (main.rs `to_router_config` builds the routing mode from
 *   `--pd-disaggregation` alone): `--worker-urls` in PD mode; `--prefill`, `--decode`,
 *   `--prefill-policy`, `--decode-policy` in regular mode. They are dropped before validation,
 *   as SMG never validates them. `--enable-igw` uses every list, so nothing is dropped there.
 * - a `--model-alias` mapping repeated as is (SMG keeps one) and one whose model contains `=`
 *   (SMG splits at the first `=`);
 * - a `--health-check-endpoint` without a leading `/`, which gets one;
 * - `--health-check-timeout-secs 0`, which SMG accepts and which fails every probe;
 * - `--service-discovery`, which turns `--enable-igw` on (main.rs `main`), and the selectors the
 *   discovery mode does not read.
 */
import type { RawFlags } from '@switchyard/kit';

const MODE_LISTS: readonly { key: string; flag: string }[] = [
  { key: 'prefill', flag: '--prefill' },
  { key: 'decode', flag: '--decode' },
  { key: 'prefillPolicy', flag: '--prefill-policy' },
  { key: 'decodePolicy', flag: '--decode-policy' },
];

const isGiven = (value: unknown): boolean =>
  Array.isArray(value) ? value.length > 0 : value !== undefined;

export function dropIgnoredInputs(given: RawFlags): { raw: RawFlags; warnings: string[] } {
  const raw: RawFlags = { ...given };
  const warnings: string[] = [];
  if (raw.serviceDiscovery === true && raw.enableIgw !== true) {
    // Before the mode lists below: SMG sets enable_igw before it builds the routing mode.
    raw.enableIgw = true;
    warnings.push(
      '--service-discovery turns on --enable-igw (as SMG): discovered workers of every model and role are served',
    );
  }
  warnings.push(...unreadSelectors(raw));
  if (raw.enableIgw !== true) {
    if (raw.pdDisaggregation === true && isGiven(raw.workerUrls)) {
      warnings.push(
        '--worker-urls is ignored with --pd-disaggregation (as SMG); PD workers come from --prefill and --decode',
      );
      raw.workerUrls = [];
    }
    if (raw.pdDisaggregation !== true) {
      for (const { key, flag } of MODE_LISTS) {
        if (!isGiven(raw[key])) continue;
        warnings.push(`${flag} is ignored without --pd-disaggregation or --enable-igw (as SMG)`);
        raw[key] = Array.isArray(raw[key]) ? [] : undefined;
      }
    }
  }
  if (Array.isArray(raw.modelAlias))
    raw.modelAlias = dedupeAliases(raw.modelAlias as unknown[], warnings);
  const endpoint = raw.healthCheckEndpoint;
  if (typeof endpoint === 'string' && !endpoint.startsWith('/')) {
    warnings.push(
      `--health-check-endpoint '${endpoint}' has no leading '/': probing '/${endpoint}'`,
    );
  }
  if (raw.healthCheckTimeoutSecs === 0 && raw.disableHealthCheck !== true) {
    warnings.push(
      '--health-check-timeout-secs 0: every health probe times out at once (as SMG), so no worker passes one',
    );
  }
  return { raw, warnings };
}

/** Selectors given where SMG's discovery does not read them; they stay checked, and unused. */
function unreadSelectors(raw: RawFlags): string[] {
  const given = (key: string): boolean => isGiven(raw[key]);
  const names = {
    selector: '--selector',
    prefillSelector: '--prefill-selector',
    decodeSelector: '--decode-selector',
  };
  const keys = Object.keys(names) as (keyof typeof names)[];
  if (raw.serviceDiscovery !== true) {
    return keys
      .filter(given)
      .map((k) => `${names[k]} is ignored without --service-discovery (as SMG)`);
  }
  if (raw.pdDisaggregation === true) {
    return given('selector')
      ? [
          '--selector is ignored with --pd-disaggregation (as SMG); PD pods are chosen by --prefill-selector and --decode-selector',
        ]
      : [];
  }
  return (['prefillSelector', 'decodeSelector'] as const)
    .filter(given)
    .map((k) => `${names[k]} is ignored without --pd-disaggregation (as SMG)`);
}

function dedupeAliases(pairs: readonly unknown[], warnings: string[]): unknown[] {
  const kept: unknown[] = [];
  for (const pair of pairs) {
    if (typeof pair === 'string' && kept.includes(pair)) {
      const warning = `--model-alias '${pair}' is given more than once; it counts once`;
      if (!warnings.includes(warning)) warnings.push(warning);
      continue;
    }
    if (typeof pair === 'string' && /^[^=]+=.*=/.test(pair)) {
      const at = pair.indexOf('=');
      warnings.push(
        `--model-alias '${pair}' maps '${pair.slice(0, at)}' to the model '${pair.slice(at + 1)}' (split at the first '=', as SMG)`,
      );
    }
    kept.push(pair);
  }
  return kept;
}
