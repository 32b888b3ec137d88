import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runSimCommand } from '../../../src/sim/cli.js';

class Capture {
  text = '';
  write(chunk: string): boolean {
    this.text += chunk;
    return true;
  }
}

async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const stdout = new Capture();
  const stderr = new Capture();
  const code = await runSimCommand(argv, { stdout, stderr, signal: AbortSignal.abort() });
  return { code, out: stdout.text, err: stderr.text };
}

void describe('runSimCommand flags', () => {
  void it('rejects an unknown flag with one line and exit code 2', async () => {
    const r = await run(['--bogus', '1']);
    assert.equal(r.code, 2);
    assert.equal(r.err, 'error: unknown flag --bogus\n');
  });

  void it('rejects a bad number naming the flag and the value', async () => {
    const r = await run(['--ttft-ms', 'abc']);
    assert.equal(r.code, 2);
    assert.equal(r.err, "error: --ttft-ms expects a number, got 'abc'\n");
    assert.equal(
      (await run(['--count=1.5'])).err,
      "error: --count expects an integer, got '1.5'\n",
    );
  });

  void it('rejects out-of-range values, bad runtimes, missing values and positionals', async () => {
    for (const argv of [
      ['--error-rate', '2'],
      ['--count', '0'],
      ['--runtime', 'trt'],
      ['--port'],
      ['extra'],
      ['--hang=yes'],
    ]) {
      const r = await run(argv);
      assert.equal(r.code, 2, argv.join(' '));
      assert.match(r.err, /^error: .+\n$/);
      assert.equal(r.err.split('\n').length, 2, 'one line');
    }
  });

  void it('prints help and returns 0', async () => {
    const r = await run(['--help']);
    assert.equal(r.code, 0);
    assert.match(r.out, /--drop-after-chunks/);
  });

  void it('starts workers, announces them, and returns 0 when stopped', async () => {
    const stdout = new Capture();
    const stop = new AbortController();
    const done = runSimCommand(
      ['--runtime', 'vllm', '--port', '0', '--count', '2', '--model', 'm1', '--ttft-ms=1'],
      { stdout, stderr: new Capture(), signal: stop.signal },
    );
    const deadline = Date.now() + 5000;
    while (stdout.text.split('\n').length < 3 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 5));
    }
    const lines = stdout.text.trim().split('\n');
    assert.equal(lines.length, 2);
    for (const line of lines) {
      assert.match(
        line,
        /^sim worker sim-\d+ \(vllm, model m1\) listening on http:\/\/127\.0\.0\.1:\d+$/,
      );
    }
    const url = /(http:\S+)$/.exec(lines[0] ?? '')?.[1] ?? '';
    const res = await fetch(`${url}/version`);
    assert.equal(res.status, 200);
    await res.text();
    stop.abort();
    assert.equal(await done, 0);
  });
});
