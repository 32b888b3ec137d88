// The tokenizer catalog over the real registry: every entry gets an id, whoever added it (a gRPC
// worker's registration, set() at startup, add() from the admin route); list() is ordered by
// name as Rust orders strings; lookups go name-then-id (tokenize) or id-then-name (admin);
// removal drops the entry from the registry, so the gRPC pipeline no longer sees it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '@switchyard/kit';
import { TokenizerCatalog } from '../../../src/tokenizer/catalog.js';
import { TokenizerRegistry } from '../../../src/tokenizer/registry.js';
import { stubTokenizer } from '../../helpers/fake-engine.js';

function setup(): { registry: TokenizerRegistry; catalog: TokenizerCatalog } {
  const registry = new TokenizerRegistry({ clock: new ManualClock() });
  let n = 0;
  const catalog = new TokenizerCatalog(registry, () => `id-${++n}`);
  return { registry, catalog };
}

void describe('tokenizer catalog', () => {
  it('gives an id to an entry registered behind its back, and keeps it', async () => {
    const { registry, catalog } = setup();
    await registry.register('qwen3', async () => stubTokenizer('qwen3', '/models/qwen3'));
    const entry = catalog.byName('qwen3');
    assert.equal(entry?.id, 'id-1');
    assert.equal(entry.tokenizer.source, '/models/qwen3');
    assert.equal(catalog.byName('qwen3')?.id, 'id-1', 'the same id on every read');
    assert.equal(catalog.byId('id-1')?.name, 'qwen3');
  });

  it('adds under the given id, and refuses a name that is taken', () => {
    const { registry, catalog } = setup();
    assert.equal(catalog.add('job-id', stubTokenizer('m', '/a')), true);
    assert.equal(catalog.byName('m')?.id, 'job-id');
    assert.equal(registry.get('m')?.source, '/a', 'the registry holds it: gRPC sees it');
    assert.equal(catalog.add('other', stubTokenizer('m', '/b')), false);
    assert.equal(registry.get('m')?.source, '/a');
    assert.equal(catalog.byId('other'), undefined);
  });

  it('lists by name in code-point order, as Rust sorts Strings', () => {
    const { catalog } = setup();
    // UTF-16 order puts U+FF5E before U+1F600 (a surrogate pair); code-point order the reverse.
    for (const name of ['b', '\u{1F600}', '\uFF5E', 'B', '/path', 'a']) {
      catalog.add(`id-${name}`, stubTokenizer(name, name));
    }
    assert.deepEqual(
      catalog.list().map((e) => e.name),
      ['/path', 'B', 'a', 'b', '\uFF5E', '\u{1F600}'],
    );
  });

  it('looks up name first for tokenize, id first for the admin routes', () => {
    const { catalog } = setup();
    // A tokenizer whose name is another one's id: the two lookups disagree, as in SMG.
    catalog.add('x', stubTokenizer('first', '/1'));
    catalog.add('y', stubTokenizer('x', '/2'));
    assert.equal(catalog.byNameOrId('x')?.name, 'x');
    assert.equal(catalog.byIdOrName('x')?.name, 'first');
    assert.equal(catalog.byNameOrId('y')?.name, 'x');
    assert.equal(catalog.byNameOrId('nope'), undefined);
  });

  it('removes by id or by name, from the registry too', () => {
    const { registry, catalog } = setup();
    catalog.add('id-a', stubTokenizer('a', '/a'));
    catalog.add('id-b', stubTokenizer('b', '/b'));
    assert.equal(catalog.remove('id-a')?.name, 'a');
    assert.equal(registry.has('a'), false);
    assert.equal(catalog.byId('id-a'), undefined);
    assert.equal(catalog.remove('b')?.id, 'id-b');
    assert.equal(registry.has('b'), false);
    assert.equal(catalog.remove('b'), undefined);
    assert.deepEqual(catalog.list(), []);
  });

  it('gives a name registered again after removal a new id', async () => {
    const { registry, catalog } = setup();
    await registry.register('m', async () => stubTokenizer('m', '/m'));
    const first = catalog.byName('m')?.id;
    catalog.remove('m');
    await registry.register('m', async () => stubTokenizer('m', '/m'));
    const second = catalog.byName('m')?.id;
    assert.ok(first !== undefined && second !== undefined);
    assert.notEqual(first, second);
    assert.equal(catalog.byId(first), undefined, 'the old id no longer resolves');
  });
});
