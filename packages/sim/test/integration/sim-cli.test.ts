// `switchyard sim` as a user runs it: a child process that announces its workers, serves them and
// exits 0 on SIGTERM; a bad flag exits 2 with one line on stderr.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';

const root = fileURLToPath(new URL('../..', import.meta.url));
// The built package, as the gateway's binary loads it.
const entry = import.meta.resolve('@switchyard/sim');
// Stands in for bin/switchyard's `sim` dispatch, which the gateway owns.
const script = `import { runSimCommand } from ${JSON.stringify(entry)};
process.exitCode = await runSimCommand(process.argv.slice(1));`;

function spawnSim(args: string[]) {
  const child = spawn(process.execPath, ['--input-type=module', '-e', script, '--', ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  return { child, exited, out: () => stdout, err: () => stderr };
}

void describe('switchyard sim (child process)', () => {
  void it('serves until SIGTERM and exits 0', async () => {
    const sim = spawnSim(['--runtime', 'sglang', '--port', '0', '--count', '2', '--seed', '3']);
    try {
      const deadline = Date.now() + 8000;
      while (sim.out().split('\n').length < 3 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
      }
      const lines = sim.out().trim().split('\n');
      assert.equal(lines.length, 2, `stdout: ${sim.out()} stderr: ${sim.err()}`);
      assert.match(
        lines[0] ?? '',
        /^sim worker sim-\d+ \(sglang, model sim-model\) listening on http:/,
      );
      const url = /(http:\S+)$/.exec(lines[1] ?? '')?.[1] ?? '';
      const res = await fetch(`${url}/server_info`);
      assert.equal(res.status, 200);
      await res.text();
      sim.child.kill('SIGTERM');
      const [code] = await sim.exited;
      assert.equal(code, 0);
    } finally {
      if (sim.child.exitCode === null) sim.child.kill('SIGKILL');
    }
  });

  void it('exits 2 on an unknown flag, naming it in one line', async () => {
    const sim = spawnSim(['--nope']);
    const [code] = await sim.exited;
    assert.equal(code, 2);
    assert.equal(sim.err(), 'error: unknown flag --nope\n');
  });

  void it('serves a mixed fleet from a YAML file, with flags as defaults', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sim-cli-'));
    const file = join(dir, 'fleet.yaml');
    await writeFile(
      file,
      'workers:\n  - role: prefill\n  - role: decode\n    maxRunningRequests: 2\n  - runtime: vllm\n',
    );
    const sim = spawnSim(['--fleet', file, '--port', '0', '--engine', 'realistic']);
    try {
      const deadline = Date.now() + 8000;
      while (sim.out().split('\n').length < 4 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
      }
      const lines = sim.out().trim().split('\n');
      assert.equal(lines.length, 3, `stdout: ${sim.out()} stderr: ${sim.err()}`);
      assert.match(
        lines[0] ?? '',
        /\(sglang, model sim-model, prefill, realistic\) .* \(bootstrap port \d+\)$/,
      );
      assert.match(
        lines[1] ?? '',
        /\(sglang, model sim-model, decode, realistic\) listening on http:\S+$/,
      );
      assert.match(lines[2] ?? '', /\(vllm, model sim-model, realistic\)/);
      const url = /(http:\S+)$/.exec(lines[1] ?? '')?.[1] ?? '';
      const info = (await (await fetch(`${url}/server_info`)).json()) as Record<string, unknown>;
      assert.equal(info['max_running_requests'], 2);
      assert.equal(info['disaggregation_mode'], 'decode');
      sim.child.kill('SIGTERM');
      const [code] = await sim.exited;
      assert.equal(code, 0);
    } finally {
      if (sim.child.exitCode === null) sim.child.kill('SIGKILL');
      await rm(dir, { recursive: true, force: true });
    }
  });
});
