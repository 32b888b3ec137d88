import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mintGrpcRoom } from '../../../src/pd/grpc/rooms.js';

test('SGLang rooms fit its int32 field; TokenSpeed rooms use 63 bits', () => {
  let wide = 0;
  for (let i = 0; i < 2000; i++) {
    const s = mintGrpcRoom('sglang');
    assert.ok(s >= 0n && s < 2n ** 31n - 1n, String(s));
    const t = mintGrpcRoom('tokenspeed');
    assert.ok(t >= 0n && t < 2n ** 63n - 1n, String(t));
    if (t > 2n ** 53n) wide++;
  }
  // Uniform over 63 bits: all but about one in a thousand are above 2^53.
  assert.ok(wide > 1990, `only ${wide} of 2000 TokenSpeed rooms above 2^53`);
  const rooms = new Set(Array.from({ length: 1000 }, () => mintGrpcRoom('sglang')));
  assert.ok(rooms.size > 995, 'rooms are fresh per draw');
});
