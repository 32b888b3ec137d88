// The watcher's pod store: keyed by namespace and name, replaced whole by a list, changed by
// events, and holding only the fields discovery reads (no managedFields, no spec).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PodObject } from '../../../src/discovery/kubernetes/pod.js';
import { PodStore } from '../../../src/discovery/kubernetes/pod-store.js';

const pod = (namespace: string, name: string, ip = '10.0.0.1'): PodObject =>
  ({
    metadata: {
      name,
      namespace,
      uid: `uid-${name}`,
      labels: { app: 'sglang' },
      managedFields: [{ manager: 'kubelet', fieldsV1: { 'f:status': {} } }],
    },
    spec: { containers: [{ name: 'engine', image: 'sglang:latest' }] },
    status: {
      phase: 'Running',
      podIP: ip,
      hostIP: '192.168.0.1',
      conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2030-01-01T00:00:00Z' }],
    },
  }) as unknown as PodObject;

void describe('pod store', () => {
  it('keys pods by namespace and name, a list replacing everything', () => {
    const store = new PodStore();
    store.replace([pod('a', 'w'), pod('b', 'w'), pod('a', 'x')]);
    assert.equal(store.size, 3);
    store.apply('MODIFIED', pod('a', 'w', '10.0.0.9'));
    store.apply('DELETED', pod('b', 'w'));
    assert.deepEqual(
      [...store.values()].map(
        (p) => `${p.metadata?.namespace}/${p.metadata?.name} ${p.status?.podIP}`,
      ),
      ['a/w 10.0.0.9', 'a/x 10.0.0.1'],
    );
    store.replace([pod('c', 'y')]);
    assert.deepEqual(
      [...store.values()].map((p) => p.metadata?.name),
      ['y'],
    );
  });

  it('keeps only what discovery reads', () => {
    const store = new PodStore();
    store.apply('ADDED', pod('a', 'w'));
    const [kept] = [...store.values()];
    assert.deepEqual(JSON.parse(JSON.stringify(kept)), {
      metadata: { name: 'w', namespace: 'a', uid: 'uid-w', labels: { app: 'sglang' } },
      status: {
        phase: 'Running',
        podIP: '10.0.0.1',
        conditions: [{ type: 'Ready', status: 'True' }],
      },
    });
  });
});
