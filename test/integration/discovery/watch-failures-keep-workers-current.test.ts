// Through the gateway: what happens while the pod watch is down reaches the registry once it is
// back. A dropped watch resumes and registers the pod added meanwhile; a watch whose version
// was compacted away re-lists, and the pod deleted meanwhile (its DELETED event lost) leaves.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startSimWorker, type SimWorker } from '@switchyard/sim';
import type { Gateway } from '../../../src/server/gateway.js';
import { FakeKubeApi, discoveryOptions, podJson } from '../../helpers/fake-kube-api.js';
import { startTestGateway, waitFor } from '../../helpers/gateway.js';

let api: FakeKubeApi;
let gateway: Gateway;
let sims: SimWorker[];

const pod = (name: string, worker: SimWorker) =>
  podJson(name, {
    ip: '127.0.0.1',
    labels: { app: 'sglang' },
    annotations: { 'smg.ai/worker-ports': String(worker.port) },
  });
const urls = () =>
  gateway.internals.registry
    .all()
    .map((w) => w.url)
    .sort();

before(async () => {
  sims = await Promise.all([0, 1, 2].map(() => startSimWorker({ model: 'llama' })));
  api = await FakeKubeApi.start();
  gateway = await startTestGateway(
    ['--service-discovery', '--selector', 'app=sglang'],
    discoveryOptions(api),
  );
  const [a, b] = sims as [SimWorker, SimWorker];
  api.apply(pod('a', a));
  api.apply(pod('b', b));
  await waitFor(() => urls().length === 2, "the two pods' workers");
});

after(async () => {
  await gateway.close();
  await api.close();
  await Promise.all(sims.map((w) => w.close()));
});

test('a dropped watch resumes, and the pod added while it was down registers', async () => {
  const c = sims[2] as SimWorker;
  const release = api.holdWatches();
  api.dropWatches();
  await waitFor(() => api.watchRequests().length === 2, 'the watch to reconnect');
  api.apply(pod('c', c));
  release();
  await waitFor(() => urls().includes(c.url), 'the pod added during the gap');
  assert.equal(api.listRequests().length, 1, 'resumed, not re-listed');
});

test('after 410 Gone the watcher re-lists, and the pod deleted while it was down leaves', async () => {
  const [a, b, c] = sims as [SimWorker, SimWorker, SimWorker];
  api.goneAs = 'http';
  const release = api.holdWatches();
  api.dropWatches();
  await waitFor(() => api.watchRequests().length === 3, 'the watch to reconnect');
  api.remove('default', 'a');
  api.compact();
  release();
  await waitFor(() => !urls().includes(a.url), "the deleted pod's worker to leave");
  assert.deepEqual(urls(), [b.url, c.url].sort());
  assert.equal(api.listRequests().length, 2);
});
