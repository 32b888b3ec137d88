// The pod watcher against a fake API server, through the real client library: it lists, watches
// from the list's resourceVersion, resumes a dropped watch where it stopped (no re-list), re-lists
// after 410 Gone (as an ERROR event or as HTTP 410), retries failed lists with backoff, and stops
// without leaving a connection open.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { mathRandom, systemClock } from '@switchyard/kit';
import { PodWatcher } from '../../../src/discovery/kubernetes/pod-watcher.js';
import { loadKubeClient } from '../../../src/discovery/kubernetes/kube-client.js';
import { capturingLogger } from '../../helpers/fake-engine.js';
import { FakeKubeApi, podJson } from '../../helpers/fake-kube-api.js';
import { waitFor } from '../../helpers/wait-for.js';

let api: FakeKubeApi;
let watcher: PodWatcher;
let log: ReturnType<typeof capturingLogger>;
let changes = 0;
const kubeClient = await loadKubeClient();

const APP = { app: 'sglang' };

/** Watches namespace `llm`, or every namespace with `null`. */
function start(namespace: string | null = 'llm'): void {
  watcher = new PodWatcher({
    client: kubeClient,
    kubeConfig: api.kubeConfig(),
    namespace: namespace ?? undefined,
    labelSelector: 'app=sglang',
    clock: systemClock,
    random: mathRandom,
    logger: log.logger,
    backoff: { initialMs: 20, maxMs: 100 },
    onChange: () => (changes += 1),
  });
  watcher.start();
}

const names = (): string[] => [...watcher.store.values()].map((p) => p.metadata?.name ?? '').sort();

beforeEach(async () => {
  api = await FakeKubeApi.start();
  log = capturingLogger();
  changes = 0;
});

afterEach(async () => {
  await watcher.stop();
  await api.close();
});

void describe('pod watch', () => {
  it('lists, then watches from the list version with the selector and the credentials', async () => {
    api.apply(podJson('a', { namespace: 'llm', labels: APP, ip: '10.0.0.1' }));
    api.apply(podJson('other-ns', { namespace: 'prod', labels: APP, ip: '10.0.0.2' }));
    api.apply(podJson('other-app', { namespace: 'llm', labels: { app: 'x' }, ip: '10.0.0.3' }));
    start();
    await waitFor(() => api.openWatches === 1, 'the watch to open');
    assert.equal(watcher.synced, true);
    assert.deepEqual(names(), ['a']);
    const [list] = api.listRequests();
    const [watch] = api.watchRequests();
    assert.equal(list?.path, '/api/v1/namespaces/llm/pods');
    assert.equal(list?.query.get('labelSelector'), 'app=sglang');
    assert.equal(list?.authorization, 'Bearer fake-token');
    assert.equal(watch?.query.get('resourceVersion'), api.resourceVersion);
    assert.equal(watch?.query.get('labelSelector'), 'app=sglang');
    assert.equal(watch?.query.get('allowWatchBookmarks'), 'true');

    api.apply(podJson('b', { namespace: 'llm', labels: APP, ip: '10.0.0.4' }));
    await waitFor(() => names().includes('b'), 'the ADDED pod');
    api.remove('llm', 'a');
    await waitFor(() => !names().includes('a'), 'the DELETED pod to leave the store');
    // A label change away from the selector reaches the watch as DELETED.
    api.apply(podJson('b', { namespace: 'llm', labels: { app: 'x' }, ip: '10.0.0.4' }));
    await waitFor(() => watcher.store.size === 0, 'the relabelled pod to leave');
    assert.ok(changes >= 4, `onChange after the list and each event (got ${changes})`);
  });

  it('watches every namespace without --service-discovery-namespace', async () => {
    api.apply(podJson('a', { namespace: 'llm', labels: APP, ip: '10.0.0.1' }));
    api.apply(podJson('b', { namespace: 'prod', labels: APP, ip: '10.0.0.2' }));
    start(null);
    await waitFor(() => api.openWatches === 1, 'the watch to open');
    assert.equal(api.listRequests()[0]?.path, '/api/v1/pods');
    assert.equal(api.watchRequests()[0]?.path, '/api/v1/pods');
    assert.deepEqual(names(), ['a', 'b']);
  });

  it('resumes a dropped watch from the last version seen, replaying what it missed', async () => {
    api.apply(podJson('a', { namespace: 'llm', labels: APP, ip: '10.0.0.1' }));
    start();
    await waitFor(() => api.openWatches === 1, 'the watch to open');
    api.apply(podJson('b', { namespace: 'llm', labels: APP, ip: '10.0.0.2' }));
    await waitFor(() => names().includes('b'), 'b');
    const seen = api.resourceVersion;

    const release = api.holdWatches();
    api.dropWatches();
    await waitFor(() => api.watchRequests().length === 2, 'the watch to reconnect');
    api.apply(podJson('c', { namespace: 'llm', labels: APP, ip: '10.0.0.3' }));
    release();

    await waitFor(() => names().includes('c'), 'the pod added while disconnected');
    assert.equal(api.watchRequests()[1]?.query.get('resourceVersion'), seen);
    assert.equal(api.listRequests().length, 1, 'a resumed watch lists nothing again');
  });

  for (const goneAs of ['event', 'http'] as const) {
    it(`re-lists when the version to resume from is gone (410 as ${goneAs === 'event' ? 'an ERROR event' : 'HTTP 410'})`, async () => {
      api.goneAs = goneAs;
      api.apply(podJson('a', { namespace: 'llm', labels: APP, ip: '10.0.0.1' }));
      api.apply(podJson('b', { namespace: 'llm', labels: APP, ip: '10.0.0.2' }));
      start();
      await waitFor(() => api.openWatches === 1, 'the watch to open');

      const release = api.holdWatches();
      api.dropWatches();
      await waitFor(() => api.watchRequests().length === 2, 'the watch to reconnect');
      // Missed, and then compacted away: only a fresh list can tell the watcher.
      api.remove('llm', 'a');
      api.compact();
      release();

      await waitFor(() => api.listRequests().length === 2, 'a re-list');
      await waitFor(() => api.openWatches === 1, 'a new watch from the new list');
      assert.deepEqual(names(), ['b']);
      const last = api.watchRequests().at(-1);
      assert.equal(last?.query.get('resourceVersion'), api.resourceVersion);
      assert.ok(log.records.some((r) => String(r.msg).includes('410')));
    });
  }

  it('re-lists when an open watch ends with a 410 ERROR event', async () => {
    api.apply(podJson('a', { namespace: 'llm', labels: APP, ip: '10.0.0.1' }));
    start();
    await waitFor(() => api.openWatches === 1, 'the watch to open');
    api.expireWatches();
    await waitFor(() => api.listRequests().length === 2, 'a re-list');
    await waitFor(() => api.openWatches === 1, 'the watch to reopen');
    assert.deepEqual(names(), ['a']);
  });

  it('retries a refused list with backoff and logs why', async () => {
    api.apply(podJson('a', { namespace: 'llm', labels: APP, ip: '10.0.0.1' }));
    api.failLists(403, 2);
    start();
    await waitFor(() => api.openWatches === 1, 'the watch after two refused lists');
    assert.equal(api.listRequests().length, 3);
    assert.deepEqual(names(), ['a']);
    const errors = log.records.filter((r) => r.level === 50);
    assert.equal(errors.length, 2);
    assert.match(String(errors[0]?.err), /HTTP 403: status 403/);
  });

  it('stops while a watch request is unanswered, leaving nothing open', async () => {
    start();
    await waitFor(() => api.openWatches === 1, 'the watch to open');
    const release = api.holdWatches();
    api.dropWatches();
    await waitFor(() => api.watchRequests().length === 2, 'the reconnect to be held');
    await watcher.stop();
    release();
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(api.openWatches, 0);
    assert.equal(api.watchRequests().length, 2, 'no watch after stop');
  });
});
