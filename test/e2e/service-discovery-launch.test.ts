// `switchyard launch --service-discovery`, as a user runs it: the binary finds the API server
// through $KUBECONFIG, registers the pod's worker, serves through it, and on SIGTERM stops
// watching and exits 0; with no Kubernetes configuration at all it refuses to start.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { request } from 'undici';
import { startSimWorker, type SimWorker } from '@switchyard/sim';
import { runCli, startCli, waitForLog, LOOPBACK_EPHEMERAL } from '../helpers/cli.js';
import { FakeKubeApi, podJson } from '../helpers/fake-kube-api.js';
import { waitFor } from '../helpers/wait-for.js';

let worker: SimWorker | undefined;
let api: FakeKubeApi | undefined;
const dir = mkdtempSync(join(tmpdir(), 'switchyard-kube-'));
after(async () => {
  await worker?.close();
  await api?.close();
  rmSync(dir, { recursive: true, force: true });
});

test('launch --service-discovery registers a pod from $KUBECONFIG and stops watching on SIGTERM', async () => {
  worker = await startSimWorker({ model: 'sim-model' });
  api = await FakeKubeApi.start();
  api.apply(
    podJson('w0', {
      namespace: 'llm',
      ip: '127.0.0.1',
      labels: { app: 'sglang' },
      annotations: { 'smg.ai/worker-ports': String(worker.port) },
    }),
  );
  const kubeconfig = join(dir, 'config');
  writeFileSync(kubeconfig, api.kubeconfigYaml());
  const run = startCli(
    [
      'launch',
      ...LOOPBACK_EPHEMERAL,
      '--log-json',
      '--service-discovery',
      '--selector',
      'app=sglang',
      '--service-discovery-namespace',
      'llm',
    ],
    { KUBECONFIG: kubeconfig },
  );
  try {
    const listening = await waitForLog(run, 'switchyard listening');
    const registering = await waitForLog(run, 'discovery: registering worker');
    assert.equal(registering.worker, worker.url);
    assert.equal(registering.pod, 'w0');
    await waitForLog(run, 'worker registered');
    const res = await request(`${String(listening.url)}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'sim-model', prompt: 'hi', max_tokens: 2 }),
    });
    assert.equal(res.statusCode, 200);
    await res.body.dump();
    assert.equal(api.openWatches, 1);
    assert.equal(api.watchRequests()[0]?.path, '/api/v1/namespaces/llm/pods');

    run.child.kill('SIGTERM');
    assert.equal(await run.exited, 0);
    await waitFor(() => api?.openWatches === 0, 'the watch to be closed');
  } finally {
    run.child.kill('SIGKILL');
  }
});

test(
  'launch --service-discovery without any Kubernetes configuration exits 1 saying so',
  {
    // Inside a pod the service account is a configuration: nothing to test there.
    skip: existsSync('/var/run/secrets/kubernetes.io/serviceaccount/token'),
  },
  () => {
    const home = mkdtempSync(join(dir, 'home-'));
    const r = runCli(
      ['launch', ...LOOPBACK_EPHEMERAL, '--service-discovery', '--selector', 'app=sglang'],
      20_000,
      { HOME: home, KUBECONFIG: '' },
    );
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /^switchyard launch: --service-discovery: no Kubernetes configuration/m);
  },
);
