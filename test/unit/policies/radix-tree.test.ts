import { ManualClock } from '@switchyard/kit';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RadixTree } from '../../../src/policies/radix-tree.js';
import { advanceTo } from './policy-fixtures.js';

function tenantsOf(tree: RadixTree, text: string): string[] {
  return [...(tree.match(text).tenants?.keys() ?? [])].sort();
}

function accessOf(tree: RadixTree, path: string, tenant: string): number | undefined {
  for (const node of tree.nodes()) if (node.path === path) return node.tenants.get(tenant);
  return undefined;
}

void describe('RadixTree', () => {
  void it('matches nothing in an empty tree', () => {
    const tree = new RadixTree(new ManualClock());
    assert.deepEqual(tree.match('hello'), { matched: 0, tenants: undefined });
    assert.equal(tree.totalChars, 0);
  });

  void it('matches the longest stored prefix, ending mid-edge', () => {
    const tree = new RadixTree(new ManualClock());
    tree.insert('hello world', 'a');
    assert.equal(tree.match('hello there').matched, 6);
    assert.deepEqual(tenantsOf(tree, 'hello there'), ['a']);
    assert.equal(tree.match('hello world and more').matched, 11);
    assert.equal(tree.match('xyz').matched, 0);
  });

  void it('splits an edge and keeps both tenants on the shared part', () => {
    const tree = new RadixTree(new ManualClock());
    tree.insert('hello world', 'a');
    tree.insert('hello', 'b');
    assert.deepEqual(tenantsOf(tree, 'hello'), ['a', 'b']);
    assert.deepEqual(tenantsOf(tree, 'hel'), ['a', 'b']);
    // Past the split only 'a' went on.
    assert.deepEqual(tenantsOf(tree, 'hello w'), ['a']);
    assert.equal(tree.nodeCount, 2);
    assert.equal(tree.tenantChars('a'), 11);
    assert.equal(tree.tenantChars('b'), 5);
    assert.equal(tree.totalChars, 16);
  });

  void it('counts a string once per tenant however often it is inserted', () => {
    const tree = new RadixTree(new ManualClock());
    tree.insert('abc', 'a');
    tree.insert('abc', 'a');
    tree.insert('ab', 'a');
    assert.equal(tree.tenantChars('a'), 3);
    tree.insert('abd', 'a');
    assert.equal(tree.tenantChars('a'), 4);
    assert.equal(tree.tenantCount, 1);
  });

  void it('ignores the empty string', () => {
    const tree = new RadixTree(new ManualClock());
    tree.insert('', 'a');
    assert.equal(tree.totalChars, 0);
    assert.equal(tree.tenantCount, 0);
  });

  void it('matchAndInsert hands the match to the chooser and inserts for the tenant it returns', () => {
    const tree = new RadixTree(new ManualClock());
    tree.insert('system prompt: be brief', 'a');
    const seen: [number, string[]][] = [];
    const matched = tree.matchAndInsert('system prompt: be kind', (m, tenants) => {
      seen.push([m, [...(tenants?.keys() ?? [])]]);
      return 'b';
    });
    assert.equal(matched, 18);
    assert.deepEqual(seen, [[18, ['a']]]);
    assert.deepEqual(tenantsOf(tree, 'system prompt: be '), ['a', 'b']);
    assert.deepEqual(tenantsOf(tree, 'system prompt: be kind'), ['b']);
    assert.equal(tree.tenantChars('b'), 22);
  });

  void it('matchAndInsert inserts nothing when the chooser declines', () => {
    const tree = new RadixTree(new ManualClock());
    tree.insert('abcdef', 'a');
    tree.matchAndInsert('abcxyz', () => undefined);
    assert.equal(tree.nodeCount, 1);
    assert.equal(tree.totalChars, 6);
  });

  void it('stamps access times from the clock on insert, never on a plain match', () => {
    const clock = new ManualClock(100);
    const tree = new RadixTree(clock);
    tree.insert('abcdef', 'a');
    tree.insert('abcxyz', 'a'); // splits 'abcdef' at 3
    assert.equal(accessOf(tree, 'abc', 'a'), 100);
    advanceTo(clock, 250);
    tree.match('abcdef');
    assert.equal(accessOf(tree, 'abcdef', 'a'), 100);
    tree.insert('abcdef', 'a');
    assert.equal(accessOf(tree, 'abc', 'a'), 250);
    assert.equal(accessOf(tree, 'abcdef', 'a'), 250);
    assert.equal(accessOf(tree, 'abcxyz', 'a'), 100);
  });

  void it('evicts leaves oldest first across tenants until the total fits', () => {
    const clock = new ManualClock();
    const tree = new RadixTree(clock);
    tree.insert('shared-prefix/one', 'a'); // t=0
    advanceTo(clock, 10);
    tree.insert('shared-prefix/two', 'b'); // t=10
    advanceTo(clock, 20);
    tree.insert('shared-prefix/three', 'a'); // t=20, refreshes a's shared part
    // a: 'shared-prefix/' (14) + 'one' (3) + 'three' (5) = 22; b: 14 + 'two' (3) = 17.
    assert.equal(tree.totalChars, 39);
    // The oldest leaf is a's 'one' (t=0): removing it gets under 37.
    assert.equal(tree.evictToSize(37), 3);
    assert.equal(tree.match('shared-prefix/one').matched, 14);
    assert.deepEqual(tenantsOf(tree, 'shared-prefix/two'), ['b']);
    // Next oldest is b's 'two' (t=10), then b's shared part (t=10), which became b's leaf.
    assert.equal(tree.evictToSize(20), 17);
    assert.equal(tree.tenantChars('b'), 0);
    assert.equal(tree.tenantCount, 1);
    assert.deepEqual(tenantsOf(tree, 'shared-prefix/'), ['a']);
    assert.equal(tree.match('shared-prefix/three').matched, 19);
  });

  void it('does nothing when already within the bound, and can empty the tree', () => {
    const tree = new RadixTree(new ManualClock());
    tree.insert('abc', 'a');
    tree.insert('abd', 'b');
    assert.equal(tree.evictToSize(100), 0);
    assert.equal(tree.evictToSize(0), 6);
    assert.equal(tree.totalChars, 0);
    assert.equal(tree.nodeCount, 0);
    assert.equal(tree.match('abc').matched, 0);
  });

  void it('purges a tenant and prunes the nodes only it held', () => {
    const tree = new RadixTree(new ManualClock());
    tree.insert('conversation A turn 1', 'a');
    tree.insert('conversation B turn 1', 'b');
    tree.insert('solo', 'a');
    assert.equal(tree.removeTenant('a'), 21 + 4);
    assert.equal(tree.tenantChars('a'), 0);
    assert.equal(tree.totalChars, 21);
    assert.equal(tree.match('solo').matched, 0);
    assert.equal(tree.match('conversation A turn 1').matched, 13);
    assert.deepEqual(tenantsOf(tree, 'conversation '), ['b']);
    assert.equal(tree.removeTenant('a'), 0);
    assert.equal(tree.removeTenant('never-seen'), 0);
  });

  void it('works in UTF-16 code units, so a match can stop inside a surrogate pair', () => {
    const tree = new RadixTree(new ManualClock());
    tree.insert('😀 hi', 'a'); // '😀' is two code units
    assert.equal(tree.match('😀 hello').matched, 4);
    assert.equal(tree.match('😁').matched, 1); // shares only the high surrogate
    assert.equal(tree.tenantChars('a'), 5);
  });

  void it('keeps a lone surrogate intact when a long edge is split inside a pair', () => {
    const tree = new RadixTree(new ManualClock());
    const head = 'x'.repeat(40);
    tree.insert(`${head}😀${'a'.repeat(40)}`, 'a');
    tree.insert(`${head}😁${'b'.repeat(40)}`, 'b'); // diverges at the low surrogate
    const labels = [...tree.nodes()].map((n) => n.label);
    assert.ok(labels.includes(`${head}\uD83D`));
    assert.ok(labels.includes(`\uDE00${'a'.repeat(40)}`));
    assert.equal(tree.match(`${head}😀${'a'.repeat(40)}`).matched, 82);
    assert.deepEqual(tenantsOf(tree, `${head}😁`), ['b']);
  });
});
