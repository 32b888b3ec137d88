/**
 * Starts a real gateway on 127.0.0.1:0 for integration tests, and the checks every such test
 * ends with (nothing a request held left behind).
 */
import assert from 'node:assert/strict';
import { parseFlags } from '@switchyard/kit';
import { GATEWAY_FLAGS } from '../../src/config/gateway-flags.js';
import { buildConfig } from '../../src/config/validate.js';
import { silentLogger, type Logger } from '../../src/observability/logger.js';
import { startGateway, type Gateway } from '../../src/server/gateway.js';
import type { Clock, ManualClock } from '@switchyard/kit';
import type { HostLookup } from '../../src/workers/target-guard.js';
import type { GrpcConnector } from '../../src/workers/grpc-connector.js';
import type { ComponentOptions } from '../../src/server/components.js';
import type { Random } from '@switchyard/kit';
import { waitFor } from './wait-for.js';

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
  opts: {
    random?: Random;
    clock?: Clock | undefined;
    lookup?: HostLookup;
    logger?: Logger;
    grpc?: GrpcConnector;
    tokenizers?: NonNullable<ComponentOptions['tokenizers']>;
    kube?: NonNullable<ComponentOptions['kube']>;
    /** The history store, in place of the one `--history-backend` names. */
    history?: NonNullable<ComponentOptions['history']>;
  } = {},
): Promise<Gateway> {
  const config = buildConfig(parseFlags([...TEST_DEFAULTS, ...flags], GATEWAY_FLAGS));
  const { clock, ...rest } = opts;
  return startGateway(config, {
    logger: silentLogger(),
    ...rest,
    ...(clock === undefined ? {} : { clock }),
  });
}

export { waitFor } from './wait-for.js';

/** A test gateway in front of one worker, returned once that worker is ready. */
export async function startGatewayFor(workerUrl: string, flags: string[] = []): Promise<Gateway> {
  const gateway = await startTestGateway([...flags, '--worker-urls', workerUrl]);
  await waitForReadyWorkers(gateway, 1);
  return gateway;
}

/**
 * Moves a manual clock on in `stepMs` steps until `predicate` holds, letting real I/O (a probe,
 * a poll) run between the steps: timed behaviour at full speed, without real waits.
 */
export async function advanceUntil(
  clock: ManualClock,
  predicate: () => boolean,
  what: string,
  stepMs: number,
  timeoutMs = 5000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    clock.advance(stepMs);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/**
 * Awaits `work` while moving a manual clock on in `stepMs` steps: for a request whose path
 * waits on the gateway's clock (a retry backoff, an admission queue timeout).
 */
export async function settleWhileAdvancing<T>(
  clock: ManualClock,
  work: Promise<T>,
  stepMs: number,
  timeoutMs = 5000,
): Promise<T> {
  let settled = false;
  work.then(
    () => (settled = true),
    () => (settled = true),
  );
  await advanceUntil(clock, () => settled, 'the work to settle', stepMs, timeoutMs);
  return work;
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

/** The gauges that count something held for one request; each must read zero once traffic is over. */
export const IN_FLIGHT_GAUGES = [
  'smg_worker_requests_active',
  'smg_http_buffered_body_bytes',
  'smg_admission_inflight',
  'smg_admission_queue_depth',
  'smg_pd_prefill_admission_inflight',
  'smg_pd_prefill_admission_queued',
  'smg_pd_admission_claimed_rooms',
] as const;

/**
 * Everything a request may still hold, each as a line naming it: worker load leases, buffered
 * body bytes, concurrency permits and their queue, prefill admission slots and their queue,
 * decode room claims and their waiters. Empty once every lease came back.
 */
export function heldInFlight(gateway: Gateway): string[] {
  const held: string[] = [];
  const { limiter, prefillAdmission, decodeAdmission } = gateway.internals;
  const workers = gateway.internals.registry.all();
  for (const w of workers) if (w.load !== 0) held.push(`worker ${w.url} load ${w.load}`);
  const bytes = gateway.internals.bodyBudget.used;
  if (bytes !== 0) held.push(`body budget ${bytes} bytes`);
  if (limiter && limiter.inflight !== 0) held.push(`concurrency permits ${limiter.inflight}`);
  if (limiter && limiter.queued !== 0) held.push(`concurrency queue ${limiter.queued}`);
  if (prefillAdmission) {
    for (const w of workers) {
      const n = prefillAdmission.inflight(w);
      if (n !== 0) held.push(`prefill slots on ${w.url}: ${n}`);
    }
    if (prefillAdmission.queued !== 0) held.push(`prefill queue ${prefillAdmission.queued}`);
  }
  if (decodeAdmission) {
    for (const w of workers) {
      const claimed = decodeAdmission.claimed(w);
      if (claimed !== 0) held.push(`decode rooms claimed on ${w.url}: ${claimed}`);
      const waiting = decodeAdmission.waiting(w);
      if (waiting !== 0) held.push(`decode claims waiting on ${w.url}: ${waiting}`);
    }
  }
  return held;
}

/**
 * The lease invariant every integration test ends with: once traffic is over, everything a
 * request held came back (see heldInFlight), in the gateway and in every in-flight gauge it
 * exports. Waits up to `timeoutMs`, since a relay's close handlers run after the client has its
 * last byte, and fails naming what is still held.
 */
export async function assertAllReleased(gateway: Gateway, timeoutMs = 3000): Promise<void> {
  let held: string[] = [];
  await waitFor(
    () => (held = heldInFlight(gateway)).length === 0,
    () => `everything to be released; still held: ${held.join('; ')}`,
    { timeoutMs },
  );
  const text = await scrapeMetrics(gateway);
  const nonZero = text
    .split('\n')
    .filter((line) =>
      IN_FLIGHT_GAUGES.some((g) => line.startsWith(g + '{') || line.startsWith(g + ' ')),
    )
    .filter((line) => Number(line.slice(line.lastIndexOf(' ') + 1)) !== 0);
  assert.deepEqual(nonZero, [], 'in-flight gauges not back to zero');
}
