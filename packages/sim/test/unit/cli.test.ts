import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runSimCommand } from '../../src/cli.js';
import { parseSimFlags, toWorkerOptions, usage } from '../../src/cli-flags.js';

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

  void it('refuses gRPC-only flags on HTTP workers', async () => {
    const r = await run(['--answer-text', 'hi']);
    assert.equal(r.code, 2);
    assert.equal(
      r.err,
      'error: --answer-text applies to gRPC workers only (add --protocol grpc)\n',
    );
    assert.equal((await run(['--protocol', 'grpc', '--grpc-status', '17'])).code, 2);
  });

  void it('maps the gRPC flags onto worker options and faults', () => {
    const opts = toWorkerOptions(
      parseSimFlags([
        '--protocol=grpc',
        '--tokenizer-dir=/tok',
        '--answer-text=Hello world',
        '--eos-token-id=7',
        '--grpc-status=14',
        '--tokenizer-bad-sha',
        '--abort-delay-ms=50',
      ]),
    );
    assert.deepEqual(opts, {
      protocol: 'grpc',
      tokenizerDir: '/tok',
      answerText: 'Hello world',
      eosTokenId: 7,
      faults: { grpcStatus: 14, tokenizerBadSha: true, abortDelayMs: 50 },
    });
  });

  void it('serves gRPC workers with --protocol grpc', async () => {
    const r = await run(['--protocol', 'grpc', '--runtime', 'vllm', '--port', '0']);
    assert.equal(r.code, 0, r.err);
    assert.match(
      r.out,
      /^sim worker sim-\d+ \(vllm, model sim-model, grpc\) listening on grpc:\/\/127\.0\.0\.1:\d+\n$/,
    );
  });

  void it('serves a PD role over gRPC, with its bootstrap port', async () => {
    const r = await run(['--protocol', 'grpc', '--role', 'prefill', '--port', '0']);
    assert.equal(r.code, 0, r.err);
    assert.match(
      r.out,
      /^sim worker sim-\d+ \(sglang, model sim-model, grpc, prefill\) listening on grpc:\/\/127\.0\.0\.1:\d+ \(bootstrap port \d+\)\n$/,
    );
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

  void it('rejects bad values of the new flags, and --count with --fleet', async () => {
    for (const [argv, message] of [
      [['--engine', 'turbo'], "error: --engine must be one of canned, realistic, got 'turbo'\n"],
      [
        ['--role', 'router'],
        "error: --role must be one of regular, prefill, decode, got 'router'\n",
      ],
      [['--prefix-cache', 'yes'], "error: --prefix-cache must be one of true, false, got 'yes'\n"],
      [['--time-scale', '0'], "error: --time-scale expects a value >= 0.000001, got '0'\n"],
      [
        ['--kv-connector', 'P2p'],
        /^error: --kv-connector must be one of NixlConnector, MooncakeConnector/,
      ],
      [['--slowdown', '5000'], /^error: --slowdown expects a value in \[0.01, 1000\]/],
      [['--fleet', 'f.json', '--count', '2'], 'error: --count cannot be combined with --fleet\n'],
    ] as const) {
      const r = await run([...argv]);
      assert.equal(r.code, 2, argv.join(' '));
      if (typeof message === 'string') assert.equal(r.err, message);
      else assert.match(r.err, message);
    }
  });

  void it('fails with 1 on a missing or bad fleet file', async () => {
    const r = await run(['--fleet', '/nonexistent/fleet.json']);
    assert.equal(r.code, 1);
    assert.match(r.err, /^error: bad fleet file: .*ENOENT/);
  });

  void it('documents every flag in the help', async () => {
    const r = await run(['--help']);
    for (const flag of [
      '--engine',
      '--time-scale',
      '--prefill-tps',
      '--role',
      '--bootstrap-port',
      '--waiting-timeout-secs',
      '--kv-connector',
      '--kv-abort-timeout-secs',
      '--fleet',
      '--slow-start-ms',
      '--flap-period-ms',
      '--slowdown',
      '--fault-duration-ms',
      '--fault-max-fires',
    ]) {
      assert.ok(r.out.includes(flag), flag);
    }
  });

  void it('announces a PD role, the engine and the bootstrap port', async () => {
    const stdout = new Capture();
    const stop = new AbortController();
    const done = runSimCommand(
      [
        '--engine',
        'realistic',
        '--role',
        'prefill',
        '--port',
        '0',
        '--bootstrap-port',
        '0',
        '--time-scale',
        '0.5',
        '--fault-max-fires',
        '1',
        '--error-rate',
        '1',
      ],
      { stdout, stderr: new Capture(), signal: stop.signal },
    );
    const deadline = Date.now() + 5000;
    while (!stdout.text.includes('\n') && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 5));
    }
    assert.match(
      stdout.text,
      /^sim worker sim-\d+ \(sglang, model sim-model, prefill, realistic\) listening on http:\/\/127\.0\.0\.1:\d+ \(bootstrap port \d+\)\n$/,
    );
    const url = /(http:\/\/\S+)/.exec(stdout.text)?.[1] ?? '';
    const faults = await (await fetch(`${url}/sim/faults`)).json();
    assert.deepEqual(faults, { errorRate: 1, maxFires: 1 });
    stop.abort();
    assert.equal(await done, 0);
  });

  void it('maps only the flags given onto worker options and faults, with their types', () => {
    assert.deepEqual(
      toWorkerOptions(
        parseSimFlags([
          '--prefix-cache=false',
          '--engine',
          'realistic',
          '--seed',
          '-3',
          '--time-scale',
          '0.5',
          '--hang',
          '--error-status',
          '503',
          '--port',
          '0',
        ]),
      ),
      {
        prefixCache: false,
        engine: 'realistic',
        seed: -3,
        timeScale: 0.5,
        faults: { hang: true, errorStatus: 503 },
      },
    );
    assert.deepEqual(toWorkerOptions(parseSimFlags(['--prefix-cache', 'true'])), {
      prefixCache: true,
    });
    assert.deepEqual(toWorkerOptions(parseSimFlags([])), {});
  });

  void it('renders the usage text from the table, one row per flag', () => {
    const text = usage();
    assert.ok(
      text.startsWith(
        'switchyard sim: simulated inference workers\n\nUsage: switchyard sim [options]\n\nOptions:\n',
      ),
    );
    assert.match(text, /\n {2}--count <N> +workers on consecutive ports \(default 1\)\n/);
    assert.match(text, /\n {2}--engine <canned\|realistic> +timing model/);
    assert.match(text, /\n {2}--hang +fault: never answer inference requests\n/);
  });
});
