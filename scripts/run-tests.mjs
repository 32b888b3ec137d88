#!/usr/bin/env node
// Runs the whole suite with Node's own test runner. Node 20 does not expand globs, so the test
// files are listed here. The CLI tests run the built binary, so the build runs first.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function findTests(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...findTests(path));
    else if (name.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

const only = process.argv.slice(2);
const roots = ['test', ...readdirSync('packages').map((p) => join('packages', p, 'test'))];
const files =
  only.length > 0
    ? only
    : roots
        .filter((r) => statSync(r, { throwIfNoEntry: false }))
        .flatMap(findTests)
        .sort();

// promtool (Debian's prometheus package) checks the metrics exposition format.
const promtool = spawnSync('bash', ['scripts/ensure-promtool.sh'], {
  encoding: 'utf8',
  stdio: ['ignore', 'pipe', 'inherit'],
});
if (promtool.status === 0) process.env.PROMTOOL = promtool.stdout.trim();

const build = spawnSync('npx', ['tsc', '-b', 'tsconfig.build.json'], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

const run = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-reporter=tap', '--test-timeout=60000', ...files],
  { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } },
);
process.exit(run.status ?? 1);
