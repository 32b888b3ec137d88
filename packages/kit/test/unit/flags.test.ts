import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FlagSpec } from '../../src/flags.js';
import { UsageError, formatHelp, parseFlags } from '../../src/flags.js';

interface PrefillArg {
  url: string;
  bootstrapPort: number | null;
}

/**
 * SMG's `--prefill URL [BOOTSTRAP_PORT|none]` (hand-parsed before clap): the token after the URL is
 * the port when it parses as a u16, null when it is `none` (any case), and not consumed otherwise.
 */
function consumePrefill(rest: readonly string[]): { value: PrefillArg; used: number } {
  const url = rest[0];
  if (url === undefined || url.startsWith('--')) throw new UsageError('--prefill expects a URL');
  const next = rest[1];
  if (next !== undefined && next.toLowerCase() === 'none')
    return { value: { url, bootstrapPort: null }, used: 2 };
  if (next !== undefined && /^\d+$/.test(next) && Number(next) <= 65535) {
    return { value: { url, bootstrapPort: Number(next) }, used: 2 };
  }
  return { value: { url, bootstrapPort: null }, used: 1 };
}

const SPECS: readonly FlagSpec[] = [
  { name: 'host', key: 'host', kind: 'string', default: '0.0.0.0', help: 'Bind address' },
  { name: 'port', key: 'port', kind: 'int', default: 30000, help: 'Main port' },
  {
    name: 'cache-threshold',
    key: 'cacheThreshold',
    kind: 'float',
    default: 0.3,
    help: 'Prefix ratio',
  },
  { name: 'max-inflight', key: 'maxInflight', kind: 'int', help: 'Per-worker cap, -1 for none' },
  {
    name: 'worker-urls',
    key: 'workerUrls',
    kind: 'list',
    default: [],
    metavar: '<url...>',
    help: 'Worker URLs',
  },
  { name: 'tags', key: 'tags', kind: 'list', default: ['a', 'b'], help: 'Tags' },
  {
    name: 'policy',
    key: 'policy',
    kind: 'enum',
    choices: ['random', 'round_robin'],
    default: 'round_robin',
    help: 'Policy',
  },
  { name: 'log-json', key: 'logJson', kind: 'bool', default: false, help: 'JSON logs' },
  { name: 'pd-disaggregation', key: 'pd', kind: 'bool', help: 'PD mode' },
  {
    name: 'api-key',
    key: 'apiKey',
    kind: 'string',
    metavar: '<key>',
    aliases: ['key'],
    help: 'API key',
  },
  {
    name: 'prefill',
    key: 'prefill',
    kind: 'list',
    metavar: '<url> [port|none]',
    consume: consumePrefill,
    help: 'Prefill worker',
  },
];

function usageError(fn: () => unknown, message: string): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof UsageError, `expected a UsageError, got ${String(err)}`);
    assert.equal(err.message, message);
    return true;
  });
}

void describe('parseFlags: defaults', () => {
  void it('fills the default of every flag that has one and leaves the others unset', () => {
    const out = parseFlags([], SPECS);
    assert.deepEqual(out, {
      host: '0.0.0.0',
      port: 30000,
      cacheThreshold: 0.3,
      workerUrls: [],
      tags: ['a', 'b'],
      policy: 'round_robin',
      logJson: false,
    });
    assert.equal('apiKey' in out, false);
    assert.equal('pd' in out, false);
  });

  void it('copies list defaults so a parse never mutates the spec table', () => {
    const out = parseFlags([], SPECS);
    (out.tags as string[]).push('c');
    assert.deepEqual(parseFlags([], SPECS).tags, ['a', 'b']);
  });
});

void describe('parseFlags: values', () => {
  void it('accepts --flag value and --flag=value', () => {
    assert.deepEqual(parseFlags(['--host', '127.0.0.1'], SPECS).host, '127.0.0.1');
    assert.deepEqual(parseFlags(['--host=127.0.0.1'], SPECS).host, '127.0.0.1');
  });

  void it('keeps everything after the first = in an inline value', () => {
    assert.equal(parseFlags(['--api-key=a=b=c'], SPECS).apiKey, 'a=b=c');
  });

  void it('resolves aliases to the spec key', () => {
    assert.equal(parseFlags(['--key', 'secret'], SPECS).apiKey, 'secret');
  });

  void it('lets a later occurrence of a scalar flag win', () => {
    assert.equal(parseFlags(['--port', '1', '--port', '2'], SPECS).port, 2);
  });

  void it('converts int and float flags to numbers', () => {
    const out = parseFlags(['--port', '8080', '--cache-threshold=0.75'], SPECS);
    assert.equal(out.port, 8080);
    assert.equal(out.cacheThreshold, 0.75);
  });

  void it('accepts a negative number as a value rather than a flag', () => {
    assert.equal(parseFlags(['--max-inflight', '-1'], SPECS).maxInflight, -1);
    assert.equal(parseFlags(['--cache-threshold', '-0.5'], SPECS).cacheThreshold, -0.5);
  });

  void it('rejects a non-integer for an int flag with the exact message', () => {
    usageError(() => parseFlags(['--port', 'abc'], SPECS), "--port expects an integer, got 'abc'");
    usageError(() => parseFlags(['--port=1.5'], SPECS), "--port expects an integer, got '1.5'");
    usageError(() => parseFlags(['--port='], SPECS), "--port expects an integer, got ''");
  });

  void it('rejects a non-number for a float flag', () => {
    usageError(
      () => parseFlags(['--cache-threshold', 'high'], SPECS),
      "--cache-threshold expects a number, got 'high'",
    );
    usageError(
      () => parseFlags(['--cache-threshold='], SPECS),
      "--cache-threshold expects a number, got ''",
    );
  });

  void it('accepts an enum choice and rejects anything else, listing the choices', () => {
    assert.equal(parseFlags(['--policy', 'random'], SPECS).policy, 'random');
    usageError(
      () => parseFlags(['--policy', 'cache_aware'], SPECS),
      "--policy must be one of random, round_robin, got 'cache_aware'",
    );
  });

  void it('reports a flag given without its value', () => {
    usageError(() => parseFlags(['--host'], SPECS), '--host expects a value');
    usageError(() => parseFlags(['--host', '--port', '1'], SPECS), '--host expects a value');
  });

  void it('rejects an unknown flag', () => {
    usageError(() => parseFlags(['--nope'], SPECS), 'unknown flag --nope');
    usageError(() => parseFlags(['--nope=1'], SPECS), 'unknown flag --nope');
  });

  void it('rejects a positional argument', () => {
    usageError(() => parseFlags(['stray'], SPECS), "unexpected argument 'stray'");
    usageError(() => parseFlags(['--port', '1', 'stray'], SPECS), "unexpected argument 'stray'");
    usageError(() => parseFlags(['-p', '1'], SPECS), "unexpected argument '-p'");
  });
});

void describe('parseFlags: bool flags', () => {
  void it('sets true when given bare', () => {
    const out = parseFlags(['--log-json', '--pd-disaggregation'], SPECS);
    assert.equal(out.logJson, true);
    assert.equal(out.pd, true);
  });

  void it('refuses an inline value, as clap SetTrue does', () => {
    usageError(
      () => parseFlags(['--log-json=true'], SPECS),
      "--log-json takes no value, got 'true'",
    );
    usageError(
      () => parseFlags(['--log-json=false'], SPECS),
      "--log-json takes no value, got 'false'",
    );
  });

  void it('does not consume the next token', () => {
    const out = parseFlags(['--log-json', '--port', '5'], SPECS);
    assert.equal(out.logJson, true);
    assert.equal(out.port, 5);
  });
});

void describe('parseFlags: variadic list flags', () => {
  void it('takes every value up to the next flag', () => {
    const out = parseFlags(
      ['--worker-urls', 'http://a:1', 'http://b:2', '--policy', 'random'],
      SPECS,
    );
    assert.deepEqual(out.workerUrls, ['http://a:1', 'http://b:2']);
    assert.equal(out.policy, 'random');
  });

  void it('appends on repetition, inline values included', () => {
    const out = parseFlags(
      ['--worker-urls', 'a', 'b', '--port', '1', '--worker-urls=c', 'd', '--worker-urls', 'e'],
      SPECS,
    );
    assert.deepEqual(out.workerUrls, ['a', 'b', 'c', 'd', 'e']);
  });

  void it('replaces the default on the first occurrence instead of appending to it', () => {
    assert.deepEqual(parseFlags(['--tags', 'x'], SPECS).tags, ['x']);
    assert.deepEqual(parseFlags(['--tags', 'x', '--tags', 'y'], SPECS).tags, ['x', 'y']);
  });

  void it('accepts no value, as SMG num_args = 0..', () => {
    assert.deepEqual(parseFlags(['--worker-urls'], SPECS).workerUrls, []);
    assert.deepEqual(parseFlags(['--worker-urls', '--port', '1'], SPECS).workerUrls, []);
  });
});

void describe('parseFlags: custom consumers', () => {
  void it('lets the consumer decide how many tokens follow the flag', () => {
    const out = parseFlags(
      [
        '--prefill',
        'http://p1:30001',
        '9001',
        '--prefill',
        'http://p2:30002',
        '--prefill',
        'http://p3:30003',
        'NONE',
        '--port',
        '7',
      ],
      SPECS,
    );
    assert.deepEqual(out.prefill, [
      { url: 'http://p1:30001', bootstrapPort: 9001 },
      { url: 'http://p2:30002', bootstrapPort: null },
      { url: 'http://p3:30003', bootstrapPort: null },
    ]);
    assert.equal(out.port, 7);
  });

  void it('hands an inline value to the consumer as its first token', () => {
    const out = parseFlags(['--prefill=http://p1:30001', '9001', '--log-json'], SPECS);
    assert.deepEqual(out.prefill, [{ url: 'http://p1:30001', bootstrapPort: 9001 }]);
    assert.equal(out.logJson, true);
  });

  void it('leaves a token the consumer did not use for the main loop', () => {
    // `http://x` is not a port, so it is a positional argument after the single-token prefill.
    usageError(
      () => parseFlags(['--prefill', 'http://p1:1', 'http://x'], SPECS),
      "unexpected argument 'http://x'",
    );
  });

  void it('propagates errors thrown by the consumer', () => {
    usageError(() => parseFlags(['--prefill', '--port', '1'], SPECS), '--prefill expects a URL');
  });
});

void describe('formatHelp', () => {
  const help = formatHelp('switchyard launch', 'switchyard launch [options]', SPECS);

  void it('starts with the title and usage line', () => {
    assert.ok(
      help.startsWith('switchyard launch\n\nUsage: switchyard launch [options]\n\nOptions:\n'),
    );
  });

  void it('lists every flag with its help text', () => {
    for (const spec of SPECS) {
      assert.match(help, new RegExp(`^  --${spec.name}\\b`, 'm'), `--${spec.name} missing`);
      assert.ok(help.includes(spec.help), `help text of --${spec.name} missing`);
    }
  });

  void it('shows defaults, and none for unset flags, false bools or empty lists', () => {
    // The help text and its default share a line even when a long flag column wraps.
    const lineWith = (text: string): string => {
      const line = help.split('\n').find((l) => l.includes(text));
      assert.ok(line !== undefined, `${text} missing`);
      return line;
    };
    assert.match(lineWith('Main port'), /Main port \[default: 30000\]$/);
    assert.match(lineWith('Bind address'), /\[default: 0\.0\.0\.0\]$/);
    assert.match(lineWith('Prefix ratio'), /\[default: 0\.3\]$/);
    assert.match(lineWith('Policy'), /\[default: round_robin\]$/);
    assert.match(lineWith('Tags'), /\[default: a b\]$/);
    assert.doesNotMatch(lineWith('Worker URLs'), /default/);
    assert.doesNotMatch(lineWith('JSON logs'), /default/);
    assert.doesNotMatch(lineWith('API key'), /default/);
    assert.doesNotMatch(lineWith('Per-worker cap'), /default/);
  });

  void it('shows metavars, enum choices and no value for bools', () => {
    assert.match(help, /--worker-urls <url\.\.\.>/);
    assert.match(help, /--api-key <key>/);
    assert.match(help, /--policy <random\|round_robin>/);
    assert.match(help, /--port <int>/);
    assert.match(help, /^ {2}--log-json {2,}JSON logs/m);
  });
});
