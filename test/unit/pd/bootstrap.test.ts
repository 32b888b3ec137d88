import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  batchSize,
  bootstrapHost,
  mintRoom,
  planBootstrap,
  serializeWithBootstrap,
} from '../../../src/pd/bootstrap.js';

test('rooms are uniform 63-bit integers', () => {
  let max = 0n;
  for (let i = 0; i < 2000; i++) {
    const r = mintRoom();
    assert.ok(r >= 0n && r < 1n << 63n);
    if (r > max) max = r;
  }
  // 2000 draws from [0, 2^63): the largest is above 2^62 with probability 1 - 2^-2000.
  assert.ok(max > 1n << 62n);
});

test('a room above 2^53 is written as its exact digits', () => {
  const plan = {
    host: '10.0.0.1',
    port: 8998,
    rooms: [9_223_372_036_854_775_807n],
    batched: false,
  };
  const json = serializeWithBootstrap({ model: 'm', text: 'hi' }, plan).toString();
  assert.match(json, /"bootstrap_room":9223372036854775807[,}]/);
  assert.match(json, /"bootstrap_host":"10.0.0.1","bootstrap_port":8998/);
});

test('batches get arrays with a fresh room per item; extras (DP ranks) are added', () => {
  const body = { text: ['a', 'b', 'c'] };
  const plan = planBootstrap('generate', body, 'http://[::1]:30001', null);
  assert.equal(plan.rooms.length, 3);
  assert.equal(new Set(plan.rooms.map(String)).size, 3);
  const json = serializeWithBootstrap(body, plan, { routed_dp_rank: 1 }).toString();
  const rooms = /"bootstrap_room":\[(\d+),(\d+),(\d+)\]/.exec(json);
  assert.ok(rooms);
  assert.deepEqual(rooms.slice(1).map(BigInt), plan.rooms);
  assert.match(json, /"bootstrap_host":\["\[::1\]","\[::1\]","\[::1\]"\]/);
  assert.match(json, /"bootstrap_port":\[null,null,null\]/);
  assert.match(json, /"routed_dp_rank":1/);
  assert.deepEqual(body, { text: ['a', 'b', 'c'] }, 'the client body is not mutated');
});

test('batch detection per route', () => {
  assert.equal(batchSize('generate', { text: 'x' }), undefined);
  assert.equal(batchSize('generate', { text: ['x', 'y'] }), 2);
  assert.equal(batchSize('generate', { input_ids: [1, 2, 3] }), undefined);
  assert.equal(batchSize('generate', { input_ids: [[1], [2]] }), 2);
  assert.equal(batchSize('chat', { n: 1 }), undefined);
  assert.equal(batchSize('chat', { n: 4 }), 4);
  assert.equal(batchSize('completion', { prompt: 'x' }), undefined);
  assert.equal(batchSize('completion', { prompt: [1, 2, 3] }), undefined, 'one tokenized prompt');
  assert.equal(batchSize('completion', { prompt: ['a', 'b'] }), 2);
  assert.equal(batchSize('completion', { prompt: [[1], [2], [3]] }), 3);
});

test('client text equal to a JSON key cannot displace a room', () => {
  const plan = { host: 'h', port: 1, rooms: [5n], batched: false };
  const json = serializeWithBootstrap({ prompt: '"bootstrap_room"' }, plan).toString();
  assert.deepEqual(JSON.parse(json), {
    prompt: '"bootstrap_room"',
    bootstrap_host: 'h',
    bootstrap_port: 1,
    bootstrap_room: 5,
  });
});

test('bootstrap host is the prefill URL host, IPv6 bracketed', () => {
  assert.equal(bootstrapHost('http://10.1.2.3:30000'), '10.1.2.3');
  assert.equal(bootstrapHost('http://[fe80::1]:30000'), '[fe80::1]');
});
