/**
 * Starts a real gateway on 127.0.0.1:0 for integration tests, and the checks every such test
 * ends with (no load lease left behind).
 */
import assert from 'node:assert/strict';
import { parseFlags } from '@switchyard/kit';
import { GATEWAY_FLAGS } from '../../src/config/gateway-flags.js';
import { buildConfig } from '../../src/config/validate.js';
import { silentLogger, type Logger } from '../../src/observability/logger.js';
import { startGateway, type Gateway } from '../../src/server/gateway.js';
import type { Clock } from '../../src/util/clock.js';
import type { HostLookup } from '../../src/workers/target-guard.js';
import type { Random } from '@switchyard/kit';

const TEST_DEFAULTS = [
  '--host',
  '127.0.0.1',
  '--port',
  '0',
  '--prometheus-host',
  '127.0.0.1',
  '--prometheus-port',
  '0',
  '--worker-startup-check-interval',
  '1',
  '--drain-settle-secs',
  '0',
  '--shutdown-grace-period-secs',
  '1',
];

export async function startTestGateway(
  flags: string[] = [],
  opts: { random?: Random; clock?: Clock; lookup?: HostLookup; logger?: Logger } = {},
): Promise<Gateway> {
  const config = buildConfig(parseFlags([...TEST_DEFAULTS, ...flags], GATEWAY_FLAGS));
  return startGateway(config, { logger: silentLogger(), ...opts });
}

export async function waitFor(
  predicate: () => boolean,
  what: string,
  timeoutMs = 5000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Waits until `n` workers are registered and ready. */
export async function waitForReadyWorkers(
  gateway: Gateway,
  n: number,
  timeoutMs = 5000,
): Promise<void> {
  await waitFor(
    () => gateway.internals.registry.all().filter((w) => w.isHealthy).length >= n,
    `${n} ready workers`,
    timeoutMs,
  );
}

export async function scrapeMetrics(gateway: Gateway): Promise<string> {
  const res = await fetch(gateway.metricsUrl);
  assert.equal(res.status, 200);
  return res.text();
}

/** Value of one sample line, e.g. metricValue(text, 'smg_worker_requests_active', {worker: url}). */
export function metricValue(
  text: string,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(name + '{') && !line.startsWith(name + ' ')) continue;
    const ok = Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`));
    if (ok) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

/**
 * The lease invariant: once traffic is over, every worker's in-flight load is zero, in the
 * registry and in the exported gauge. Waits briefly, since a relay's close handlers run after
 * the client has its last byte.
 */
export async function assertNoLeakedLoad(gateway: Gateway): Promise<void> {
  await waitFor(
    () => gateway.internals.registry.all().every((w) => w.load === 0),
    'worker loads to return to zero',
    3000,
  ).catch(() => undefined);
  for (const w of gateway.internals.registry.all())
    assert.equal(w.load, 0, `worker ${w.url} still holds load ${w.load}`);
  const text = await scrapeMetrics(gateway);
  for (const line of text.split('\n')) {
    if (line.startsWith('smg_worker_requests_active{')) {
      assert.equal(Number(line.slice(line.lastIndexOf(' ') + 1)), 0, `gauge not zero: ${line}`);
    }
  }
}
