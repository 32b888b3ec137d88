/**
 * Broken output never throws and is never thrown away: random mixes of every format's markup,
 * JSON pieces and prose, parsed whole or streamed in random deltas, through every parser of the
 * catalog. When no call comes out, the content is the text exactly. The formats that release each
 * call whole also stream exactly like the whole parse; the others stream a call's arguments as
 * they arrive, and one that breaks after its name cannot be taken back (docs/parsers.md).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TOOL_PARSERS } from '../../../src/parsers/tool/registry.js';
import { runStream } from './stream-property.js';

const PIECES = [
  '<tool_call>',
  '</tool_call>',
  '<function=f>',
  '</function>',
  '<parameter=a>',
  '</parameter>',
  '[TOOL_CALLS]',
  '<|python_tag|>',
  '<|python_start|>',
  '<|python_end|>',
  '[f(a=1)]',
  '<｜tool▁calls▁begin｜>',
  '<｜tool▁calls▁end｜>',
  '<｜tool▁call▁begin｜>',
  '<｜tool▁call▁end｜>',
  '<｜tool▁sep｜>',
  'function',
  '```json\n',
  '<|tool_calls_section_begin|>',
  '<|tool_calls_section_end|>',
  '<|tool_call_begin|>',
  '<|tool_call_end|>',
  '<|tool_call_argument_begin|>',
  'functions.f:0',
  '<arg_key>a</arg_key>',
  '<arg_value>1</arg_value>',
  '{"name": "f"',
  '"arguments": {',
  '{"a": [1, "x\\"y"]}',
  '}',
  ']',
  '[',
  ',',
  ';',
  ' ',
  '\n',
  'text',
  '"',
  '\\',
  '🌍',
];

let seed = 77;
function random(n: number): number {
  seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
  return seed % n;
}

// One instance may serve several names (the aliases of `qwen_xml`).
const PARSERS = [...new Set(TOOL_PARSERS.values())];
/** The parsers that release each call whole, at its end: they cannot stream a call that breaks. */
const WHOLE_CALLS = new Set([
  'deepseek',
  'deepseek31',
  'kimik2',
  'glm45_moe',
  'glm47_moe',
  'pythonic',
  'passthrough',
]);

test('random markup never throws, and without calls the content is the whole text', () => {
  for (let run = 0; run < 3000; run++) {
    let text = '';
    const n = 1 + random(12);
    for (let i = 0; i < n; i++) text += PIECES[random(PIECES.length)] ?? '';
    const cuts: string[] = [];
    for (let i = 0; i < text.length;) {
      const size = 1 + random(6);
      cuts.push(text.slice(i, i + size));
      i += size;
    }
    for (const parser of PARSERS) {
      const whole = parser.parse(text);
      if (whole.calls.length === 0) assert.equal(whole.content, text, `${parser.name} ${text}`);
      for (const call of whole.calls) JSON.parse(call.arguments);
      const streamed = runStream(parser, cuts);
      if (WHOLE_CALLS.has(parser.name)) {
        assert.deepEqual(streamed, whole, `${parser.name} ${JSON.stringify(cuts)}`);
      }
      if (streamed.calls.length === 0) {
        assert.equal(streamed.content, text, `${parser.name} ${JSON.stringify(cuts)}`);
      }
    }
  }
});
