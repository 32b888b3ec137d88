import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mergePlan, splitPlan } from '../../../src/pd/paced.js';

test('plans split into chunks of the window, per route', () => {
  assert.deepEqual(splitPlan('generate', { text: ['a', 'b', 'c'], x: 1 }, 2), [
    { text: ['a', 'b'], x: 1 },
    { text: ['c'], x: 1 },
  ]);
  assert.deepEqual(
    splitPlan('completion', { prompt: ['a', 'b', 'c', 'd'] }, 3)?.map((b) => b.prompt),
    [['a', 'b', 'c'], ['d']],
  );
  assert.deepEqual(
    splitPlan('chat', { n: 5 }, 2)?.map((b) => b.n),
    [2, 2, 1],
  );
  assert.equal(splitPlan('generate', { text: 'single' }, 2), undefined);
});

test('answers merge into one response: arrays concatenated, choices re-indexed, usage summed', () => {
  assert.deepEqual(mergePlan('generate', [[{ t: 1 }, { t: 2 }], [{ t: 3 }]]), [
    { t: 1 },
    { t: 2 },
    { t: 3 },
  ]);
  const merged = mergePlan('completion', [
    {
      id: 'a',
      choices: [
        { index: 0, text: 'x' },
        { index: 1, text: 'y' },
      ],
      usage: { prompt_tokens: 4, completion_tokens: 2, total_tokens: 6 },
    },
    {
      id: 'b',
      choices: [{ index: 0, text: 'z' }],
      usage: { prompt_tokens: 2, completion_tokens: 1, total_tokens: 3 },
    },
  ]) as { id: string; choices: { index: number; text: string }[]; usage: Record<string, number> };
  assert.equal(merged.id, 'a');
  assert.deepEqual(
    merged.choices.map((c) => [c.index, c.text]),
    [
      [0, 'x'],
      [1, 'y'],
      [2, 'z'],
    ],
  );
  assert.deepEqual(merged.usage, { prompt_tokens: 6, completion_tokens: 3, total_tokens: 9 });
  const chat = mergePlan('chat', [
    { choices: [{ index: 0 }], usage: { prompt_tokens: 5, completion_tokens: 2 } },
    { choices: [{ index: 0 }], usage: { prompt_tokens: 5, completion_tokens: 2 } },
  ]) as { usage: Record<string, number> };
  assert.deepEqual(
    chat.usage,
    { prompt_tokens: 5, completion_tokens: 4, total_tokens: 9 },
    'chat samples share one prompt',
  );
});
