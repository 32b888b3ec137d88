// The indexed heap re-sifts and removes arbitrary items; checked against a sorted list.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { IndexedHeap } from '../../../src/util/indexed-heap.js';
import { randomIndex, seededRandom } from '@switchyard/kit';

interface Item {
  id: number;
  key: number;
}

void describe('IndexedHeap', () => {
  it('always peeks the smallest item through random pushes, key changes and deletes', () => {
    const random = seededRandom(7);
    const heap = new IndexedHeap<Item>((a, b) => a.key < b.key || (a.key === b.key && a.id < b.id));
    const items = Array.from({ length: 40 }, (_, id) => ({ id, key: randomIndex(random, 20) }));
    const inHeap = new Set<Item>();
    heap.reset(items.slice(0, 20));
    for (const item of items.slice(0, 20)) inHeap.add(item);

    for (let step = 0; step < 5000; step++) {
      const item = items[randomIndex(random, items.length)] as Item;
      const op = randomIndex(random, 3);
      if (op === 0) {
        heap.upsert(item);
        inHeap.add(item);
      } else if (op === 1) {
        item.key = randomIndex(random, 20);
        heap.update(item);
      } else {
        heap.delete(item);
        inHeap.delete(item);
      }
      const expected = [...inHeap].sort((a, b) => a.key - b.key || a.id - b.id)[0];
      assert.equal(heap.peek(), expected, `step ${step}`);
      assert.equal(heap.size, inHeap.size);
      assert.equal(heap.has(item), inHeap.has(item));
    }
  });
});
