// A pod becomes workers as SMG's discovery maps it: one per port of smg.ai/worker-ports (else
// --service-discovery-port), wanted only while Running and Ready, PD role by selector with
// the prefill's bootstrap port, the pod's name and uid as labels, and the model id override.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  desiredState,
  podWorkerUrl,
  workerSpecOf,
} from '../../../src/discovery/kubernetes/desired-workers.js';
import type { PodObject, PodReadConfig } from '../../../src/discovery/kubernetes/pod.js';
import { parseModelIdSource } from '../../../src/discovery/kubernetes/model-id-source.js';
import { parseSelector } from '../../../src/discovery/kubernetes/selector.js';

const REGULAR: PodReadConfig = {
  pdMode: false,
  selector: parseSelector(['app=sglang']),
  prefillSelector: new Map(),
  decodeSelector: new Map(),
  port: 8000,
  bootstrapPortAnnotation: 'sglang.ai/bootstrap-port',
  modelIdSource: undefined,
};

const PD: PodReadConfig = {
  ...REGULAR,
  pdMode: true,
  prefillSelector: parseSelector(['app=sglang', 'role=prefill']),
  decodeSelector: parseSelector(['app=sglang', 'role=decode']),
};

interface PodOptions {
  ip?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  phase?: string;
  ready?: boolean;
  deleting?: boolean;
  namespace?: string;
  uid?: string;
}

function pod(name: string, o: PodOptions = {}): PodObject {
  return {
    metadata: {
      name,
      namespace: o.namespace ?? 'default',
      uid: o.uid ?? `uid-${name}`,
      labels: o.labels ?? { app: 'sglang' },
      annotations: o.annotations ?? {},
      ...(o.deleting ? { deletionTimestamp: '2030-01-01T00:00:00Z' } : {}),
    },
    status: {
      phase: o.phase ?? 'Running',
      podIP: o.ip ?? '10.0.0.1',
      conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True' }],
    },
  };
}

void describe('pod to worker', () => {
  it('makes one worker per annotated port (repeats dropped), else one at the flag port', () => {
    const state = desiredState(
      [
        pod('a', { annotations: { 'smg.ai/worker-ports': '8080, 8081,8080' } }),
        pod('b', { ip: '10.0.0.2' }),
        pod('c', { ip: '10.0.0.3', annotations: { 'smg.ai/worker-ports': '8080,zero' } }),
      ],
      REGULAR,
    );
    assert.deepEqual(
      state.addable.map((w) => w.url),
      [
        'http://10.0.0.1:8080',
        'http://10.0.0.1:8081',
        'http://10.0.0.2:8000',
        'http://10.0.0.3:8000',
      ],
    );
    const c = state.addable.find((w) => w.podName === 'c');
    assert.match(c?.problems[0] ?? '', /not a port list; using 8000/);
  });

  it('normalises the URL as every worker URL (port 80 dropped, IPv6 bracketed)', () => {
    assert.equal(podWorkerUrl('10.0.0.1', 80), 'http://10.0.0.1');
    assert.equal(podWorkerUrl('fd00::1', 8000), 'http://[fd00::1]:8000');
  });

  it("wants only the workers of Running and Ready pods, and counts every live pod's URLs as held", () => {
    const state = desiredState(
      [
        pod('ready'),
        pod('unready', { ip: '10.0.0.2', ready: false }),
        pod('pending', { ip: '10.0.0.3', phase: 'Pending' }),
      ],
      REGULAR,
    );
    assert.deepEqual(
      state.addable.map((w) => w.podName),
      ['ready'],
    );
    // Only a ready pod keeps its workers: the unready and pending pods' URLs are not wanted.
    assert.deepEqual([...state.uidByUrl], [['http://10.0.0.1:8000', 'uid-ready']]);
    assert.deepEqual(
      [...state.heldByUrl],
      [
        ['http://10.0.0.1:8000', 'uid-ready'],
        ['http://10.0.0.2:8000', 'uid-unready'],
        ['http://10.0.0.3:8000', 'uid-pending'],
      ],
    );
  });

  it('gives a URL to the ready pod when a pod that is not ready lists the same address', () => {
    const state = desiredState(
      [pod('finished', { phase: 'Succeeded', ready: false }), pod('new', { uid: 'uid-new' })],
      REGULAR,
    );
    assert.deepEqual([...state.uidByUrl], [['http://10.0.0.1:8000', 'uid-new']]);
    assert.deepEqual([...state.heldByUrl], [['http://10.0.0.1:8000', 'uid-new']]);
    assert.deepEqual(
      state.addable.map((w) => w.podName),
      ['new'],
    );
  });

  it('drops terminating, unselected, IP-less and uid-less pods entirely', () => {
    const noIp = pod('no-ip');
    const state = desiredState(
      [
        pod('terminating', { deleting: true }),
        pod('other', { ip: '10.0.0.2', labels: { app: 'vllm' } }),
        { ...noIp, status: { ...noIp.status, podIP: undefined } },
        pod('no-uid', { ip: '10.0.0.4', uid: '' }),
      ],
      REGULAR,
    );
    assert.equal(state.uidByUrl.size, 0);
    assert.equal(state.heldByUrl.size, 0);
    assert.equal(state.addable.length, 0);
  });

  it('gives PD roles by selector, prefill first, with bootstrap ports aligned per port', () => {
    const state = desiredState(
      [
        pod('p', {
          labels: { app: 'sglang', role: 'prefill' },
          annotations: {
            'smg.ai/worker-ports': '8080,8081',
            'sglang.ai/bootstrap-port': '9080,9081',
          },
        }),
        pod('p1', {
          ip: '10.0.0.2',
          labels: { app: 'sglang', role: 'prefill' },
          annotations: { 'smg.ai/worker-ports': '8080,8081', 'sglang.ai/bootstrap-port': '9000' },
        }),
        pod('bad', {
          ip: '10.0.0.3',
          labels: { app: 'sglang', role: 'prefill' },
          annotations: { 'smg.ai/worker-ports': '8080,8081', 'sglang.ai/bootstrap-port': '1,2,3' },
        }),
        pod('d', {
          ip: '10.0.0.4',
          labels: { app: 'sglang', role: 'decode' },
          annotations: { 'sglang.ai/bootstrap-port': '9000' },
        }),
        pod('neither', { ip: '10.0.0.5' }),
      ],
      PD,
    );
    assert.deepEqual(
      state.addable.map((w) => [w.podName, w.type, w.url, w.bootstrapPort]),
      [
        ['p', 'prefill', 'http://10.0.0.1:8080', 9080],
        ['p', 'prefill', 'http://10.0.0.1:8081', 9081],
        ['p1', 'prefill', 'http://10.0.0.2:8080', 9000],
        ['p1', 'prefill', 'http://10.0.0.2:8081', 9000],
        ['bad', 'prefill', 'http://10.0.0.3:8080', undefined],
        ['bad', 'prefill', 'http://10.0.0.3:8081', undefined],
        ['d', 'decode', 'http://10.0.0.4:8000', undefined],
      ],
    );
  });

  it('reads the bootstrap port from the annotation --bootstrap-port-annotation names', () => {
    const config = { ...PD, bootstrapPortAnnotation: 'example.com/bootstrap' };
    const [worker] = desiredState(
      [
        pod('p', {
          labels: { app: 'sglang', role: 'prefill' },
          annotations: { 'example.com/bootstrap': '7000' },
        }),
      ],
      config,
    ).addable;
    assert.equal(worker?.bootstrapPort, 7000);
  });

  it('takes the model id from the namespace, a label or an annotation; absent or empty names none', () => {
    const source = (s: string) => ({ ...REGULAR, modelIdSource: parseModelIdSource(s) });
    const p = pod('w', {
      namespace: 'team-a',
      labels: { app: 'sglang', model: 'llama', empty: '' },
      annotations: { 'smg.ai/model': 'qwen' },
    });
    const modelOf = (s: string) => desiredState([p], source(s)).addable[0]?.modelId;
    assert.equal(modelOf('namespace'), 'team-a');
    assert.equal(modelOf('NAMESPACE'), 'team-a');
    assert.equal(modelOf('label:model'), 'llama');
    assert.equal(modelOf('annotation:smg.ai/model'), 'qwen');
    assert.equal(modelOf('label:missing'), undefined);
    assert.equal(modelOf('label:empty'), undefined);
    assert.equal(parseModelIdSource('label:'), undefined);
    assert.equal(parseModelIdSource('pod'), undefined);
  });

  it('builds a spec with the role, bootstrap port, pod labels and model', () => {
    const [prefill] = desiredState(
      [
        pod('p', {
          labels: { app: 'sglang', role: 'prefill', model: 'llama' },
          annotations: { 'sglang.ai/bootstrap-port': '9000' },
        }),
      ],
      { ...PD, modelIdSource: parseModelIdSource('label:model') },
    ).addable;
    assert.ok(prefill);
    const spec = workerSpecOf(prefill);
    if (typeof spec === 'string') return assert.fail(spec);
    assert.equal(spec.url, 'http://10.0.0.1:8000');
    assert.equal(spec.worker_type, 'prefill');
    assert.equal(spec.bootstrap_port, 9000);
    assert.deepEqual(spec.models, [{ id: 'llama' }]);
    assert.deepEqual(spec.labels, {
      'smg.ai/pod-name': 'p',
      'smg.ai/pod-uid': 'uid-p',
      served_model_name: 'llama',
    });
  });

  it('refuses a pod IP no worker may have (link-local)', () => {
    const [worker] = desiredState([pod('w', { ip: '169.254.169.254' })], REGULAR).addable;
    assert.equal(worker, undefined);
  });
});
