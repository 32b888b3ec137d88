/**
 * `using` as the project's TypeScript settings compile it, run by this Node: Node 20 cannot
 * parse `using`, so this proves the build lowers it and that the lowered code finds
 * `Symbol.dispose` on the built Lease (dist/util/lease.js, made by the test runner's build).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';

test('the build lowers `using` so a Lease is released on every exit under this Node', () => {
  const builtLease = pathToFileURL(resolve('dist/util/lease.js')).href;
  const source = `
    import { lease } from ${JSON.stringify(builtLease)};
    const log: string[] = [];
    function scope(fail: boolean): void {
      using first = lease(() => log.push('first'));
      using second = lease(() => log.push('second'));
      second.release();
      if (fail) throw new Error('boom');
      log.push(first.released ? 'early' : 'body');
    }
    scope(false);
    try {
      scope(true);
    } catch {
      log.push('caught');
    }
    console.log(JSON.stringify(log));
  `;
  const base = JSON.parse(readFileSync('tsconfig.base.json', 'utf8')) as {
    compilerOptions: Record<string, unknown>;
  };
  const { options, errors } = ts.convertCompilerOptionsFromJson(base.compilerOptions, '.');
  assert.deepEqual(errors, []);
  const js = ts.transpileModule(source, {
    compilerOptions: options,
    fileName: 'scope.mts',
  }).outputText;
  assert.doesNotMatch(js, /\busing first\b/, 'the declaration is lowered');
  const dir = mkdtempSync(join(tmpdir(), 'using-'));
  try {
    writeFileSync(join(dir, 'scope.mjs'), js);
    const out = execFileSync(process.execPath, [join(dir, 'scope.mjs')], { encoding: 'utf8' });
    assert.deepEqual(JSON.parse(out), ['second', 'body', 'first', 'second', 'first', 'caught']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
