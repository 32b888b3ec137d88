import assert from 'node:assert/strict';
import { test } from 'node:test';
import { UntilMarker } from '../../../src/parsers/tool/until-marker.js';

test('until marker: finds the marker however the text is cut, and what follows it', () => {
  const text = 'ab</e</end>cd</end>';
  for (let size = 1; size <= text.length; size++) {
    const until = new UntilMarker('</end>');
    const found: { before: string; after: string }[] = [];
    for (let at = 0; at < text.length; at += size) {
      let piece = text.slice(at, at + size);
      for (let hit = until.add(piece); hit !== undefined; hit = until.add(piece)) {
        found.push(hit);
        piece = hit.after;
        if (piece === '') break;
      }
    }
    assert.deepEqual(
      found.map((f) => f.before),
      ['ab</e', 'cd'],
      `pieces of ${size}`,
    );
  }
});

test('until marker: takeAll returns what came since the last marker, held tail included', () => {
  const until = new UntilMarker('</end>');
  assert.equal(until.add('x</en'), undefined);
  assert.equal(until.takeAll(), 'x</en');
  assert.deepEqual(until.add('y</end>z'), { before: 'y', after: 'z' });
});
