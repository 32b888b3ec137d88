import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WorkerSpec } from '../../../src/workers/spec.js';
import { parseWorkerSpec, workerPatchSchema } from '../../../src/workers/spec.js';

function accept(input: unknown): WorkerSpec {
  const r = parseWorkerSpec(input);
  if (!r.ok) assert.fail(r.message);
  return r.spec;
}

function reject(input: unknown, pattern: RegExp): void {
  const r = parseWorkerSpec(input);
  assert.equal(r.ok, false, `accepted ${JSON.stringify(input)}`);
  if (!r.ok) {
    assert.match(r.message, /^Invalid worker spec: /);
    assert.match(r.message, pattern);
  }
}

void describe('parseWorkerSpec: defaults', () => {
  void it('gives a bare {url} SMG’s defaults', () => {
    const spec = accept({ url: 'http://127.0.0.1:8000' });
    assert.equal(spec.url, 'http://127.0.0.1:8000');
    assert.equal(spec.worker_type, 'regular');
    assert.equal(spec.connection_mode, 'http');
    assert.equal(spec.priority, 50);
    assert.equal(spec.cost, 1.0);
    assert.deepEqual(spec.models, []);
    assert.deepEqual(spec.labels, {});
    assert.equal(spec.runtime, undefined);
    assert.equal(spec.api_key, undefined);
    assert.equal(spec.bootstrap_port, undefined);
  });

  void it('accepts https URLs', () => {
    assert.equal(accept({ url: 'https://worker.example:8443' }).url, 'https://worker.example:8443');
  });
});

void describe('parseWorkerSpec: fields', () => {
  void it('reads worker_type case-insensitively', () => {
    assert.equal(accept({ url: 'http://w:1', worker_type: 'PREFILL' }).worker_type, 'prefill');
    assert.equal(accept({ url: 'http://w:1', worker_type: 'Decode' }).worker_type, 'decode');
    reject({ url: 'http://w:1', worker_type: 'encode' }, /'worker_type'/);
  });

  void it('reads runtime and runtime_type case-insensitively', () => {
    const spec = accept({ url: 'http://w:1', runtime: 'VLLM', runtime_type: 'SGLang' });
    assert.equal(spec.runtime, 'vllm');
    assert.equal(spec.runtime_type, 'sglang');
    assert.equal(accept({ url: 'http://w:1', runtime: 'tokenspeed' }).runtime, 'tokenspeed');
    reject({ url: 'http://w:1', runtime: 'llamacpp' }, /'runtime'/);
    reject({ url: 'http://w:1', runtime_type: 'llamacpp' }, /'runtime_type'/);
  });

  void it('takes models as strings or {id} objects and normalizes both to {id}', () => {
    const spec = accept({ url: 'http://w:1', models: ['llama', { id: 'qwen', aliases: ['q'] }] });
    assert.equal(spec.models.length, 2);
    assert.deepEqual(spec.models[0], { id: 'llama' });
    assert.equal(spec.models[1]?.id, 'qwen');
    assert.deepEqual((spec.models[1] as { aliases?: string[] }).aliases, ['q']);
  });

  void it('rejects empty or id-less model cards', () => {
    reject({ url: 'http://w:1', models: [''] }, /'models\.0'/);
    reject({ url: 'http://w:1', models: [{ name: 'x' }] }, /'models\.0'/);
    reject({ url: 'http://w:1', models: 'llama' }, /'models'/);
  });

  void it('allows a null bootstrap_port and rejects 0 and 70000', () => {
    assert.equal(accept({ url: 'http://w:1', bootstrap_port: null }).bootstrap_port, null);
    assert.equal(accept({ url: 'http://w:1', bootstrap_port: 9001 }).bootstrap_port, 9001);
    assert.equal(accept({ url: 'http://w:1', bootstrap_port: 65535 }).bootstrap_port, 65535);
    reject({ url: 'http://w:1', bootstrap_port: 0 }, /'bootstrap_port'/);
    reject({ url: 'http://w:1', bootstrap_port: 70000 }, /'bootstrap_port'/);
    reject({ url: 'http://w:1', bootstrap_port: '9001' }, /'bootstrap_port'/);
  });

  void it('checks priority, cost and labels', () => {
    const spec = accept({ url: 'http://w:1', priority: 0, cost: 0.25, labels: { zone: 'a' } });
    assert.equal(spec.priority, 0);
    assert.equal(spec.cost, 0.25);
    assert.deepEqual(spec.labels, { zone: 'a' });
    reject({ url: 'http://w:1', priority: -1 }, /'priority'/);
    reject({ url: 'http://w:1', priority: 1.5 }, /'priority'/);
    reject({ url: 'http://w:1', cost: -0.1 }, /'cost'/);
    reject({ url: 'http://w:1', labels: { n: 1 } }, /'labels\.n'/);
  });

  void it('derives the connection mode from the scheme; a stated mode must agree', () => {
    assert.equal(accept({ url: 'http://w:1' }).connection_mode, 'http');
    assert.equal(accept({ url: 'grpc://w:1' }).connection_mode, 'grpc');
    assert.equal(accept({ url: 'grpcs://w:1', connection_mode: 'GRPC' }).connection_mode, 'grpc');
    assert.equal(accept({ url: 'http://w:1', connection_mode: 'http' }).connection_mode, 'http');
    reject(
      { url: 'http://w:1', connection_mode: 'grpc' },
      /'connection_mode' is 'grpc' but the URL http:\/\/w:1 is an http URL; use a grpc:\/\/ or grpcs:\/\/ URL/,
    );
    reject({ url: 'grpc://w:1', connection_mode: 'http' }, /'connection_mode' is 'http' but/);
    reject({ url: 'grpc://w:1', connection_mode: 'zmq' }, /'connection_mode'/);
  });

  void it('checks the health override', () => {
    const spec = accept({
      url: 'http://w:1',
      health: { timeout_secs: 3, disable_health_check: true },
    });
    assert.deepEqual(spec.health, { timeout_secs: 3, disable_health_check: true });
    reject({ url: 'http://w:1', health: { timeout_secs: 0 } }, /'health\.timeout_secs'/);
  });
});

void describe('parseWorkerSpec: url', () => {
  void it('rejects non-http URLs and non-URLs with a message naming url', () => {
    reject(
      { url: 'ftp://x' },
      /'url' must be an http:\/\/, https:\/\/, grpc:\/\/ or grpcs:\/\/ URL/,
    );
    reject({ url: 'not a url' }, /'url' /);
    reject({ url: '' }, /'url' /);
    reject({ url: 8000 }, /'url' /);
  });

  void it('rejects a spec without url, or a body that is not an object', () => {
    reject({}, /'url' /);
    reject({ models: ['m'] }, /'url' /);
    assert.equal(parseWorkerSpec(null).ok, false);
    assert.equal(parseWorkerSpec('http://w:1').ok, false);
    assert.equal(parseWorkerSpec([{ url: 'http://w:1' }]).ok, false);
  });

  void it('drops trailing slashes so one worker is one registry key', () => {
    assert.equal(accept({ url: 'http://127.0.0.1:8000/' }).url, 'http://127.0.0.1:8000');
    assert.equal(accept({ url: 'http://127.0.0.1:8000///' }).url, 'http://127.0.0.1:8000');
    assert.equal(accept({ url: 'http://w:1/v1/' }).url, 'http://w:1/v1');
    assert.equal(accept({ url: 'http://w:1' }).url, 'http://w:1');
  });
});

void describe('parseWorkerSpec: unknown fields', () => {
  void it('ignores fields it does not know, as serde does', () => {
    const r = parseWorkerSpec({ url: 'http://w:1', grpc_port: 'x', something_new: { deep: true } });
    assert.equal(r.ok, true);
    if (r.ok) assert.equal(r.spec.worker_type, 'regular');
  });
});

void describe('workerPatchSchema', () => {
  void it('accepts each mutable field and an empty patch', () => {
    const patch = {
      priority: 10,
      cost: 2.5,
      labels: { tier: 'gold' },
      api_key: 'k',
      health: { check_interval_secs: 5 },
    };
    assert.deepEqual(workerPatchSchema.parse(patch), patch);
    assert.deepEqual(workerPatchSchema.parse({}), {});
  });

  void it('range-checks the fields', () => {
    assert.equal(workerPatchSchema.safeParse({ priority: -1 }).success, false);
    assert.equal(workerPatchSchema.safeParse({ priority: 4294967296 }).success, false);
    assert.equal(workerPatchSchema.safeParse({ cost: -1 }).success, false);
    assert.equal(workerPatchSchema.safeParse({ api_key: '' }).success, false);
    assert.equal(workerPatchSchema.safeParse({ labels: { a: 1 } }).success, false);
    assert.equal(workerPatchSchema.safeParse({ health: { failure_threshold: 0 } }).success, false);
  });

  void it('does not carry immutable fields into the patch', () => {
    const parsed = workerPatchSchema.parse({
      priority: 1,
      url: 'http://other:1',
      worker_type: 'decode',
    });
    assert.deepEqual(parsed, { priority: 1 });
  });
});
