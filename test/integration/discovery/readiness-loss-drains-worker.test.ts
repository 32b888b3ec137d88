// A pod that stops being Ready loses its worker through the drain a terminating pod's worker
// takes (draining at once, no new requests, in-flight ones finish, gone after
// --drain-settle-secs), and Ready again registers a new worker that serves. A quick flap
// (ready, unready, ready) while the drain runs leaves the drain in charge: the old worker leaves
// once, then exactly one new worker registers. A pod that loses readiness while its worker is
// still registering has that registration cancelled.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startSimWorker, type SimWorker } from '@switchyard/sim';
import type { Gateway } from '../../../src/server/gateway.js';
import type { Worker } from '../../../src/workers/worker.js';
import {
  FakeKubeApi,
  discoveryOptions,
  podJson,
  type PodOptions,
} from '../../helpers/fake-kube-api.js';
import { metricValue, scrapeMetrics, startTestGateway, waitFor } from '../../helpers/gateway.js';
import { postJson } from '../../helpers/http.js';

const SETTLE_SECS = 2;
const CHAT = '/v1/chat/completions';

let api: FakeKubeApi;
let gateway: Gateway;
/** Pod `a`'s engine: slow enough that a streamed answer spans the readiness loss. */
let slow: SimWorker;
/** Pod `b`'s engine, which serves while `a` drains. */
let steady: SimWorker;

const pod = (name: string, worker: SimWorker, o: PodOptions = {}) =>
  podJson(name, {
    ip: '127.0.0.1',
    labels: { app: 'sglang' },
    annotations: { 'smg.ai/worker-ports': String(worker.port) },
    ...o,
  });

const at = (url: string): Worker[] => gateway.internals.registry.all().filter((w) => w.url === url);
const workerAt = (url: string): Worker | undefined => gateway.internals.registry.getByUrl(url);
const requestsTo = (w: SimWorker): number => w.stats().requests[CHAT] ?? 0;

async function chat(
  stream = false,
): Promise<{ status: number; worker: string | null; body: string }> {
  const res = await postJson(`${gateway.url}${CHAT}`, {
    model: 'llama',
    messages: [{ role: 'user', content: 'hi' }],
    max_tokens: stream ? 80 : 2,
    stream,
  });
  const body = await res.text();
  return { status: res.status, worker: res.headers.get('x-smg-routed-worker-id'), body };
}

async function deregistrations(): Promise<number> {
  const text = await scrapeMetrics(gateway);
  return (
    metricValue(text, 'smg_discovery_deregistrations_total', {
      source: 'kubernetes',
      reason: 'reconciled',
    }) ?? 0
  );
}

before(async () => {
  slow = await startSimWorker({ model: 'llama', itlMs: 50 });
  steady = await startSimWorker({ model: 'llama' });
  api = await FakeKubeApi.start();
  gateway = await startTestGateway(
    [
      '--service-discovery',
      '--selector',
      'app=sglang',
      '--policy',
      'round_robin',
      '--drain-settle-secs',
      String(SETTLE_SECS),
    ],
    discoveryOptions(api),
  );
});

after(async () => {
  await gateway.close();
  await api.close();
  await Promise.all([slow.close(), steady.close()]);
});

test('losing readiness drains the worker: no new requests, the in-flight one finishes; Ready again serves', async () => {
  api.apply(pod('a', slow));
  await waitFor(() => workerAt(slow.url)?.isHealthy === true, "pod a's worker");
  // The only worker, so the streamed request is a's; it streams for about four seconds.
  const inflight = chat(true);
  await waitFor(() => slow.stats().running === 1, 'the streamed request to reach a');
  api.apply(pod('b', steady));
  await waitFor(() => workerAt(steady.url)?.isHealthy === true, "pod b's worker");

  const old = workerAt(slow.url);
  api.apply(pod('a', slow, { ready: false }));
  await waitFor(() => old?.status === 'draining', "a's worker to drain");
  assert.equal(slow.stats().running, 1, 'the streamed request is still in flight');
  const before = requestsTo(slow);
  for (let i = 0; i < 4; i++) {
    const r = await chat();
    assert.equal(r.status, 200);
    assert.equal(r.worker, steady.url, 'a draining worker gets no new request');
  }
  assert.equal(requestsTo(slow), before);

  const streamed = await inflight;
  assert.equal(streamed.status, 200);
  assert.match(streamed.body, /data: \[DONE\]/, 'the in-flight stream ran to its end');
  assert.equal(slow.stats().aborted, 0);

  await waitFor(() => workerAt(slow.url) === undefined, "a's worker to leave after the settle", {
    timeoutMs: (SETTLE_SECS + 3) * 1000,
  });
  assert.equal(await deregistrations(), 1);

  api.apply(pod('a', slow));
  await waitFor(() => workerAt(slow.url)?.isHealthy === true, "a's worker registered again");
  assert.notEqual(workerAt(slow.url), old, 'a new registration');
  assert.equal(workerAt(slow.url)?.labels['smg.ai/pod-uid'], 'uid-a');
  const routed = new Set<string | null>();
  for (let i = 0; i < 4; i++) {
    const r = await chat();
    assert.equal(r.status, 200);
    routed.add(r.worker);
  }
  assert.ok(routed.has(slow.url), 'a serves again');
});

test('ready, unready, ready quickly: the drain runs to its end once, then one new worker registers', async () => {
  const old = workerAt(slow.url);
  assert.equal(old?.isHealthy, true);
  const removedBefore = await deregistrations();

  api.apply(pod('a', slow, { ready: false }));
  await waitFor(() => old?.status === 'draining', "a's worker to drain");
  // Ready, unready and ready again while the drain runs: each state is seen by a pass (settle
  // 20 ms), and none may start a second removal or register a second worker at the URL.
  for (const ready of [true, false, true]) {
    api.apply(pod('a', slow, { ready }));
    await sleep(150);
    assert.deepEqual(at(slow.url), [old], 'the draining worker stays alone at its URL');
    assert.equal(old?.status, 'draining');
  }

  await waitFor(
    () => workerAt(slow.url) !== undefined && workerAt(slow.url) !== old,
    'a new worker once the drain has ended',
    { timeoutMs: (SETTLE_SECS + 3) * 1000 },
  );
  await waitFor(() => workerAt(slow.url)?.isHealthy === true, 'the new worker to be ready');
  assert.equal(at(slow.url).length, 1);
  assert.equal(await deregistrations(), removedBefore + 1, 'one removal for the whole flap');
  const routed = new Set<string | null>();
  for (let i = 0; i < 4; i++) routed.add((await chat()).worker);
  assert.ok(routed.has(slow.url), 'the new worker serves');
});

test('a pod losing readiness while its worker registers cancels the registration; Ready again registers it', async () => {
  api.remove('default', 'a');
  await waitFor(() => at(slow.url).length === 0, "a's worker to leave", {
    timeoutMs: (SETTLE_SECS + 3) * 1000,
  });
  // The engine is still loading: the startup probe keeps the registration pending.
  slow.setFaults({ healthStatus: 503 });
  api.apply(pod('a', slow));
  const { registry, workers } = gateway.internals;
  const pending = () => {
    const id = registry.idForUrl(slow.url);
    return id !== undefined && workers.pendingSpec(id) !== undefined;
  };
  await waitFor(pending, "a's registration to start");

  api.apply(pod('a', slow, { ready: false }));
  await waitFor(() => !pending(), "a's registration to be cancelled");
  slow.setFaults({});
  // Were the registration still running, its probe would now pass and register the worker.
  await sleep(1500);
  assert.equal(workerAt(slow.url), undefined, 'an unready pod gets no worker');

  api.apply(pod('a', slow));
  await waitFor(() => workerAt(slow.url)?.isHealthy === true, "a's worker once Ready again");
});
