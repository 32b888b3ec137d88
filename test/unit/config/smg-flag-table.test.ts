// Every SMG `launch` flag is in Switchyard's one flag table: it parses with SMG's name and
// aliases, implemented flags keep SMG's default, and the rest are accepted without effect or
// refused with one line naming their subsystem.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError, parseFlagsTracked, type FlagSpec } from '@switchyard/kit';
import { GATEWAY_FLAGS } from '../../../src/config/gateway-flags.js';
import { resolveLaunchFlags } from '../../../src/config/launch-flags.js';
import { SMG_LAUNCH_FLAGS } from './smg-launch-flags.data.js';

/** Implemented by another branch of the same issue; absent here until it merges, implemented after. */
const byName = new Map(GATEWAY_FLAGS.map((f) => [f.name, f]));

/** A value SMG's parser for this flag accepts. */
function sampleArgv(spec: FlagSpec): string[] {
  const flag = `--${spec.name}`;
  switch (spec.kind) {
    case 'bool':
      return [flag];
    case 'int':
      return [flag, spec.default === undefined ? '1' : String(spec.default)];
    case 'float':
      return [flag, '0.5'];
    case 'enum':
      return [flag, spec.choices?.[0] ?? ''];
    case 'list':
    case 'append':
    case 'string':
      return spec.consume ? [flag, 'http://127.0.0.1:1', '8998'] : [flag, sampleString(spec.name)];
  }
}

function sampleString(name: string): string {
  if (name === 'model-id-from') return 'namespace';
  if (name.endsWith('selector')) return 'app=x';
  if (name === 'webrtc-bind-addr') return '127.0.0.1';
  if (name === 'cache-boundaries') return '128,512';
  if (name === 'prometheus-duration-buckets') return '0.5';
  if (name === 'model-alias') return 'a=b';
  if (name === 'cors-allowed-origins') return 'https://app.example.com';
  return 'x';
}

function refusal(argv: string[]): string {
  try {
    resolveLaunchFlags(argv);
  } catch (err) {
    assert.ok(err instanceof UsageError, `expected a UsageError, got ${String(err)}`);
    return err.message;
  }
  assert.fail(`'${argv.join(' ')}' was accepted`);
}

void describe('the flag table holds every SMG launch flag', () => {
  it('lists all 165 SMG launch flags', () => {
    assert.equal(SMG_LAUNCH_FLAGS.length, 165);
  });

  for (const smg of SMG_LAUNCH_FLAGS) {
    it(`--${smg.name} (main.rs:${smg.line}) parses`, () => {
      const flag = byName.get(smg.name);
      assert.ok(flag, `--${smg.name} is missing from GATEWAY_FLAGS`);
      const { given } = parseFlagsTracked(sampleArgv(flag), GATEWAY_FLAGS);
      assert.equal(given[0]?.spec.name, smg.name);
      assert.equal(
        flag.status === 'implemented',
        smg.implemented === true,
        `status of --${smg.name}: ${flag.status}`,
      );
      assert.notEqual(flag.status, 'switchyard-only');
    });
  }

  it('keeps every SMG default on the flags Switchyard implements or accepts', () => {
    for (const smg of SMG_LAUNCH_FLAGS) {
      const flag = byName.get(smg.name);
      if (!flag || flag.status === 'unsupported' || smg.smgDefault === undefined) continue;
      const ours = Array.isArray(flag.default) ? flag.default.join(' ') : flag.default;
      const expected = typeof ours === 'number' ? Number(smg.smgDefault) : smg.smgDefault;
      assert.equal(
        typeof ours === 'boolean' ? String(ours) : ours,
        expected,
        `default of --${smg.name}`,
      );
    }
  });

  it('marks every flag SMG does not have as switchyard-only', () => {
    const smgNames = new Set(SMG_LAUNCH_FLAGS.map((f) => f.name));
    const extra = GATEWAY_FLAGS.filter((f) => !smgNames.has(f.name));
    assert.deepEqual(
      extra.filter((f) => f.status !== 'switchyard-only').map((f) => f.name),
      [],
    );
  });

  it('gives every name and alias one flag only', () => {
    const names = GATEWAY_FLAGS.flatMap((f) => [f.name, ...(f.aliases ?? [])]);
    assert.deepEqual(
      names.filter((n, i) => names.indexOf(n) !== i),
      [],
    );
  });
});

void describe("SMG's aliases map to their targets", () => {
  const aliases = SMG_LAUNCH_FLAGS.flatMap((f) =>
    (f.aliases ?? []).map((alias) => ({ alias, target: f.name })),
  );

  it('has the 8 aliases of main.rs', () => {
    assert.equal(aliases.length, 8);
  });

  for (const { alias, target } of aliases) {
    it(`--${alias} is --${target}`, () => {
      const flag = byName.get(target);
      if (!flag) return assert.fail(`--${target} is missing`);
      assert.ok(flag.aliases?.includes(alias), `--${target} lacks alias --${alias}`);
      const { given } = parseFlagsTracked(sampleArgv({ ...flag, name: alias }), GATEWAY_FLAGS);
      assert.equal(given[0]?.spec.name, target);
    });
  }

  it('sets the target key through the alias', () => {
    const { config } = resolveLaunchFlags([
      '--sticky-sessions',
      '--cache-match-threshold',
      '0.7',
      '--worker-auto-recovery',
      '--sticky-key-idle-secs',
      '60',
    ]);
    assert.equal(config.routingKeyOverride, true);
    assert.equal(config.cacheThreshold, 0.7);
    assert.equal(config.removeUnhealthyWorkers, true);
    assert.equal(config.maxIdleSecs, 60);
  });
});

void describe('statuses act at launch', () => {
  it('accepts the no-effect flags, lists each once as typed, and keeps them out of the config', () => {
    const { config, noEffect } = resolveLaunchFlags([
      '--block-size',
      '32',
      '--log-dir',
      '/var/log/smg',
      '--tokenizer-cache-enable-l1',
      '--block-size',
      '16',
      '--runtime',
      'vllm',
    ]);
    assert.deepEqual(noEffect, [
      '--block-size',
      '--log-dir',
      '--tokenizer-cache-enable-l1',
      '--runtime',
    ]);
    assert.equal('blockSize' in config, false);
    assert.deepEqual(resolveLaunchFlags([]).noEffect, []);
  });

  const refused: [string[], string][] = [
    [
      ['--enable-mesh'],
      '--enable-mesh: the HA mesh is not supported by Switchyard (see docs/compat.md)',
    ],
    [
      ['--service-discovery', '--selector', 'app=w', '--router-selector', 'app=router'],
      '--router-selector: the HA mesh is not supported by Switchyard (see docs/compat.md)',
    ],
    [
      ['--encode-selector', 'role=encode'],
      '--encode-selector: encode-prefill-decode (EPD) disaggregation is not supported by Switchyard (see docs/compat.md)',
    ],
    [
      ['--mcp-config-path', 'm.yaml'],
      '--mcp-config-path: MCP tool execution is not supported by Switchyard (see docs/compat.md)',
    ],
    [
      ['--tls-cert-path', 'c.pem'],
      '--tls-cert-path: TLS termination is not supported by Switchyard (see docs/compat.md)',
    ],
    [
      ['--jwt-issuer', 'https://idp'],
      '--jwt-issuer: JWT/OIDC authentication is not supported by Switchyard (see docs/compat.md)',
    ],
    [
      ['--tenant-api-key', 't:k'],
      '--tenant-api-key: per-tenant API keys is not supported by Switchyard (see docs/compat.md)',
    ],
    [
      ['--enable-wasm'],
      '--enable-wasm: WASM plugins is not supported by Switchyard (see docs/compat.md)',
    ],
    [
      ['--encode', 'http://127.0.0.1:1', '9000'],
      '--encode: encode-prefill-decode (EPD) disaggregation is not supported by Switchyard (see docs/compat.md)',
    ],
    [
      ['--history-backend', 'oracle'],
      '--history-backend oracle: the Oracle history backend (Switchyard has memory, none, redis, postgres) is not supported by Switchyard (see docs/compat.md)',
    ],
    [
      ['--runtime', 'openai'],
      '--runtime openai: this backend is not supported by Switchyard (see docs/compat.md)',
    ],
  ];
  for (const [argv, message] of refused) {
    it(`refuses '${argv.join(' ')}' naming the subsystem`, () => {
      assert.equal(refusal(argv), message);
    });
  }

  const badValues: [string[], string][] = [
    [['--block-size', '-1'], "--block-size expects a non-negative integer, got '-1'"],
    [['--mesh-port', '70000'], "--mesh-port expects an integer in 0..65535, got '70000'"],
    [['--cache-ttl-secs', '0'], "--cache-ttl-secs expects an integer >= 1, got '0'"],
    [['--cache-index', 'trie'], "--cache-index must be one of tree, hash, got 'trie'"],
    [
      ['--prometheus-duration-buckets', '0.1', 'slow'],
      "--prometheus-duration-buckets expects numbers, got 'slow'",
    ],
    [
      ['--webrtc-bind-addr', 'localhost'],
      "--webrtc-bind-addr expects an IP address, got 'localhost'",
    ],
    // Switchyard's own rule: SMG drops an entry without `=`, which widens the selection.
    [['--selector', 'app=w', 'role'], "--selector expects key=value, got 'role'"],
    // Switchyard's own rule: SMG keeps an entry no browser sends as `Origin`, which allows nothing.
    [
      ['--cors-allowed-origins', 'https://app.example.com/'],
      "--cors-allowed-origins expects the origin as a browser sends it, 'https://app.example.com', got 'https://app.example.com/'",
    ],
    [
      ['--model-id-from', 'labels:team'],
      "--model-id-from expects namespace, label:<key> or annotation:<key>, got 'labels:team'",
    ],
  ];
  for (const [argv, message] of badValues) {
    it(`rejects '${argv.join(' ')}' naming the flag, the value and the rule`, () => {
      assert.equal(refusal(argv), message);
    });
  }
});

void describe("SMG's argument shapes", () => {
  it('takes one value per --decode and --model-alias, as ArgAction::Append', () => {
    const { config } = resolveLaunchFlags([
      '--pd-disaggregation',
      '--decode',
      'http://127.0.0.1:1',
      '--decode',
      'http://127.0.0.1:2',
      '--model-alias',
      'a=m',
      '--model-alias',
      'b=m',
    ]);
    assert.deepEqual(config.decode, ['http://127.0.0.1:1', 'http://127.0.0.1:2']);
    assert.deepEqual(config.modelAlias, ['a=m', 'b=m']);
    assert.equal(
      refusal(['--pd-disaggregation', '--decode', 'http://127.0.0.1:1', 'http://127.0.0.1:2']),
      "unexpected argument 'http://127.0.0.1:2'",
    );
    assert.equal(refusal(['--model-alias', 'a=m', 'b=m']), "unexpected argument 'b=m'");
  });

  it('accepts an empty --worker-urls, as num_args = 0..', () => {
    assert.deepEqual(
      resolveLaunchFlags(['--worker-urls', '--policy', 'round_robin']).config.workerUrls,
      [],
    );
  });

  it('refuses a value on a boolean flag, as clap SetTrue', () => {
    assert.equal(refusal(['--dp-aware=true']), "--dp-aware takes no value, got 'true'");
    assert.equal(refusal(['--enable-mesh=false']), "--enable-mesh takes no value, got 'false'");
  });

  it('consumes a --prefill port 0 and then refuses it, as SMG', () => {
    assert.equal(
      refusal(['--pd-disaggregation', '--prefill', 'http://127.0.0.1:1', '0']),
      '--prefill http://127.0.0.1:1 0: bootstrap port must be between 1 and 65535',
    );
  });
});
