// A gateway process starts without loading what it does not use: the Kubernetes client (most of
// a second to import), ioredis, the simulator and the OpenTelemetry SDK are imported only by the
// feature that needs them. Checked on the real binary, by recording every package it resolves.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { BIN } from '../helpers/cli.js';

/** The bare specifiers (packages) a run of the binary resolves. */
function packagesLoaded(args: string[]): Set<string> {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-imports-'));
  try {
    const log = join(dir, 'resolved.txt');
    writeFileSync(
      join(dir, 'hooks.mjs'),
      [
        "import { appendFileSync } from 'node:fs';",
        'export async function resolve(specifier, context, next) {',
        "  if (!/^(\\.|\\/|node:|file:)/.test(specifier)) appendFileSync(process.env.RESOLVED_LOG, specifier + '\\n');",
        '  return next(specifier, context);',
        '}',
      ].join('\n'),
    );
    writeFileSync(
      join(dir, 'register.mjs'),
      `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(dir, 'hooks.mjs')).href)});\n`,
    );
    const run = spawnSync(process.execPath, ['--import', join(dir, 'register.mjs'), BIN, ...args], {
      encoding: 'utf8',
      env: { ...process.env, RESOLVED_LOG: log },
      timeout: 30_000,
    });
    assert.equal(run.status, 0, run.stderr);
    return new Set(readFileSync(log, 'utf8').split('\n').filter(Boolean));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const OPTIONAL = ['@kubernetes/client-node', 'ioredis', '@switchyard/sim', 'playwright-core'];

test('launch loads the gateway, not discovery, Redis, the simulator or the tracing SDK', () => {
  const loaded = packagesLoaded(['launch', '--help']);
  // The hook sees the gateway's own dependencies, so an absence below means something.
  for (const needed of ['undici', 'prom-client', 'pino']) assert.ok(loaded.has(needed), needed);
  for (const name of OPTIONAL) assert.ok(!loaded.has(name), `${name} loaded at startup`);
  assert.deepEqual(
    [...loaded].filter((name) => name.startsWith('@opentelemetry/')),
    [],
    'the OpenTelemetry SDK loaded without --enable-trace',
  );
});
