/**
 * Several gateway processes (the real binary, one process each) in front of one simulated PD
 * pair: what a deployment with replicas looks like. The burst is spread round robin over the
 * replicas while the decode engine's running count is sampled, and each replica's in-flight
 * gauges are read from its own /metrics at the end.
 */
import assert from 'node:assert/strict';
import { startSimWorker, type SimWorker, type SimWorkerOptions } from '@switchyard/sim';
import { LOOPBACK_EPHEMERAL, startCli, waitForLog, type Running } from './cli.js';
import { IN_FLIGHT_GAUGES, waitFor } from './gateway.js';
import { postJson } from './http.js';

export interface Replica {
  run: Running;
  url: string;
  metricsUrl: string;
}

export interface ReplicaFleet {
  prefill: SimWorker;
  decode: SimWorker;
  replicas: Replica[];
  close(): Promise<void>;
}

/** The seed-001 burst at time scale 0.1: a wave outlasts the prefill's 2 s rendezvous deadline. */
export const BURST_SIM: SimWorkerOptions = {
  engine: 'realistic',
  timeScale: 0.1,
  runtime: 'tokenspeed',
};

export async function startReplicaFleet(opts: {
  replicas: number;
  window: number;
  /** Flags every replica gets (the store choice). */
  flags: (index: number) => string[];
}): Promise<ReplicaFleet> {
  const prefill = await startSimWorker({
    role: 'prefill',
    ...BURST_SIM,
    bootstrapTimeoutSecs: 2,
  });
  const decode = await startSimWorker({
    role: 'decode',
    ...BURST_SIM,
    maxRunningRequests: opts.window,
    // Generous: on a loaded 2-core machine a KV transfer can outlast 1 s; the failure mode under
    // test is the prefill's rendezvous deadline, not this one.
    waitingTimeoutSecs: 5,
  });
  const replicas: Replica[] = [];
  const fleet: ReplicaFleet = {
    prefill,
    decode,
    replicas,
    close: async () => {
      for (const r of replicas) if (r.run.child.exitCode === null) r.run.child.kill('SIGKILL');
      await Promise.all(replicas.map((r) => r.run.exited));
      await Promise.all([prefill.close(), decode.close()]);
    },
  };
  try {
    for (let i = 0; i < opts.replicas; i++) {
      replicas.push(await startReplica(prefill, decode, opts.flags(i)));
    }
  } catch (err) {
    await fleet.close();
    throw err;
  }
  return fleet;
}

export async function startReplica(
  prefill: SimWorker,
  decode: SimWorker,
  flags: string[],
): Promise<Replica> {
  const run = startCli([
    'launch',
    ...LOOPBACK_EPHEMERAL,
    '--log-json',
    '--pd-disaggregation',
    '--policy',
    'round_robin',
    '--disable-retries',
    '--prefill',
    prefill.url,
    String(prefill.bootstrapPort),
    '--decode',
    decode.url,
    ...flags,
  ]);
  const line = await waitForLog(run, 'switchyard listening', 20_000);
  const replica = { run, url: String(line.url), metricsUrl: String(line.metrics) };
  await waitFor(
    async () => (await fetch(`${replica.url}/readiness`)).status === 200,
    'the replica to see both workers ready',
    15_000,
  );
  return replica;
}

/** `count` requests at once, request i to replica i mod R; each answered by its status or code. */
export async function burstAcross(
  fleet: ReplicaFleet,
  count: number,
  maxNewTokens = 400,
): Promise<{ codes: string[]; maxRunning: number }> {
  let maxRunning = 0;
  const sampler = setInterval(() => {
    maxRunning = Math.max(maxRunning, fleet.decode.stats().running);
  }, 2);
  try {
    const codes = await Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const replica = fleet.replicas[i % fleet.replicas.length];
        assert.ok(replica);
        const res = await postJson(`${replica.url}/generate`, {
          text: `replica burst ${i}`,
          sampling_params: { max_new_tokens: maxNewTokens },
        });
        await res.arrayBuffer();
        return res.status === 200
          ? 'ok'
          : (res.headers.get('x-smg-error-code') ?? String(res.status));
      }),
    );
    return { codes, maxRunning };
  } finally {
    clearInterval(sampler);
  }
}

/** The in-flight gauges of one replica that are not zero (empty once every lease came back). */
export async function heldGauges(replica: Replica): Promise<string[]> {
  const text = await (await fetch(replica.metricsUrl)).text();
  return text
    .split('\n')
    .filter((line) =>
      IN_FLIGHT_GAUGES.some((g) => line.startsWith(g + '{') || line.startsWith(g + ' ')),
    )
    .filter((line) => Number(line.slice(line.lastIndexOf(' ') + 1)) !== 0);
}

/** Waits until every live replica's in-flight gauges read zero. */
export async function assertReplicasReleased(replicas: Replica[]): Promise<void> {
  let held: string[] = [];
  await waitFor(
    async () => {
      const live = replicas.filter((r) => r.run.child.exitCode === null);
      held = (await Promise.all(live.map(heldGauges))).flat();
      return held.length === 0;
    },
    () => `every replica's in-flight gauges at zero; still: ${held.join('; ')}`,
    5000,
  );
}
