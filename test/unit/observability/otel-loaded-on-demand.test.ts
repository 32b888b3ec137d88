// Zero cost when tracing is off starts with not loading the SDK: only the OpenTelemetry
// implementation files import @opentelemetry, and only tracing.ts's loader reaches them, by a
// dynamic import that runs with --enable-trace alone. Of the two exporters, only the one the
// endpoint needs is loaded: otel-tracer.ts imports each dynamically, and nothing else does.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { repoPath } from '../../helpers/repo-root.js';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const src = repoPath('src');
const files = sourceFiles(src).map((path) => ({
  name: relative(src, path),
  text: readFileSync(path, 'utf8'),
}));

test('only the OpenTelemetry implementation files import @opentelemetry', () => {
  const importers = files.filter((f) => /from '@opentelemetry\//.test(f.text)).map((f) => f.name);
  assert.deepEqual(importers.sort(), [
    'observability/otel-spans.ts',
    'observability/otel-tracer.ts',
    'observability/otlp-grpc-exporter.ts',
    'observability/otlp-http-exporter.ts',
  ]);
});

test('the implementation is reached only through the dynamic import in tracing.ts', () => {
  const static_ = files.filter((f) => /from '\.\/otel-tracer\.js'/.test(f.text)).map((f) => f.name);
  assert.deepEqual(static_, []);
  const dynamic = files
    .filter((f) => /import\('\.\/otel-tracer\.js'\)/.test(f.text))
    .map((f) => f.name);
  assert.deepEqual(dynamic, ['observability/tracing.ts']);
  const spans = files.filter((f) => /otel-spans\.js'/.test(f.text)).map((f) => f.name);
  assert.deepEqual(spans, ['observability/otel-tracer.ts']);
});

test('each exporter is reached only through a dynamic import in otel-tracer.ts', () => {
  for (const exporter of ['otlp-grpc-exporter', 'otlp-http-exporter']) {
    const any = files.filter((f) => f.text.includes(`/${exporter}.js'`)).map((f) => f.name);
    const dynamic = files
      .filter((f) => f.text.includes(`import('./${exporter}.js')`))
      .map((f) => f.name);
    assert.deepEqual(any, ['observability/otel-tracer.ts'], exporter);
    assert.deepEqual(dynamic, ['observability/otel-tracer.ts'], exporter);
  }
});
