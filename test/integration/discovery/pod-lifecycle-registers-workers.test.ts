// A pod's life through the gateway, against simulated workers: it registers once Running and
// Ready (one worker per annotated port, labelled with the pod's name and uid) and serves
// requests; losing readiness removes its workers and regaining it registers new ones (unlike
// SMG, where the health checker owns readiness); they are removed when it is terminating or
// deleted; a restart with the same IP and a new uid registers again; a worker added by hand is
// never touched.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startSimWorker, type SimWorker } from '@switchyard/sim';
import type { Gateway } from '../../../src/server/gateway.js';
import {
  FakeKubeApi,
  discoveryOptions,
  podJson,
  type PodOptions,
} from '../../helpers/fake-kube-api.js';
import { assertAllReleased, startTestGateway, waitFor } from '../../helpers/gateway.js';
import { postJson } from '../../helpers/http.js';

let api: FakeKubeApi;
let gateway: Gateway;
let sims: SimWorker[];
let manual: SimWorker;

const APP = { app: 'sglang' };
const ports = (...workers: SimWorker[]): string => workers.map((w) => w.port).join(',');

/** A pod on loopback whose worker ports are the simulators'. */
function pod(name: string, workers: SimWorker[], o: PodOptions = {}) {
  return podJson(name, {
    namespace: 'llm',
    ip: '127.0.0.1',
    labels: APP,
    annotations: { 'smg.ai/worker-ports': ports(...workers) },
    ...o,
  });
}

const discovered = () =>
  gateway.internals.registry.all().filter((w) => w.labels['smg.ai/pod-uid'] !== undefined);
const urls = () =>
  discovered()
    .map((w) => w.url)
    .sort();

before(async () => {
  sims = await Promise.all([0, 1, 2].map(() => startSimWorker({ model: 'llama' })));
  manual = await startSimWorker({ model: 'llama' });
  api = await FakeKubeApi.start();
  gateway = await startTestGateway(
    ['--service-discovery', '--selector', 'app=sglang', '--service-discovery-namespace', 'llm'],
    discoveryOptions(api),
  );
  const res = await postJson(`${gateway.url}/workers`, { url: manual.url });
  assert.equal(res.status, 202);
  await waitFor(
    () => gateway.internals.registry.getByUrl(manual.url)?.isHealthy === true,
    'the manual worker',
  );
});

after(async () => {
  await gateway.close();
  await api.close();
  await Promise.all([...sims, manual].map((w) => w.close()));
});

test('an unready pod is not registered; once Running and Ready each of its ports is a worker that serves', async () => {
  const [a, b] = sims as [SimWorker, SimWorker];
  api.apply(pod('w0', [a, b], { ready: false }));
  // A second, ready pod: once it is registered, the pass has seen the unready one too.
  api.apply(pod('w1', [sims[2] as SimWorker]));
  await waitFor(() => urls().length === 1, "the ready pod's worker");
  assert.deepEqual(urls(), [sims[2]?.url]);

  api.apply(pod('w0', [a, b]));
  await waitFor(() => discovered().filter((w) => w.isHealthy).length === 3, 'three ready workers');
  const w0 = discovered().filter((w) => w.labels['smg.ai/pod-name'] === 'w0');
  assert.deepEqual(w0.map((w) => w.url).sort(), [a.url, b.url].sort());
  assert.ok(w0.every((w) => w.labels['smg.ai/pod-uid'] === 'uid-w0' && w.type === 'regular'));

  const res = await postJson(`${gateway.url}/v1/chat/completions`, {
    model: 'llama',
    messages: [{ role: 'user', content: 'hi' }],
    max_tokens: 2,
  });
  assert.equal(res.status, 200);
  await res.arrayBuffer();
  await assertAllReleased(gateway);
});

test("losing readiness removes the pod's workers and Ready again registers new ones; a terminating pod's workers are removed", async () => {
  const [a, b, c] = sims as [SimWorker, SimWorker, SimWorker];
  // The URL keeps its worker id; a new registration is a new worker object.
  const before = new Set(discovered());
  api.apply(pod('w0', [a, b], { ready: false }));
  api.apply(pod('w1', [c], { deleting: true }));
  await waitFor(() => urls().length === 0, "the unready and terminating pods' workers to leave");

  api.apply(pod('w0', [a, b]));
  await waitFor(
    () => discovered().filter((w) => w.isHealthy).length === 2,
    "the ready-again pod's workers",
  );
  assert.deepEqual(urls(), [a.url, b.url].sort());
  assert.ok(
    discovered().every((w) => !before.has(w)),
    'each is a new registration, not the old worker kept',
  );
  const res = await postJson(`${gateway.url}/v1/chat/completions`, {
    model: 'llama',
    messages: [{ role: 'user', content: 'hi' }],
    max_tokens: 2,
  });
  assert.equal(res.status, 200);
  await res.arrayBuffer();
});

test("a deleted pod's workers are removed; a restart at the same address with a new uid registers again", async () => {
  const [a, b] = sims as [SimWorker, SimWorker];
  api.remove('llm', 'w0');
  await waitFor(() => urls().length === 0, "the deleted pod's workers to leave");

  api.apply(pod('w0', [a], { uid: 'uid-w0-restarted' }));
  await waitFor(() => urls().length === 1, "the restarted pod's worker");
  assert.equal(discovered()[0]?.labels['smg.ai/pod-uid'], 'uid-w0-restarted');
  assert.equal(discovered()[0]?.url, a.url);
  assert.equal(gateway.internals.registry.getByUrl(b.url), undefined);
});

test("a new pod at a registered URL replaces the old pod's worker", async () => {
  const [a] = sims as [SimWorker];
  // The pod object is replaced under the same name: same IP and port, another uid.
  api.apply(pod('w0', [a], { uid: 'uid-w0-third' }));
  await waitFor(
    () => discovered()[0]?.labels['smg.ai/pod-uid'] === 'uid-w0-third',
    'the worker to carry the new uid',
  );
  assert.equal(urls().length, 1);
});

test('a worker added by hand is never removed, nor taken over by a pod at its URL', async () => {
  api.apply(pod('squatter', [manual], { uid: 'uid-squatter' }));
  api.apply(pod('w2', [sims[1] as SimWorker]));
  await waitFor(() => urls().includes(sims[1]?.url ?? ''), "the other pod's worker");
  const kept = gateway.internals.registry.getByUrl(manual.url);
  assert.ok(kept);
  assert.equal(kept.labels['smg.ai/pod-uid'], undefined);
  assert.equal(kept.isHealthy, true);
});
