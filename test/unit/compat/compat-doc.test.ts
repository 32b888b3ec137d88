// docs/compat.md is generated from the flag table and the SMG route list; a change to either
// without `npm run docs:compat` fails here, so the page cannot drift from the code.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { renderCompatDoc } from '../../../src/compat/render-compat-doc.js';
import { GATEWAY_FLAGS } from '../../../src/config/gateway-flags.js';
import { repoPath } from '../../helpers/repo-root.js';

const committed = readFileSync(repoPath('docs', 'compat.md'), 'utf8');

test('the committed docs/compat.md is what `npm run docs:compat` generates', () => {
  assert.equal(committed, renderCompatDoc(), 'docs/compat.md is stale: run `npm run docs:compat`');
});

test('docs/compat.md names every flag of the table with its status section', () => {
  for (const flag of GATEWAY_FLAGS)
    assert.ok(committed.includes(`| \`--${flag.name}\``), `--${flag.name} missing`);
  for (const heading of [
    '### Implemented',
    '### Accepted, no effect',
    '### Unsupported',
    '## Routes',
    '## Deliberate deviations',
  ]) {
    assert.ok(committed.includes(heading), heading);
  }
});
