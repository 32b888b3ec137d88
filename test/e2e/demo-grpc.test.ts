// `switchyard demo --protocol grpc`: the same demo with gRPC workers, the gateway tokenizing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runMain } from '../helpers/cli.js';

test('switchyard demo --protocol grpc tokenizes in the gateway in front of gRPC workers', async () => {
  const { status, stdout, stderr } = await runMain([
    'demo',
    '--protocol',
    'grpc',
    '--runtime',
    'vllm',
    '--port',
    '0',
    '--prometheus-port',
    '0',
    '--log-level',
    'warn',
    '--exit-after-check',
  ]);
  assert.equal(status, 0, stderr);
  assert.match(stdout, /2 simulated vllm gRPC workers \(regular\)/);
  assert.match(stdout, /regular grpc:\/\/127\.0\.0\.1:\d+/);
  assert.match(stdout, /First request answered 200 by grpc:\/\/127\.0\.0\.1:\d+: "\w+/);
});

test('switchyard demo refuses a PD shape over gRPC with one line', async () => {
  const { status, stderr } = await runMain(['demo', '--protocol', 'grpc', '--shape', 'pd']);
  assert.equal(status, 2);
  assert.match(stderr, /--shape pd needs --protocol http: PD over gRPC is not built yet/);
});
