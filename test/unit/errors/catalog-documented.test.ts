// The error catalog and docs/api.md agree both ways (fastify's check): every code the gateway can
// mint is documented with its status and `type`, and the docs list no code the catalog lacks.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ERROR_CATALOG, typeOf, type ErrorCode } from '../../../src/errors/catalog.js';

interface DocumentedCode {
  /** A number, or the docs' words for a status that is not fixed ("the worker's", "—"). */
  status: string;
  /** The `type` column, when the table has one. */
  type: string | undefined;
}

const cells = (row: string): string[] =>
  row
    .split('|')
    .slice(1, -1)
    .map((c) => c.trim());

/**
 * The codes in the tables of the "## Errors" section. A `Code` table lists whole codes; a table
 * headed "Code (`prefill_` / `decode_` +)" lists suffixes that each prefix completes.
 */
function documentedCodes(markdown: string): Map<string, DocumentedCode> {
  const lines = markdown.split('\n');
  const start = lines.indexOf('## Errors');
  assert.notEqual(start, -1, 'docs/api.md has a "## Errors" section');
  const end = lines.findIndex((l, i) => i > start && l.startsWith('## '));
  const codes = new Map<string, DocumentedCode>();
  let prefixes: string[] | undefined;
  let typeColumn = -1;
  for (const line of lines.slice(start, end === -1 ? undefined : end)) {
    if (!line.startsWith('|')) {
      prefixes = undefined;
      continue;
    }
    const row = cells(line);
    const head = row[0] ?? '';
    if (head.startsWith('Code')) {
      prefixes = [...head.matchAll(/`([a-z_]+)`/g)].map((m) => m[1] ?? '');
      if (prefixes.length === 0) prefixes = [''];
      typeColumn = row.indexOf('`type`');
      continue;
    }
    if (prefixes === undefined || /^-+$/.test(head)) continue;
    const suffix = /^`([a-z_]+)`$/.exec(head)?.[1];
    assert.ok(suffix, `not a code cell in the errors tables: ${line}`);
    for (const prefix of prefixes) {
      const code = prefix + suffix;
      assert.ok(!codes.has(code), `${code} is documented twice`);
      codes.set(code, {
        status: row[1] ?? '',
        type: typeColumn === -1 ? undefined : row[typeColumn],
      });
    }
  }
  return codes;
}

// Tests run from the repository root; import.meta.url would point into a compiled copy.
const docs = documentedCodes(readFileSync(join(process.cwd(), 'docs', 'api.md'), 'utf8'));
const catalog = Object.entries(ERROR_CATALOG) as [ErrorCode, number][];

void describe('error catalog against docs/api.md', () => {
  void it('reads the codes from both errors tables', () => {
    assert.ok(docs.has('invalid_json'), 'a code from the main table');
    assert.ok(docs.has('decode_read_failed'), 'a prefixed code from the PD leg table');
  });

  void it('documents every catalog code with its status and type', () => {
    for (const [code, status] of catalog) {
      const doc = docs.get(code);
      assert.ok(doc, `${code} is not documented in docs/api.md "## Errors"`);
      // A status the docs give in words (the worker's own, or none: an SSE event) is not fixed.
      if (/^\d+$/.test(doc.status)) assert.equal(Number(doc.status), status, `${code} status`);
      if (doc.type !== undefined && doc.type !== '—')
        assert.equal(doc.type, typeOf(status), `${code} type`);
    }
  });

  void it('documents no code the catalog lacks', () => {
    const known = new Set<string>(Object.keys(ERROR_CATALOG));
    const extra = [...docs.keys()].filter((code) => !known.has(code));
    assert.deepEqual(extra, [], 'documented in docs/api.md but not in src/errors/catalog.ts');
  });
});
