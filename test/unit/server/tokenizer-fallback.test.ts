// SMG's tokenizer lookup for /v1/tokenize and /v1/detokenize (handlers.rs get_tokenizer): by
// name, then by id; only "" and "unknown" fall back, to the first tokenizer by name; any other
// miss is an error listing the names (or saying there are none).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ManualClock } from '@switchyard/kit';
import { resolveTokenizer } from '../../../src/server/handlers/tokenize.js';
import { TokenizerCatalog } from '../../../src/tokenizer/catalog.js';
import { TokenizerRegistry } from '../../../src/tokenizer/registry.js';
import { stubTokenizer } from '../../helpers/fake-engine.js';

function catalogOf(...names: string[]): TokenizerCatalog {
  const catalog = new TokenizerCatalog(new TokenizerRegistry({ clock: new ManualClock() }));
  for (const name of names) catalog.add(`id-${name}`, stubTokenizer(name, `/${name}`));
  return catalog;
}

const nameOf = (r: ReturnType<typeof resolveTokenizer>): string =>
  'error' in r ? `error: ${r.error}` : r.name;

test('a name or an id finds its tokenizer', () => {
  const catalog = catalogOf('zeta', 'alpha');
  assert.equal(nameOf(resolveTokenizer(catalog, 'zeta')), 'zeta');
  assert.equal(nameOf(resolveTokenizer(catalog, 'id-zeta')), 'zeta');
});

test('"" and "unknown" fall back to the first by name, not the first registered', () => {
  const catalog = catalogOf('zeta', 'alpha');
  assert.equal(nameOf(resolveTokenizer(catalog, '')), 'alpha');
  assert.equal(nameOf(resolveTokenizer(catalog, 'unknown')), 'alpha');
  // A tokenizer actually named "unknown" is found by name first.
  const named = catalogOf('zeta', 'unknown', 'alpha');
  assert.equal(nameOf(resolveTokenizer(named, 'unknown')), 'unknown');
});

test('any other miss lists the names; an empty catalog says how to add one', () => {
  const catalog = catalogOf('zeta', 'alpha');
  assert.equal(
    nameOf(resolveTokenizer(catalog, 'Unknown')),
    "error: Tokenizer for model 'Unknown' not found. Available: alpha, zeta",
  );
  for (const model of ['', 'unknown', 'm']) {
    assert.equal(
      nameOf(resolveTokenizer(catalogOf(), model)),
      'error: No tokenizers available. Use POST /v1/tokenizers to add one.',
    );
  }
});
