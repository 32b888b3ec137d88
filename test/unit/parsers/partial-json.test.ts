import assert from 'node:assert/strict';
import { test } from 'node:test';
import { JsonScanner, readJsonObject, scanJsonValue } from '../../../src/parsers/partial-json.js';

const VALID = [
  '{}',
  '[]',
  '{"a": 1}',
  ' { "a" : [1, 2.5, -3e+2, 0, -0.1E-7, true, false, null] , "b" : {"c": {}} } ',
  '"plain"',
  '"esc \\" \\\\ \\/ \\b \\f \\n \\r \\t \\u00e9 \\uD83D\\uDE00"',
  '{"text": "Hello 世界 🌍", "quote": "say \\"hi\\"", "brace": "}{]["}',
  '[[[[{"deep": [{"x": [1]}]}]]]]',
  'true',
  '[1,[2,[3]],{"k":"v"}]',
];

const INVALID = [
  '{a: 1}',
  "{'a': 1}",
  '{"a" 1}',
  '{"a": 1,}',
  '[1,]',
  '[1 2]',
  '{"a": 01}',
  '{"a": 1.}',
  '{"a": .5}',
  '{"a": -}',
  '{"a": 1e}',
  '{"a": tru}',
  '{"a": nul }',
  '{"a": "\\x"}',
  '{"a": "\\u12g4"}',
  '{"a": "raw\nnewline"}',
  '{"a": 1]',
  '[1}',
  '{"a": True}',
];

test('complete valid JSON agrees with JSON.parse and ends where the value ends', () => {
  for (const text of VALID) {
    JSON.parse(text);
    const r = scanJsonValue(text + ' tail');
    assert.equal(r.complete, true, text);
    assert.equal(r.valid, true, text);
    // The value ends at its last character; trailing whitespace is not part of it.
    assert.equal(r.end, text.trimEnd().length, text);
  }
});

test('invalid JSON is reported at the first character no continuation could repair', () => {
  for (const text of INVALID) {
    assert.throws(() => JSON.parse(text), SyntaxError, text);
    assert.equal(scanJsonValue(text).valid, false, text);
  }
  assert.equal(scanJsonValue('{"a": 1,}').end, 8);
  assert.equal(scanJsonValue('[1 2]').end, 3);
});

test('every prefix of valid JSON is partial and valid, never complete too early', () => {
  for (const text of VALID.filter((t) => t.trim().startsWith('{') || t.trim().startsWith('['))) {
    const trimmed = text.trimEnd();
    for (let i = 0; i < trimmed.length; i++) {
      const r = scanJsonValue(trimmed.slice(0, i));
      assert.equal(r.valid, true, `${trimmed.slice(0, i)}|`);
      assert.equal(r.complete, false, `${trimmed.slice(0, i)}|`);
    }
  }
});

test('a number at the end of the text may still grow, so it is partial', () => {
  assert.equal(scanJsonValue('42').complete, false);
  assert.deepEqual(scanJsonValue('42 '), { end: 2, complete: true, valid: true });
  assert.deepEqual(scanJsonValue('-1.5e3,'), { end: 6, complete: true, valid: true });
});

test('scanning a growing text piece by piece gives the same answer as scanning it whole', () => {
  const text = '{"name": "get_weather", "arguments": {"city": "Par\\"is", "n": [1, 2]}} after';
  for (let step = 1; step <= 7; step++) {
    const scanner = new JsonScanner(0);
    for (let i = step; i < text.length + step; i += step) scanner.scan(text.slice(0, i));
    assert.equal(scanner.status, 'complete');
    assert.equal(scanner.end, text.indexOf(' after'));
    assert.deepEqual(
      scanner.members.map((m) => [m.key, text.slice(m.start, m.end)]),
      [
        ['name', '"get_weather"'],
        ['arguments', '{"city": "Par\\"is", "n": [1, 2]}'],
      ],
    );
  }
});

test('readJsonObject gives the name once its string closes and how far the arguments extend', () => {
  const cut = '{"name": "get_weather", "arguments": {"city": "Par';
  assert.deepEqual(readJsonObject(cut), {
    status: 'partial',
    members: [
      { key: 'name', start: 9, end: 22, text: '"get_weather"' },
      { key: 'arguments', start: 37, end: -1, text: '{"city": "Par' },
    ],
  });
  const open = readJsonObject('{"name": "get_wea');
  assert.deepEqual(open?.members, [{ key: 'name', start: 9, end: -1, text: '"get_wea' }]);
  assert.equal(readJsonObject('[1]'), undefined);
  assert.equal(readJsonObject('{"a": x}')?.status, 'invalid');
});

test('keys are decoded, escapes and unicode escapes included; nested keys are not members', () => {
  const r = readJsonObject('{"a\\"b": 1, "\\u006e\\u0061me": {"inner": 2}, "n" : -0.5 }');
  assert.deepEqual(
    r?.members.map((m) => [m.key, m.text]),
    [
      ['a"b', '1'],
      ['name', '{"inner": 2}'],
      ['n', '-0.5'],
    ],
  );
  assert.equal(r?.status, 'complete');
});

test('a number member still being read ends at the read position', () => {
  const r = readJsonObject('{"n": 12');
  assert.deepEqual(r?.members, [{ key: 'n', start: 6, end: -1, text: '12' }]);
});

test('on random short texts, "complete with only whitespace after" agrees with JSON.parse', () => {
  const alphabet = '{}[]":,0123-.eE+ tfrulnas\\';
  let seed = 12345;
  const random = (n: number): number => {
    // A small LCG: the same texts every run.
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const samples = ['{"a":[1,2]}', '[true,null]', '"s"', '-0.5e+2', '{"":{}}'];
  for (let k = 0; k < 60000; k++) {
    let text: string;
    if (k % 2 === 0) {
      const len = 1 + random(10);
      text = '';
      for (let j = 0; j < len; j++) text += alphabet[random(alphabet.length)];
    } else {
      // Mutate a valid sample: most mutations are near-misses, the hard cases.
      const base = samples[random(samples.length)] ?? '';
      const at = random(base.length + 1);
      text =
        base.slice(0, at) + (alphabet[random(alphabet.length)] ?? '') + base.slice(at + random(2));
    }
    let parses = true;
    try {
      JSON.parse(text);
    } catch {
      parses = false;
    }
    const r = scanJsonValue(text + ' ');
    const scanned = r.complete && text.slice(r.end).trim() === '';
    assert.equal(scanned, parses, JSON.stringify(text));
  }
});

test('scanning only the new text each time, keys split across segments included', () => {
  const text = '{"na\\u006De": "get_weather", "argu\\"ments": {"city": "Paris"}, "n": 12}';
  for (let step = 1; step <= 6; step++) {
    const scanner = new JsonScanner(0);
    for (let from = 0; from < text.length; from += step) {
      scanner.scan(text.slice(scanner.pos, from + step), scanner.pos);
    }
    assert.equal(scanner.status, 'complete');
    assert.deepEqual(
      scanner.members.map((m) => [m.key, text.slice(m.start, m.end)]),
      [
        ['name', '"get_weather"'],
        ['argu"ments', '{"city": "Paris"}'],
        ['n', '12'],
      ],
    );
  }
});
