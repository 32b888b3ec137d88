// `switchyard demo --protocol grpc`: the same demo with gRPC workers, the gateway tokenizing, in
// front of the mixed fleet (regular workers and a PD pair behind one IGW gateway). One runMain
// case per file: a second one would capture the test runner's report of the first.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runMain } from '../helpers/cli.js';

const COMMON = [
  '--port',
  '0',
  '--prometheus-port',
  '0',
  '--log-level',
  'warn',
  '--exit-after-check',
];

test('switchyard demo --protocol grpc tokenizes in the gateway in front of a mixed gRPC fleet', async () => {
  const { status, stdout, stderr } = await runMain([
    'demo',
    '--protocol',
    'grpc',
    '--runtime',
    'vllm',
    ...COMMON,
  ]);
  assert.equal(status, 0, stderr);
  assert.match(stdout, /4 simulated vllm gRPC workers \(mixed\)/);
  assert.match(stdout, /regular grpc:\/\/127\.0\.0\.1:\d+/);
  assert.match(stdout, /prefill grpc:\/\/127\.0\.0\.1:\d+/);
  assert.match(stdout, /decode {2}grpc:\/\/127\.0\.0\.1:\d+/);
  assert.match(stdout, /First request answered 200 by grpc:\/\/127\.0\.0\.1:\d+: "\w+/);
});
