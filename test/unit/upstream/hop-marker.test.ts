import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HopMarker } from '../../../src/upstream/hop-marker.js';

test('a marker recognises only its own Via entry, wherever it is in the chain', () => {
  const mine = new HopMarker('aaaa');
  const other = new HopMarker('bbbb');
  const chain = other.append(mine.append('1.0 edge'));
  assert.equal(chain, '1.0 edge, 1.1 switchyard-aaaa, 1.1 switchyard-bbbb');
  assert.ok(mine.seenIn(chain));
  assert.ok(mine.seenIn(['1.0 edge', '1.1 switchyard-aaaa (comment)']));
  assert.ok(!mine.seenIn('1.0 edge, 1.1 switchyard-aaaab'));
  assert.ok(!mine.seenIn(undefined));
});

test('two markers made without an id differ', () => {
  assert.notEqual(new HopMarker().pseudonym, new HopMarker().pseudonym);
});
