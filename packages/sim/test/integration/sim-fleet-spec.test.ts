// Mixed fleets from a spec or a fleet file: the demo's PD shape works end to end, ports are
// assigned as documented, and a bad spec fails before any worker starts.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import {
  loadSimFleetFile,
  parseFleetSpec,
  simDemoFleetSpec,
  startSimFleetFromSpec,
} from '../../src/index.js';
import { simPost } from '../../src/testing.js';
import { onConsecutivePorts } from '../helpers/ports.js';

let dir: string;

void describe('fleet specs', () => {
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sim-fleet-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  void it('the demo shape: 2 regular + 1 prefill + 1 decode whose PD handshake works', async () => {
    const fleet = await startSimFleetFromSpec(simDemoFleetSpec({ model: 'demo' }));
    try {
      assert.deepEqual(
        fleet.workers.map((w) => [w.name, w.role, w.runtime, w.engine]),
        [
          ['regular-0', 'regular', 'sglang', 'realistic'],
          ['regular-1', 'regular', 'sglang', 'realistic'],
          ['prefill-0', 'prefill', 'sglang', 'realistic'],
          ['decode-0', 'decode', 'sglang', 'realistic'],
        ],
      );
      const [p] = fleet.byRole('prefill');
      const [d] = fleet.byRole('decode');
      assert.ok(p?.bootstrapPort !== undefined && d !== undefined);
      const info = (await (await fetch(`${p.url}/server_info`)).json()) as Record<string, unknown>;
      assert.equal(info['disaggregation_mode'], 'prefill');
      assert.equal(info['disaggregation_bootstrap_port'], p.bootstrapPort);
      const body = `{"model":"demo","messages":[{"role":"user","content":"hi"}],"max_tokens":3,"bootstrap_host":"127.0.0.1","bootstrap_port":${p.bootstrapPort},"bootstrap_room":4611686018427387904}`;
      const [pr, dr] = await Promise.all([
        simPost(`${p.url}/v1/chat/completions`, body),
        simPost(`${d.url}/v1/chat/completions`, body),
      ]);
      assert.equal(pr.status, 200, pr.text);
      assert.equal(dr.status, 200, dr.text);
      assert.equal(d.stats().kvTransfers, 1);
      assert.deepEqual(d.stats().roomsSeen, ['4611686018427387904']);
    } finally {
      await fleet.close();
    }
  });

  void it('assigns consecutive ports from basePort across groups', async () => {
    let base = 0;
    const fleet = await onConsecutivePorts(3, (b) => {
      base = b;
      return startSimFleetFromSpec({
        basePort: b,
        defaults: { runtime: 'vllm' },
        workers: [{ count: 2 }, { runtime: 'tokenspeed', maxRunningRequests: 8 }],
      });
    });
    try {
      assert.deepEqual(
        fleet.workers.map((w) => w.port),
        [base, base + 1, base + 2],
      );
      assert.deepEqual(
        fleet.workers.map((w) => w.runtime),
        ['vllm', 'vllm', 'tokenspeed'],
      );
      const info = (await (await fetch(`${fleet.workers[2]?.url}/server_info`)).json()) as {
        max_num_seqs: number;
      };
      assert.equal(info.max_num_seqs, 8);
    } finally {
      await fleet.close();
    }
  });

  void it('rejects unknown keys and bad values before starting anything', () => {
    assert.throws(() => parseFleetSpec({ workers: [] }), /non-empty/);
    assert.throws(() => parseFleetSpec({ workers: [{ rol: 'prefill' }] }), /unknown option 'rol'/);
    assert.throws(() => parseFleetSpec({ workers: [{ role: 'router' }] }), /role/);
    assert.throws(() => parseFleetSpec({ workers: [{ count: 0 }] }), /count/);
    assert.throws(() => parseFleetSpec({ worker: [{}] }), /unknown key 'worker'/);
  });

  void it('loads JSON and YAML fleet files', async () => {
    const json = join(dir, 'fleet.json');
    await writeFile(json, JSON.stringify({ workers: [{ role: 'decode', maxRunningRequests: 4 }] }));
    assert.deepEqual((await loadSimFleetFile(json)).workers, [
      { role: 'decode', maxRunningRequests: 4 },
    ]);
    const yaml = join(dir, 'fleet.yaml');
    await writeFile(
      yaml,
      'defaults:\n  engine: realistic\nworkers:\n  - role: prefill\n    count: 2\n',
    );
    const spec = await loadSimFleetFile(yaml);
    assert.deepEqual(spec.defaults, { engine: 'realistic' });
    const fleet = await startSimFleetFromSpec(spec);
    try {
      assert.equal(fleet.byRole('prefill').length, 2);
      assert.equal(new Set(fleet.workers.map((w) => w.bootstrapPort)).size, 2);
    } finally {
      await fleet.close();
    }
  });
});
