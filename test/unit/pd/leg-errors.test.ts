import assert from 'node:assert/strict';
import { test } from 'node:test';
import { legStatusError, legTransportError } from '../../../src/pd/leg-errors.js';
import { connectorFor, mooncakeDecodeParams } from '../../../src/pd/kv-transfer.js';
import { testWorker } from '../../helpers/workers.js';

test('a leg error keeps the upstream status class and names the leg', () => {
  const e429 = legStatusError('prefill', 429, '{"error":{"message":"too busy"}}');
  assert.equal(e429.status, 429);
  assert.equal(e429.code, 'prefill_too_many_requests');
  assert.match(e429.message, /too busy/);
  const e504 = legStatusError('decode', 504, 'gateway timeout');
  assert.deepEqual([e504.status, e504.code], [504, 'decode_gateway_timeout']);
  const e418 = legStatusError('prefill', 418, '');
  assert.deepEqual([e418.status, e418.code], [418, 'prefill_error']);
  assert.deepEqual(
    [
      legTransportError('decode', 'connection', 'x').status,
      legTransportError('decode', 'connection', 'x').code,
    ],
    [502, 'decode_request_failed'],
  );
});

test('connector mode comes from the prefill worker registration', () => {
  assert.equal(connectorFor(testWorker('p', { kvConnector: 'NixlConnector' })).mode, 'nixl');
  assert.equal(connectorFor(testWorker('p')).mode, 'passthrough');
  const mc = connectorFor(
    testWorker('p', { kvConnector: 'MooncakeConnector', kvEngineId: 'eng-1', bootstrapPort: 9100 }),
  );
  assert.deepEqual(mc, { mode: 'mooncake', bootstrapAddr: 'http://p:9100', engineId: 'eng-1' });
  const params = mooncakeDecodeParams('xfer-1', mc);
  assert.deepEqual(params, {
    do_remote_decode: false,
    do_remote_prefill: true,
    transfer_id: 'xfer-1',
    remote_engine_id: 'eng-1',
    remote_bootstrap_addr: 'http://p:9100',
  });
  // Under DP the engine id is only known for a pinned rank; a bad dp_size label fails closed.
  assert.equal(
    connectorFor(
      testWorker('p', {
        kvConnector: 'MooncakeConnector',
        kvEngineId: 'e',
        labels: { dp_size: '2' },
      }),
    ).engineId,
    undefined,
  );
  assert.equal(
    connectorFor(
      testWorker('p', { kvConnector: 'MooncakeConnector', kvEngineId: 'e', dpSize: 2, dpRank: 1 }),
    ).engineId,
    'e_dp1',
  );
  assert.equal(
    connectorFor(
      testWorker('p', {
        kvConnector: 'MooncakeConnector',
        kvEngineId: 'e',
        labels: { dp_size: 'x' },
      }),
    ).engineId,
    undefined,
  );
});
