// The tokenizer registration job: SMG's source order (label tokenizer_path, label model_path,
// --tokenizer-path, --model-path: a label beats a flag), a local directory first, otherwise
// GetTokenizer from the model's healthy gRPC workers in turn (UNIMPLEMENTED: the next one), one
// load per model, and a failure that names every worker, registers nothing and throws nothing.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EngineCallError } from '../../../src/engine/types.js';
import { GatewayMetrics } from '../../../src/observability/metrics.js';
import { EngineClients } from '../../../src/workers/engine-clients.js';
import { WorkerRegistry } from '../../../src/workers/registry.js';
import { TokenizerJob, type TokenizerJobConfig } from '../../../src/workers/tokenizer-job.js';
import { Worker } from '../../../src/workers/worker.js';
import {
  capturingLogger,
  fakeEngine,
  FakeConnector,
  FakeLoaders,
  FakeTokenizerRegistry,
  GRPC_STATUS,
} from '../../helpers/fake-engine.js';

const BUNDLE = { data: Buffer.from('zip'), sha256: 'ok' };

function setup(config: Partial<TokenizerJobConfig> = {}, dirs: string[] = []) {
  const registry = new WorkerRegistry(new GatewayMetrics());
  const connector = new FakeConnector();
  const clients = new EngineClients(connector);
  clients.attach(registry);
  const tokenizers = new FakeTokenizerRegistry();
  const loaders = new FakeLoaders();
  const log = capturingLogger();
  const job = new TokenizerJob(
    { l0: { enabled: false, maxEntries: 10000 }, ...config },
    {
      tokenizers,
      loaders,
      registry,
      clients,
      logger: log.logger,
      isDirectory: (p) => Promise.resolve(dirs.includes(p)),
    },
  );
  let port = 50100;
  const addWorker = (labels: Record<string, string>, tokenizer?: unknown): Worker => {
    const url = `grpc://127.0.0.1:${port++}`;
    connector.add(
      url,
      fakeEngine('sglang', {
        tokenizer: (tokenizer ?? BUNDLE) as typeof BUNDLE,
      }),
    );
    const worker = new Worker({
      id: url,
      url,
      type: 'regular',
      runtime: 'sglang',
      models: ['m'],
      labels,
      priority: 50,
      cost: 1,
      spec: {},
    });
    registry.add(worker);
    registry.setStatus(worker, 'ready');
    return worker;
  };
  return { job, tokenizers, loaders, log, addWorker, connector, registry };
}

void describe('tokenizer job: where the tokenizer comes from', () => {
  void it("a worker's tokenizer_path label beats --tokenizer-path (SMG correction 4)", async () => {
    const t = setup({ tokenizerPath: '/flag/tok', modelPath: '/flag/model' }, [
      '/w/tok',
      '/flag/tok',
    ]);
    const w = t.addWorker({ tokenizer_path: '/w/tok', model_path: '/w/model' });
    assert.equal(t.job.sourceFor(w), '/w/tok');
    await t.job.submit(w);
    assert.deepEqual(
      t.loaders.calls.map((c) => [c.kind, c.where]),
      [['dir', '/w/tok']],
    );
    assert.equal(t.tokenizers.get('m')?.source, '/w/tok');
  });

  void it('then label model_path, then --tokenizer-path, then --model-path', () => {
    const t = setup({ tokenizerPath: '/flag/tok', modelPath: '/flag/model' });
    assert.equal(t.job.sourceFor({ labels: { model_path: '/w/model' } }), '/w/model');
    assert.equal(t.job.sourceFor({ labels: {} }), '/flag/tok');
    assert.equal(setup({ modelPath: '/flag/model' }).job.sourceFor({ labels: {} }), '/flag/model');
    assert.equal(setup().job.sourceFor({ labels: {} }), undefined);
  });

  void it('passes --chat-template and the L0 settings to the loader', async () => {
    const t = setup({ chatTemplate: '/t/chat.jinja', l0: { enabled: true, maxEntries: 5 } }, [
      '/w/tok',
    ]);
    await t.job.submit(t.addWorker({ tokenizer_path: '/w/tok' }));
    assert.deepEqual(t.loaders.calls[0]?.opts, {
      modelId: 'm',
      source: '/w/tok',
      chatTemplatePath: '/t/chat.jinja',
      l0: { enabled: true, maxEntries: 5 },
    });
  });

  void it('a source that is not a local directory (an HF id) is not downloaded: GetTokenizer, and the log says so', async () => {
    const t = setup();
    const w = t.addWorker({ model_path: 'Qwen/Qwen3-0.6B' });
    await t.job.submit(w);
    assert.deepEqual(
      t.loaders.calls.map((c) => [c.kind, c.where]),
      [['bundle', `worker:${w.url}`]],
    );
    assert.equal(t.tokenizers.get('m')?.source, `worker:${w.url}`);
    assert.ok(t.log.records.some((r) => String(r.msg).includes('no hub download')));
  });

  void it('a local directory that fails to load falls back to the workers', async () => {
    const t = setup({}, ['/w/tok']);
    t.loaders.failingDirs.set('/w/tok', 'tokenizer.json is missing');
    const w = t.addWorker({ tokenizer_path: '/w/tok' });
    await t.job.submit(w);
    assert.deepEqual(
      t.loaders.calls.map((c) => c.kind),
      ['dir', 'bundle'],
    );
    assert.ok(t.tokenizers.has('m'));
  });
});

void describe('tokenizer job: GetTokenizer from the workers', () => {
  void it('UNIMPLEMENTED moves on to the next healthy worker of the model', async () => {
    const t = setup();
    const unimplemented = new EngineCallError(GRPC_STATUS.UNIMPLEMENTED, 'no GetTokenizer', true);
    const first = t.addWorker({}, unimplemented);
    const second = t.addWorker({});
    const unhealthy = t.addWorker({});
    t.registry.setStatus(unhealthy, 'not_ready');
    await t.job.submit(first);
    assert.equal(t.tokenizers.get('m')?.source, `worker:${second.url}`);
    const asked = [...t.connector.engines.values()].map((e) => e.calls.tokenizer);
    assert.deepEqual(asked, [1, 1, 0]);
  });

  void it('all failing: the error names every worker, nothing is registered, nothing throws', async () => {
    const t = setup();
    const a = t.addWorker({}, { data: Buffer.from('zip'), sha256: 'bad' });
    const b = t.addWorker({}, new EngineCallError(GRPC_STATUS.INTERNAL, 'disk on fire', false));
    await t.job.submit(a);
    assert.equal(t.tokenizers.has('m'), false);
    const failure = t.log.records.find((r) => r.msg === 'tokenizer registration failed');
    assert.ok(failure);
    const err = String(failure.err);
    assert.match(err, /No tokenizer for model m/);
    assert.ok(err.includes(`worker ${a.url}: Bundle fingerprint mismatch`), err);
    assert.ok(err.includes(`worker ${b.url}: disk on fire`), err);
    assert.equal(failure.worker, a.url);
  });

  void it('a second worker of the same model reuses the entry: one load', async () => {
    const t = setup({}, ['/w/tok']);
    t.loaders.gate = new Promise((r) => setTimeout(r, 10));
    const a = t.addWorker({ tokenizer_path: '/w/tok' });
    const b = t.addWorker({ tokenizer_path: '/w/tok' });
    await Promise.all([t.job.submit(a), t.job.submit(b)]);
    await t.job.submit(b);
    assert.equal(t.loaders.calls.length, 1);
    assert.ok(t.tokenizers.has('m'));
  });

  void it('ignores HTTP workers', async () => {
    const t = setup({ tokenizerPath: '/flag/tok' }, ['/flag/tok']);
    const http = new Worker({
      id: 'h',
      url: 'http://127.0.0.1:9',
      type: 'regular',
      runtime: 'sglang',
      models: ['m'],
      labels: {},
      priority: 50,
      cost: 1,
      spec: {},
    });
    await t.job.submit(http);
    assert.equal(t.loaders.calls.length, 0);
  });
});
