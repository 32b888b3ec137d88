// `switchyard demo --protocol grpc --shape pd`: the first request goes through a gRPC PD pair
// (the gateway tokenizes; the prefill and decode engines meet in a bootstrap room).
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

test('switchyard demo --protocol grpc --shape pd answers through a gRPC PD pair', async () => {
  const { status, stdout, stderr } = await runMain([
    'demo',
    '--protocol',
    'grpc',
    '--shape',
    'pd',
    '--runtime',
    'tokenspeed',
    ...COMMON,
  ]);
  assert.equal(status, 0, stderr);
  assert.match(stdout, /2 simulated tokenspeed gRPC workers \(pd\)/);
  const decode = /decode {2}(grpc:\/\/127\.0\.0\.1:\d+)/.exec(stdout)?.[1];
  assert.ok(decode, stdout);
  assert.ok(stdout.includes(`First request answered 200 by ${decode}: "`), stdout);
});
