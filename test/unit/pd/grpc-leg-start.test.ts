// A leg whose engine request cannot be built gives back everything it was handed: the loads it
// took, the calls it already made (aborted at once), and the admission lease the router passed on.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EngineClient, GenerateCall, GenerateInput } from '../../../src/engine/types.js';
import { startGrpcLeg } from '../../../src/pd/grpc/grpc-leg.js';
import { lease } from '../../../src/util/lease.js';
import { testWorker } from '../../helpers/workers.js';

test('a request that fails to build releases the loads, the made calls and the admission', () => {
  const worker = testWorker('p', { url: 'grpc://p:50051', type: 'prefill' });
  const disposed: string[] = [];
  let made = 0;
  // The engine client's contract: generate() may throw before any call exists.
  const client = {
    generate(input: GenerateInput): GenerateCall {
      if (made++ > 0) throw new RangeError('room does not fit its field');
      return {
        requestId: input.requestId,
        disposeNow: () => disposed.push(input.requestId),
      } as unknown as GenerateCall;
    },
  } as unknown as EngineClient;
  let slotReleased = 0;
  const slot = lease(() => slotReleased++);
  const input = (requestId: string) => ({ requestId }) as unknown as GenerateInput;
  assert.throws(
    () => startGrpcLeg('prefill', worker, client, [input('a'), input('b')], slot),
    RangeError,
  );
  assert.equal(worker.load, 0, 'both loads came back');
  assert.deepEqual(disposed, ['a'], 'the call already made was aborted');
  assert.equal(slotReleased, 1, 'the admission lease came back');
});
