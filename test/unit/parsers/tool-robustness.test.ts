/**
 * Broken output never throws and is never thrown away: random mixes of every format's markup,
 * JSON pieces and prose, parsed whole or streamed in random deltas. When no call comes out, the
 * content is the text exactly.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JsonToolParser } from '../../../src/parsers/tool/json.js';
import { LlamaToolParser } from '../../../src/parsers/tool/llama.js';
import { MistralToolParser } from '../../../src/parsers/tool/mistral.js';
import { PassthroughToolParser } from '../../../src/parsers/tool/passthrough.js';
import { QwenXmlToolParser } from '../../../src/parsers/tool/qwen-xml.js';
import { QwenToolParser } from '../../../src/parsers/tool/qwen.js';
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

const PARSERS = [
  new JsonToolParser(),
  new QwenToolParser(),
  new QwenXmlToolParser(),
  new LlamaToolParser(),
  new MistralToolParser(),
  new PassthroughToolParser(),
];

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
      if (streamed.calls.length === 0) {
        assert.equal(streamed.content, text, `${parser.name} ${JSON.stringify(cuts)}`);
      }
    }
  }
});
