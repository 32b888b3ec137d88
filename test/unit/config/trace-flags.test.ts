// --enable-trace and --otlp-traces-endpoint: SMG's names and defaults (off, localhost:4317);
// the endpoint as SMG's host:port (OTLP/gRPC, as SMG) or an http(s) URL (OTLP/HTTP, turned into
// the traces URL); a bad endpoint refused with one line naming the flag, but only when tracing is
// on (as SMG checks it).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UsageError } from '@switchyard/kit';
import { resolveLaunchFlags } from '../../../src/config/launch-flags.js';
import { parseOtlpEndpoint } from '../../../src/observability/otlp-endpoint.js';

const build = (args: string[]) => resolveLaunchFlags(args).config;

/** `grpc host:port` or `http URL`: where and how the endpoint sends spans. */
function exportTo(endpoint: string): string {
  const parsed = parseOtlpEndpoint(endpoint);
  assert.ok(parsed.ok, `${endpoint}: ${parsed.ok ? '' : parsed.problem}`);
  return parsed.protocol === 'grpc' ? `grpc ${parsed.target}` : `http ${parsed.url.href}`;
}

test("defaults: off, SMG's endpoint", () => {
  const c = build([]);
  assert.equal(c.enableTrace, false);
  assert.equal(c.otlpTracesEndpoint, 'localhost:4317');
});

test('the flags are accepted (no longer refused as unsupported)', () => {
  const c = build(['--enable-trace', '--otlp-traces-endpoint', 'otel-collector:4318']);
  assert.equal(c.enableTrace, true);
  assert.equal(c.otlpTracesEndpoint, 'otel-collector:4318');
});

test("host:port, SMG's form, is OTLP/gRPC to that address", () => {
  assert.equal(exportTo('localhost:4317'), 'grpc localhost:4317');
  assert.equal(exportTo('otel-collector:4317'), 'grpc otel-collector:4317');
  assert.equal(exportTo('10.0.0.5:80'), 'grpc 10.0.0.5:80');
  assert.equal(exportTo('[::1]:4317'), 'grpc [::1]:4317');
});

test('a URL is OTLP/HTTP: bare URLs get the traces path, a URL with a path is kept', () => {
  assert.equal(exportTo('http://collector:4318'), 'http http://collector:4318/v1/traces');
  assert.equal(exportTo('https://otlp.example.com/'), 'http https://otlp.example.com/v1/traces');
  assert.equal(exportTo('http://collector:4318/v1/traces'), 'http http://collector:4318/v1/traces');
  assert.equal(
    exportTo('https://gw.example.com/otlp/v1/traces'),
    'http https://gw.example.com/otlp/v1/traces',
  );
});

test('a bad endpoint is a usage error naming the flag when tracing is on', () => {
  for (const endpoint of [
    'collector',
    ':4318',
    'collector:0',
    'collector:70000',
    'collector:port',
    'collector:4317/v1/traces',
    'user@collector:4317',
    'grpc://collector:4317',
    'http://collector:0',
    'http://',
  ]) {
    assert.throws(
      () => build(['--enable-trace', '--otlp-traces-endpoint', endpoint]),
      (err: unknown) =>
        err instanceof UsageError && err.message.startsWith('--otlp-traces-endpoint: '),
      endpoint,
    );
  }
});

test('without --enable-trace the endpoint is not checked (as SMG)', () => {
  assert.equal(build(['--otlp-traces-endpoint', 'collector']).otlpTracesEndpoint, 'collector');
});
