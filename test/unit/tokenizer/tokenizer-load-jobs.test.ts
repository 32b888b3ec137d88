// The background tokenizer loads behind POST /v1/tokenizers and the startup path: a job is
// pending, then processing, then gone once its entry is in the catalog under the job's id; a
// failure keeps its message for 5 minutes; a source that is not a local path fails at once
// naming the missing hub download; duplicates, empty names and a full queue answer as SMG.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '@switchyard/kit';
import { silentLogger } from '../../../src/observability/logger.js';
import { TokenizerCatalog } from '../../../src/tokenizer/catalog.js';
import {
  FAILED_STATUS_TTL_MS,
  TokenizerLoadJobs,
  tokenizerLoadsFromConfig,
} from '../../../src/tokenizer/load-jobs.js';
import { TokenizerRegistry } from '../../../src/tokenizer/registry.js';
import { FakeLoaders } from '../../helpers/fake-engine.js';

function setup(opts: { capacity?: number; local?: (p: string) => boolean } = {}) {
  const clock = new ManualClock();
  const registry = new TokenizerRegistry({ clock });
  const catalog = new TokenizerCatalog(registry);
  const loaders = new FakeLoaders();
  const local = opts.local ?? ((p: string) => p.startsWith('/'));
  const jobs = new TokenizerLoadJobs({
    catalog,
    loadDir: (dir, o) => loaders.loadDir(dir, o),
    clock,
    logger: silentLogger(),
    isLocalPath: async (p) => local(p),
    ...(opts.capacity === undefined ? {} : { capacity: opts.capacity }),
  });
  return { clock, registry, catalog, loaders, jobs };
}

function queued(s: ReturnType<TokenizerLoadJobs['submit']>): string {
  assert.equal(s.kind, 'queued', JSON.stringify(s));
  return (s as { id: string }).id;
}

void describe('tokenizer load jobs', () => {
  it('goes pending, processing, then hands the entry to the catalog under the job id', async () => {
    const { jobs, catalog, loaders, registry } = setup();
    let open!: () => void;
    loaders.gate = new Promise<void>((r) => (open = r));
    const id = queued(jobs.submit({ name: 'm', source: '/dir', failOnDuplicate: true }));
    assert.equal(jobs.status(id)?.status, 'pending');
    await new Promise((r) => setImmediate(r));
    assert.equal(jobs.status(id)?.status, 'processing');
    assert.equal(jobs.status(id)?.message, undefined);
    open();
    await jobs.idle();
    assert.equal(jobs.status(id), undefined, 'a completed job leaves no status, as SMG');
    assert.equal(catalog.byId(id)?.name, 'm');
    assert.equal(registry.get('m')?.source, '/dir');
    // The API's loads are not cached (SMG applies the L0 flags to startup loads only).
    assert.deepEqual(loaders.calls[0]?.opts, {
      modelId: 'm',
      source: '/dir',
      chatTemplatePath: undefined,
      l0: { enabled: false, maxEntries: 0 },
    });
  });

  it('answers duplicate with the loaded entry id', async () => {
    const { jobs, catalog } = setup();
    const id = queued(jobs.submit({ name: 'm', source: '/dir', failOnDuplicate: true }));
    await jobs.idle();
    assert.deepEqual(jobs.submit({ name: 'm', source: '/other', failOnDuplicate: true }), {
      kind: 'duplicate',
      id,
    });
    assert.equal(catalog.list().length, 1);
  });

  it('fails a second job for a name taken while it waited; the startup job just finishes', async () => {
    const { jobs, catalog } = setup();
    const first = queued(jobs.submit({ name: 'm', source: '/a', failOnDuplicate: true }));
    const second = queued(jobs.submit({ name: 'm', source: '/b', failOnDuplicate: true }));
    const quiet = queued(jobs.submit({ name: 'm', source: '/c', failOnDuplicate: false }));
    await jobs.idle();
    assert.equal(catalog.byName('m')?.id, first);
    assert.equal(jobs.status(second)?.status, 'failed');
    assert.equal(jobs.status(second)?.message, `Tokenizer 'm' already exists (id: ${first})`);
    assert.equal(jobs.status(quiet), undefined);
    assert.equal(catalog.byName('m')?.tokenizer.source, '/a');
  });

  it('fails a source that is not a local path without loading, naming the hub', async () => {
    const { jobs, loaders } = setup();
    const id = queued(jobs.submit({ name: 'q', source: 'Qwen/Qwen3-0.6B', failOnDuplicate: true }));
    await jobs.idle();
    const s = jobs.status(id);
    assert.equal(s?.status, 'failed');
    assert.match(s.message ?? '', /'Qwen\/Qwen3-0\.6B' is not a local path/);
    assert.match(s.message ?? '', /Hugging Face hub/);
    assert.equal(loaders.calls.length, 0);
  });

  it("keeps the loader's error in the failure message", async () => {
    const { jobs, loaders } = setup();
    loaders.failingDirs.set('/broken', 'no tokenizer.json in /broken');
    const id = queued(jobs.submit({ name: 'b', source: '/broken', failOnDuplicate: true }));
    await jobs.idle();
    assert.equal(
      jobs.status(id)?.message,
      "Failed to load tokenizer 'b' from /broken: no tokenizer.json in /broken",
    );
  });

  it("fails an empty name, then an empty source, with SMG's messages", async () => {
    const { jobs } = setup();
    const noName = queued(jobs.submit({ name: '', source: '', failOnDuplicate: true }));
    const noSource = queued(jobs.submit({ name: 'n', source: '', failOnDuplicate: true }));
    await jobs.idle();
    assert.equal(jobs.status(noName)?.message, 'tokenizer name cannot be empty');
    assert.equal(jobs.status(noSource)?.message, 'tokenizer source cannot be empty');
  });

  it('forgets a failed status 5 minutes after the failure', async () => {
    const { jobs, clock } = setup();
    const id = queued(jobs.submit({ name: 'x', source: 'hub/id', failOnDuplicate: true }));
    await jobs.idle();
    clock.advance(FAILED_STATUS_TTL_MS - 1);
    assert.equal(jobs.status(id)?.status, 'failed');
    clock.advance(1);
    assert.equal(jobs.status(id), undefined);
  });

  it('answers full past the queue capacity, and keeps failed statuses bounded', async () => {
    const { jobs } = setup({ capacity: 2 });
    const ids = [
      queued(jobs.submit({ name: 'a', source: 'hub/a', failOnDuplicate: true })),
      queued(jobs.submit({ name: 'b', source: 'hub/b', failOnDuplicate: true })),
    ];
    const full = jobs.submit({ name: 'c', source: 'hub/c', failOnDuplicate: true });
    assert.equal(full.kind, 'full');
    assert.match((full as { message: string }).message, /^Job queue full: 2 jobs pending/);
    await jobs.idle();
    ids.push(queued(jobs.submit({ name: 'd', source: 'hub/d', failOnDuplicate: true })));
    await jobs.idle();
    assert.equal(jobs.status(ids[0] as string), undefined, 'the oldest failure was evicted');
    assert.equal(jobs.status(ids[2] as string)?.status, 'failed');
  });

  it('refuses jobs after close', () => {
    const { jobs } = setup();
    jobs.close();
    assert.equal(jobs.submit({ name: 'a', source: '/a', failOnDuplicate: true }).kind, 'full');
  });
});

void describe('tokenizerLoadsFromConfig', () => {
  const base: Parameters<typeof tokenizerLoadsFromConfig>[0] = {
    disableTokenizerAutoload: false,
    tokenizerPath: undefined,
    modelPath: undefined,
    chatTemplate: '/t.jinja',
    tokenizerCacheEnableL0: true,
    tokenizerCacheL0MaxEntries: 7,
  };

  async function startWith(c: Partial<typeof base>) {
    const clock = new ManualClock();
    const catalog = new TokenizerCatalog(new TokenizerRegistry({ clock }));
    const loaders = new FakeLoaders();
    const jobs = tokenizerLoadsFromConfig(
      { ...base, ...c },
      {
        catalog,
        loadDir: (dir, o) => loaders.loadDir(dir, o),
        clock,
        logger: silentLogger(),
      },
    );
    jobs.start();
    await jobs.idle();
    return { catalog, loaders };
  }

  it('registers --tokenizer-path under the path string, with the flags SMG gives it', async () => {
    const dir = process.cwd();
    const { catalog, loaders } = await startWith({ tokenizerPath: dir, modelPath: '/elsewhere' });
    assert.deepEqual(
      catalog.list().map((e) => e.name),
      [dir],
    );
    assert.deepEqual(loaders.calls[0]?.opts, {
      modelId: dir,
      source: dir,
      chatTemplatePath: '/t.jinja',
      l0: { enabled: true, maxEntries: 7 },
    });
  });

  it('falls back to --model-path', async () => {
    const dir = process.cwd();
    const { catalog } = await startWith({ modelPath: dir });
    assert.equal(catalog.list()[0]?.name, dir);
  });

  it('loads nothing under --disable-tokenizer-autoload, or without a path', async () => {
    const off = await startWith({ tokenizerPath: process.cwd(), disableTokenizerAutoload: true });
    assert.equal(off.loaders.calls.length, 0);
    const none = await startWith({});
    assert.equal(none.loaders.calls.length, 0);
  });
});
