import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseYamlLite, YamlError } from '../../src/yaml-lite.js';

void describe('parseYamlLite', () => {
  void it('parses the fleet-file subset', () => {
    const text = `# a PD fleet
basePort: 31000
defaults:
  engine: realistic   # comment after a value
  timeScale: 0.5
  model: "my model # not a comment"
workers:
  - role: regular
    count: 2
  - role: prefill
    bootstrapPort: 8998
    faults:
      slowStartMs: 1e3
  -
    role: decode
    prefixCache: false
    kvEngineId: 'it''s'
tags:
- a
- ~
`;
    assert.deepEqual(parseYamlLite(text), {
      basePort: 31000,
      defaults: { engine: 'realistic', timeScale: 0.5, model: 'my model # not a comment' },
      workers: [
        { role: 'regular', count: 2 },
        { role: 'prefill', bootstrapPort: 8998, faults: { slowStartMs: 1000 } },
        { role: 'decode', prefixCache: false, kvEngineId: "it's" },
      ],
      tags: ['a', null],
    });
  });

  void it('rejects what it does not support, naming the line', () => {
    for (const [text, line] of [
      ['a: [1, 2]', 1],
      ['a: 1\n  b: 2', 2],
      ['a: 1\na: 2', 2],
      ['a:\n\t- b', 2],
      ['- a\nb: 1', 2],
    ] as const) {
      assert.throws(
        () => parseYamlLite(text),
        (err: Error) => {
          assert.ok(err instanceof YamlError, text);
          assert.match(err.message, new RegExp(`line ${line}`), text);
          return true;
        },
      );
    }
  });
});
