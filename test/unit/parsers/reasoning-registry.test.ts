// Each registered parser's configuration, as SMG's reasoning-parser factory sets it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { REASONING_PARSER_NAMES } from '../../../src/parsers/model-map.js';
import {
  REASONING_PARSERS,
  reasoningParserByName,
} from '../../../src/parsers/reasoning/registry.js';

/** name → [startTag, endTag, alwaysStartsInReasoning] */
const EXPECTED: Record<string, [string, string, boolean]> = {
  base: ['<think>', '</think>', false],
  passthrough: ['', '', false],
  deepseek_r1: ['<think>', '</think>', true],
  qwen3: ['<think>', '</think>', false],
  qwen3_thinking: ['<think>', '</think>', true],
  kimi: ['◁think▷', '◁/think▷', false],
  glm45: ['<think>', '</think>', false],
  step3: ['<think>', '</think>', true],
  minimax: ['<think>', '</think>', true],
  cohere_cmd: ['<|START_THINKING|>', '<|END_THINKING|>', false],
  nano_v3: ['<think>', '</think>', false],
  deepseek_v31: ['<think>', '</think>', false],
  deepseek_v4: ['<think>', '</think>', false],
  kimi_k25: ['<think>', '</think>', false],
  kimi_thinking: ['<think>', '</think>', true],
};

test('every registered parser has SMG markers and starting state', () => {
  assert.deepEqual([...REASONING_PARSERS.keys()].sort(), Object.keys(EXPECTED).sort());
  for (const [name, [startTag, endTag, always]] of Object.entries(EXPECTED)) {
    const p = reasoningParserByName(name);
    assert.ok(p, name);
    assert.deepEqual(
      [p.name, p.startTag, p.endTag, p.alwaysStartsInReasoning],
      [name, startTag, endTag, always],
    );
  }
});

test('every SMG reasoning parser name is registered but the two structured-channel ones', () => {
  const missing = REASONING_PARSER_NAMES.filter((n) => !REASONING_PARSERS.has(n));
  assert.deepEqual(missing.sort(), ['inkling', 'kimi_k3']);
  for (const name of REASONING_PARSERS.keys())
    assert.ok(REASONING_PARSER_NAMES.includes(name), name);
});

test('an unknown name has no parser', () => {
  assert.equal(reasoningParserByName('deepseek-r1'), undefined);
  assert.equal(reasoningParserByName(''), undefined);
});
