// Typed validation per endpoint: the shapes real clients send pass untouched; wrong types and
// values past the request limits are 400 invalid_body naming the field or the limit.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import type { Endpoint } from '../../../src/routing/endpoint.js';
import { validateBody } from '../../../src/routing/validate-body.js';
import { MAX_BATCH_ITEMS, MAX_N, MAX_SEQUENCES } from '../../../src/routing/request-limits.js';

const messages = [{ role: 'user', content: 'hi' }];
const many = (count: number): string[] => new Array<string>(count).fill('p');

function refused(endpoint: Endpoint, body: Record<string, unknown>, pattern: RegExp): void {
  assert.throws(
    () => validateBody(endpoint, body),
    (err: unknown) => {
      assert.ok(err instanceof GatewayError, `expected a GatewayError, got ${String(err)}`);
      assert.equal(err.code, 'invalid_body');
      assert.equal(err.status, 400);
      assert.match(err.message, pattern);
      return true;
    },
  );
}

void describe('accepted shapes', () => {
  const accepted: [Endpoint, Record<string, unknown>][] = [
    [
      'chat',
      {
        model: 'm',
        messages,
        n: MAX_N,
        max_tokens: 1,
        max_completion_tokens: 5,
        stream: true,
        unknown_field: { deep: [1] },
      },
    ],
    [
      'chat',
      { messages: [{ role: 'tool', content: null }], n: null, max_tokens: null, stream: null },
    ],
    ['completion', { prompt: 'x', max_tokens: 0 }],
    ['completion', { prompt: many(MAX_BATCH_ITEMS) }],
    ['completion', { prompt: [1, 2, 3], n: MAX_N }],
    ['completion', { prompt: [[1, 2], [3]] }],
    ['completion', { prompt: many(MAX_SEQUENCES / MAX_N), n: MAX_N }],
    ['completion', { prompt_embeds: 'base64' }],
    ['generate', { text: 'x', sampling_params: { n: 2, max_new_tokens: 0 } }],
    ['generate', { text: many(MAX_BATCH_ITEMS) }],
    ['generate', { input_ids: [1, 2] }],
    ['generate', { input_ids: [[1], [2]] }],
    ['generate', { input_embeds: [[0.1]] }],
    ['embeddings', { input: ['a', 'b'] }],
    ['responses', { model: 'm', input: 'x', stream: false }],
  ];
  for (const [endpoint, body] of accepted) {
    it(`${endpoint} ${JSON.stringify(body).slice(0, 80)}`, () => {
      const before = JSON.stringify(body);
      validateBody(endpoint, body);
      assert.equal(JSON.stringify(body), before, 'validation never changes the body');
    });
  }
});

void describe('refused', () => {
  const cases: [string, Endpoint, Record<string, unknown>, RegExp][] = [
    ['non-string model', 'chat', { model: 7, messages }, /'model'/],
    ['non-boolean stream', 'completion', { prompt: 'x', stream: 'yes' }, /'stream'/],
    ['messages not a list', 'chat', { messages: 'hi' }, /'messages'/],
    ['messages empty', 'chat', { messages: [] }, /'messages'/],
    [
      'a message without a string role',
      'chat',
      { messages: [{ role: 1, content: 'x' }] },
      /'role'/,
    ],
    ['a message that is not an object', 'chat', { messages: ['hi'] }, /'role'/],
    ['n a string', 'chat', { messages, n: '2' }, /'n'/],
    ['n 1e20', 'chat', { messages, n: 1e20 }, new RegExp(`'n'.*${MAX_N}`)],
    ['n 0', 'chat', { messages, n: 0 }, /'n'/],
    ['n fractional', 'completion', { prompt: 'x', n: 1.5 }, /'n'/],
    ['chat max_tokens 0', 'chat', { messages, max_tokens: 0 }, /'max_tokens'/],
    ['max_tokens a string', 'completion', { prompt: 'x', max_tokens: '5' }, /'max_tokens'/],
    [
      'max_completion_tokens negative',
      'chat',
      { messages, max_completion_tokens: -1 },
      /'max_completion_tokens'/,
    ],
    ['prompt an object', 'completion', { prompt: { a: 1 } }, /'prompt'/],
    ['prompt empty', 'completion', { prompt: [] }, /'prompt'/],
    ['prompt mixed', 'completion', { prompt: ['a', 1] }, /'prompt'/],
    [
      'prompt batch over the limit',
      'completion',
      { prompt: many(MAX_BATCH_ITEMS + 1) },
      new RegExp(`${MAX_BATCH_ITEMS}`),
    ],
    [
      'prompts × n over the limit',
      'completion',
      { prompt: many(MAX_BATCH_ITEMS), n: MAX_N },
      new RegExp(`${MAX_SEQUENCES}`),
    ],
    ['generate text empty list', 'generate', { text: [] }, /'text'/],
    ['generate text a number', 'generate', { text: 5 }, /'text'/],
    [
      'generate text batch over the limit',
      'generate',
      { text: many(100_000) },
      new RegExp(`${MAX_BATCH_ITEMS}`),
    ],
    ['generate both text and input_ids', 'generate', { text: 'x', input_ids: [1] }, /not both/],
    ['generate input_ids of strings', 'generate', { input_ids: ['a'] }, /'input_ids'/],
    ['generate input_ids empty', 'generate', { input_ids: [] }, /'input_ids'/],
    [
      'generate sampling_params not an object',
      'generate',
      { text: 'x', sampling_params: [] },
      /'sampling_params'/,
    ],
    [
      'generate sampling_params.n too big',
      'generate',
      { text: 'x', sampling_params: { n: 1e20 } },
      /'sampling_params\.n'/,
    ],
    [
      'generate items × n over the limit',
      'generate',
      { text: many(MAX_BATCH_ITEMS), sampling_params: { n: 8 } },
      new RegExp(`${MAX_SEQUENCES}`),
    ],
  ];
  for (const [name, endpoint, body, pattern] of cases)
    it(name, () => refused(endpoint, body, pattern));
});
