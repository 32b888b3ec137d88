// The one worker-URL parser: one spelling per worker, no credentials, never a link-local or
// cloud metadata target, whatever way the address is written.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseWorkerSpec } from '../../../src/workers/spec.js';
import { parseWorkerUrl, redactUrlCredentials } from '../../../src/workers/worker-url.js';

function normalised(raw: string): string {
  const r = parseWorkerUrl(raw);
  if (!r.ok) assert.fail(`${raw} refused: ${r.reason}`);
  return r.value.url;
}

function refusal(raw: string): string {
  const r = parseWorkerUrl(raw);
  if (r.ok) assert.fail(`${raw} accepted as ${r.value.url}`);
  return r.reason;
}

void describe('parseWorkerUrl: one spelling per worker', () => {
  void it('trims surrounding whitespace', () => {
    assert.equal(normalised('  http://127.0.0.1:8000  '), 'http://127.0.0.1:8000');
    assert.equal(normalised('\thttp://10.0.0.1:8000/\n'), 'http://10.0.0.1:8000');
  });

  void it('lower-cases the host, drops the default port and trailing slashes', () => {
    assert.equal(normalised('http://Worker.Example:80/'), 'http://worker.example');
    assert.equal(normalised('https://W.example:443'), 'https://w.example');
    assert.equal(normalised('http://w.example.:8000'), 'http://w.example:8000');
    assert.equal(normalised('http://[::1]:8000/'), 'http://[::1]:8000');
  });

  void it('keeps a path prefix (without its trailing slash) and reports host and port', () => {
    const r = parseWorkerUrl('http://h.example:8000/Engine/v1/');
    assert.ok(r.ok);
    assert.deepEqual(r.value, {
      url: 'http://h.example:8000/Engine/v1',
      host: 'h.example',
      port: 8000,
      connectionMode: 'http',
    });
    const d = parseWorkerUrl('https://h.example');
    assert.ok(d.ok);
    assert.equal(d.value.port, 443);
  });

  void it('gives the same registry key to every spelling through parseWorkerSpec', () => {
    const keys = [
      'http://127.0.0.1:8000',
      ' http://127.0.0.1:8000/ ',
      'http://127.0.0.1:8000//',
    ].map((url) => {
      const r = parseWorkerSpec({ url });
      assert.ok(r.ok);
      return r.spec.url;
    });
    assert.deepEqual(new Set(keys), new Set(['http://127.0.0.1:8000']));
  });
});

void describe('parseWorkerUrl: refusals', () => {
  void it('refuses credentials without echoing them, pointing at api_key', () => {
    for (const url of [
      'http://user:s3cret@h:8000',
      'http://user@h:8000',
      'http://:s3cret@h:8000',
    ]) {
      const reason = refusal(url);
      assert.match(reason, /credentials/);
      assert.match(reason, /api_key/);
      assert.doesNotMatch(reason, /s3cret/);
    }
    const spec = parseWorkerSpec({ url: 'http://user:s3cret@h:8000' });
    assert.equal(spec.ok, false);
    if (!spec.ok) assert.doesNotMatch(spec.message, /s3cret/);
  });

  void it('refuses a query string or fragment', () => {
    assert.match(refusal('http://h:8000/?token=x'), /query/);
    assert.match(refusal('http://h:8000/#x'), /fragment/);
  });

  void it('refuses an upper-case scheme, as SMG (its registry keys the URL as typed)', () => {
    assert.match(
      refusal('HTTP://127.0.0.1:8000'),
      /scheme must be lower-case \(http:\/\/\), as SMG requires/,
    );
    assert.match(refusal('Https://h'), /lower-case \(https:\/\/\)/);
  });

  void it('refuses ipc workers as not supported yet, not as a bad scheme', () => {
    assert.match(
      refusal('ipc:///tmp/engine.sock'),
      /^ipc:\/\/ \(ZMQ\) workers are not supported yet/,
    );
  });

  void it('refuses other schemes and hostless URLs', () => {
    for (const url of ['ftp://h', 'file:///etc/passwd', 'not a url', 'grpc://']) {
      assert.match(refusal(url), /http:\/\/, https:\/\/, grpc:\/\/ or grpcs:\/\//, url);
    }
  });

  void it('refuses link-local and metadata addresses in every spelling WHATWG URL accepts', () => {
    for (const url of [
      'http://169.254.169.254/',
      'http://2852039166/', // decimal
      'http://0xa9fea9fe/', // hex
      'http://0251.0376.0251.0376/', // octal
      'http://169.254.43518/', // two-part
      'http://[::ffff:169.254.169.254]/', // IPv4-mapped IPv6
      'http://[::ffff:a9fe:a9fe]:80/',
      'http://[fe80::1]:8000/',
      'http://[FEBF::1]/',
      'http://169.254.170.2/', // ECS task credentials
      'http://[fd00:ec2::254]/', // AWS IMDS over IPv6
      'http://100.100.100.200/', // Alibaba Cloud metadata
    ]) {
      assert.match(refusal(url), /link-local or cloud metadata/, url);
    }
    for (const url of [
      'http://metadata.google.internal/',
      'http://Metadata.Google.Internal./computeMetadata',
      'http://metadata.goog',
    ]) {
      assert.match(refusal(url), /metadata service/, url);
    }
  });

  void it('allows loopback and private ranges (tests and real fleets use them)', () => {
    for (const url of [
      'http://127.0.0.1:8000',
      'http://[::1]:8000',
      'http://10.0.0.11:8000',
      'http://192.168.1.5:8000',
      'http://172.16.0.1',
      'http://[fd12::1]:8000',
      'http://worker-0.svc:8000',
    ]) {
      normalised(url);
    }
  });
});

void describe('redactUrlCredentials', () => {
  void it('hides user:password@ in any URL inside a text', () => {
    assert.equal(
      redactUrlCredentials('["http://u:pw@h:1","https://x@y"]'),
      '["http://***@h:1","https://***@y"]',
    );
    assert.equal(redactUrlCredentials('http://h:1/a@b'), 'http://h:1/a@b');
  });
});

void describe('parseWorkerUrl: gRPC workers', () => {
  void it('accepts grpc:// and grpcs:// as gRPC workers, with one spelling each', () => {
    const r = parseWorkerUrl('grpc://Engine.Example:50051/');
    assert.ok(r.ok);
    assert.deepEqual(r.value, {
      url: 'grpc://engine.example:50051',
      host: 'engine.example',
      port: 50051,
      connectionMode: 'grpc',
    });
    assert.equal(normalised(' grpcs://[::1]:9000 '), 'grpcs://[::1]:9000');
    assert.equal(normalised('grpc://0x7f000001:1'), 'grpc://127.0.0.1:1');
  });

  void it('names the port SMG dials when the URL gives none: 80 for grpc://, 443 for grpcs://', () => {
    assert.equal(normalised('grpc://h'), 'grpc://h:80');
    assert.equal(normalised('grpc://h:80'), 'grpc://h:80');
    assert.equal(normalised('grpcs://h'), 'grpcs://h:443');
  });

  void it('refuses what a gRPC URL cannot carry: a path, credentials, a query', () => {
    assert.match(refusal('grpc://h:1/engine'), /must not have a path/);
    assert.match(refusal('grpc://u:secret@h:1'), /credentials/);
    assert.match(refusal('grpc://h:1?x=1'), /query/);
  });

  void it('applies the case rule and the address rules as for http', () => {
    assert.match(refusal('GRPC://h:1'), /lower-case \(grpc:\/\/\)/);
    assert.match(refusal('Grpcs://h:1'), /lower-case \(grpcs:\/\/\)/);
    assert.match(refusal('grpc://169.254.169.254:1'), /link-local or cloud metadata/);
    assert.match(refusal('grpc://2852039166:1'), /link-local or cloud metadata/);
    assert.match(refusal('grpc://metadata.google.internal:1'), /metadata service/);
  });
});
