#!/usr/bin/env node
// Runs the suite with Node's own test runner, compiled once: every TypeScript file the tests load
// is transpiled by esbuild into .tmp/ (about a second for the whole tree), then plain `node --test`
// runs the files several at a time. Loading each file through tsx instead cost about a second per
// file. Types are checked by `npm run typecheck`, not here.
//
//   node scripts/run-tests.mjs                 every test (the README's command, via npm test)
//   node scripts/run-tests.mjs unit            unit tests only (test/unit, packages/*/test/unit)
//   node scripts/run-tests.mjs integration     integration and end-to-end tests
//   node scripts/run-tests.mjs FILE.test.ts…   the named files
import { spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

const OUT = '.tmp';

function findFiles(dir, suffix) {
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) return [];
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...findFiles(path, suffix));
    else if (name.endsWith(suffix) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

const packages = readdirSync('packages').map((name) => join('packages', name));
const testRoots = {
  unit: ['test/unit', ...packages.map((p) => join(p, 'test', 'unit'))],
  integration: [
    'test/integration',
    'test/e2e',
    ...packages.map((p) => join(p, 'test', 'integration')),
  ],
};

const args = process.argv.slice(2);
const suite = args[0] === 'unit' || args[0] === 'integration' ? args.shift() : undefined;
const roots = suite ? testRoots[suite] : [...testRoots.unit, ...testRoots.integration];
const sources = args.length > 0 ? args : roots.flatMap((r) => findFiles(r, '.test.ts')).sort();
const files = sources.map((f) => join(OUT, f.replace(/\.ts$/, '.js')));

// promtool (Debian's prometheus package) checks the metrics exposition format.
const promtool = spawnSync('bash', ['scripts/ensure-promtool.sh'], {
  encoding: 'utf8',
  stdio: ['ignore', 'pipe', 'inherit'],
});
if (promtool.status === 0) process.env.PROMTOOL = promtool.stdout.trim();

// The packages and the binary the CLI tests spawn are built by tsc, incrementally.
const tsc = spawnSync('npx', ['tsc', '-b', 'tsconfig.build.json'], { stdio: 'inherit' });
if (tsc.status !== 0) process.exit(tsc.status ?? 1);
// The dashboard page and its vendored charting library, served from dist/ (as after npm run build).
const page = spawnSync(process.execPath, ['scripts/build-dashboard.mjs'], { stdio: 'inherit' });
if (page.status !== 0) process.exit(page.status ?? 1);

for (const dir of ['src', 'test', 'packages'])
  rmSync(join(OUT, dir), { recursive: true, force: true });
await build({
  entryPoints: [
    'src',
    'test',
    ...packages.flatMap((p) => [join(p, 'src'), join(p, 'test')]),
  ].flatMap((dir) => findFiles(dir, '.ts')),
  outdir: OUT,
  outbase: '.',
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  logLevel: 'warning',
});

// Most files wait on sockets and simulated engines rather than the CPU, so a 2-core machine runs
// four at a time; each file is its own process, on its own ports.
const concurrency = Number(process.env.TEST_CONCURRENCY ?? Math.max(2, availableParallelism() * 2));
const run = spawnSync(
  process.execPath,
  [
    '--enable-source-maps',
    '--test',
    `--test-concurrency=${concurrency}`,
    '--test-timeout=60000',
    '--test-reporter=./scripts/tap-with-failures-reporter.mjs',
    '--test-reporter-destination=stdout',
    '--test-reporter=./scripts/slowest-files-reporter.mjs',
    `--test-reporter-destination=${join(OUT, 'slowest-tests.txt')}`,
    ...files,
  ],
  { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } },
);
process.exit(run.status ?? 1);
