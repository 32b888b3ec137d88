// The storm's report: one table of outcomes per scenario and one of what the engines saw (peak
// concurrency against the prefill limit and the decode window, Aborts expected vs seen), then
// the gateway's leaked leases and RSS, as Markdown for docs/reliability.md.
import type { EngineCounts, StormResult } from '../../test/helpers/grpc-storm.js';
import { fmt, markdownTable } from '../lib/table.js';

export interface ScenarioRecord {
  scenario: string;
  result: StormResult;
  /** When the first engine was stopped for 3 s, ms after the storm began (NaN: it ended first). */
  stoppedAtMs: number;
  engines: (EngineCounts & { name: string })[];
  prefillLimit: number | undefined;
  decodeWindow: number | undefined;
  /** Gateway in-flight gauges not back to zero after the storm. */
  leaks: string[];
  rssBeforeMb: number;
  rssAfterMb: number;
}

const top = (outcomes: Record<string, number>): string =>
  Object.entries(outcomes)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ×${v}`)
    .join(', ');

export function report(records: readonly ScenarioRecord[]): string {
  const outcomes = markdownTable(
    ['scenario', 'sent', 'answered', 'hung', 'left', 'p50 ms', 'p99 ms', 'outcomes'],
    records.map((r) => [
      r.scenario,
      r.result.sent,
      r.result.answered,
      r.result.hung,
      r.result.left,
      fmt(r.result.p50Ms, 0),
      fmt(r.result.p99Ms, 0),
      top(r.result.outcomes),
    ]),
  );
  const engines = markdownTable(
    [
      'scenario',
      'engine',
      'Generates',
      'peak open',
      'limit',
      'cancelled (Aborts expected)',
      'Abort ids seen',
    ],
    records.flatMap((r) =>
      r.engines.map((e) => [
        r.scenario,
        e.name,
        e.generates,
        e.peakRunning,
        e.name === 'prefill'
          ? String(r.prefillLimit ?? '–')
          : e.name === 'decode'
            ? String(r.decodeWindow ?? '–')
            : '–',
        e.cancelled,
        e.abortedIds,
      ]),
    ),
  );
  const gateway = markdownTable(
    ['scenario', 'engine stopped at', 'leaked leases', 'RSS before MB', 'RSS after MB'],
    records.map((r) => [
      r.scenario,
      Number.isFinite(r.stoppedAtMs) ? `${fmt(r.stoppedAtMs / 1000, 1)} s` : '–',
      r.leaks.length === 0 ? 'none' : r.leaks.join('; '),
      fmt(r.rssBeforeMb, 0),
      fmt(r.rssAfterMb, 0),
    ]),
  );
  return `\n### Outcomes\n\n${outcomes}\n\n### Engines\n\n${engines}\n\n### Gateway\n\n${gateway}\n`;
}
