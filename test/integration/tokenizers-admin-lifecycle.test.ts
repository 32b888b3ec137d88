// The tokenizer admin routes end to end, with SMG's bodies and statuses: POST answers 202
// pending and the load runs in the background; polling the status reaches completed; the
// tokenizer is then listed, readable by id or name, and serves /v1/tokenize; a second POST of
// the name is a 409; DELETE by id or name removes it (404 after). Failed jobs (a hub id, a
// directory without tokenizer.json, an empty name, a missing chat template) report why.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Gateway } from '../../src/server/gateway.js';
import { assertAllReleased, startTestGateway } from '../helpers/gateway.js';
import { QWEN3_DIR } from '../helpers/grpc.js';
import { postJson } from '../helpers/http.js';
import {
  listTokenizers,
  pollStatus,
  referenceTokenizer,
  type JobAnswer,
} from '../helpers/tokenizers.js';

let gateway: Gateway;
let baseVocab: number;

before(async () => {
  baseVocab = referenceTokenizer().get_vocab(false).size;
  gateway = await startTestGateway([]);
});

after(async () => {
  await assertAllReleased(gateway);
  await gateway.close();
});

const url = (path: string): string => `${gateway.url}${path}`;
const byKey = (key: string): string => url(`/v1/tokenizers/${encodeURIComponent(key)}`);

async function submit(body: Record<string, unknown>): Promise<JobAnswer> {
  const res = await postJson(url('/v1/tokenizers'), body);
  const text = await res.text();
  assert.equal(res.status, 202, text);
  return JSON.parse(text) as JobAnswer;
}

async function json(res: Response, status: number): Promise<unknown> {
  const text = await res.text();
  assert.equal(res.status, status, text);
  return JSON.parse(text);
}

test('POST, poll to completed, list, read, use, 409, delete by name', async () => {
  const job = await submit({ name: 'qwen', source: QWEN3_DIR });
  assert.deepEqual(job, {
    id: job.id,
    status: 'pending',
    message: `Tokenizer 'qwen' registration job submitted. Loading from: ${QWEN3_DIR}`,
  });
  // The load takes most of a second: the job is still waiting or loading right after the 202.
  const early = (await json(await fetch(`${byKey(job.id)}/status`), 200)) as JobAnswer;
  assert.ok(['pending', 'processing'].includes(early.status), early.status);
  assert.deepEqual(early, {
    id: job.id,
    status: early.status,
    message: `Tokenizer job is ${early.status}`,
  });

  const done = await pollStatus(gateway, job.id);
  assert.deepEqual(done, {
    id: job.id,
    status: 'completed',
    message: "Tokenizer 'qwen' is loaded and ready",
    vocab_size: baseVocab,
  });
  const info = { id: job.id, name: 'qwen', source: QWEN3_DIR, vocab_size: baseVocab };
  assert.deepEqual(await listTokenizers(gateway), [info]);
  assert.deepEqual(await json(await fetch(byKey(job.id)), 200), info);
  assert.deepEqual(await json(await fetch(byKey('qwen')), 200), info);
  assert.equal(
    ((await json(await fetch(`${byKey('qwen')}/status`), 200)) as JobAnswer).status,
    'completed',
  );

  const tokens = await postJson(url('/v1/tokenize'), { model: 'qwen', prompt: 'hello there' });
  assert.deepEqual(((await json(tokens, 200)) as { tokens: number[] }).tokens, [
    ...referenceTokenizer().encode('hello there', { add_special_tokens: false }).ids,
  ]);

  const again = await postJson(url('/v1/tokenizers'), { name: 'qwen', source: '/elsewhere' });
  assert.deepEqual(await json(again, 409), {
    id: job.id,
    status: 'failed',
    message: "Tokenizer 'qwen' already exists",
  });

  const removed = await fetch(byKey('qwen'), { method: 'DELETE' });
  assert.deepEqual(await json(removed, 200), {
    success: true,
    message: "Tokenizer 'qwen' removed successfully",
  });
  assert.deepEqual(await listTokenizers(gateway), []);
  assert.deepEqual(await json(await fetch(byKey(job.id)), 404), {
    error: { message: `Tokenizer '${job.id}' not found`, type: 'tokenizer_not_found' },
  });
  const status = await fetch(`${byKey(job.id)}/status`);
  assert.equal(status.headers.get('x-smg-error-code'), 'not_found');
  assert.deepEqual(await json(status, 404), {
    error: { message: `Tokenizer '${job.id}' not found and no pending job`, type: 'not_found' },
  });
  assert.deepEqual(await json(await fetch(byKey('qwen'), { method: 'DELETE' }), 404), {
    success: false,
    message: "Tokenizer 'qwen' not found",
  });
  const gone = await postJson(url('/v1/tokenize'), { model: 'qwen', prompt: 'x' });
  assert.equal(gone.status, 400);
  await gone.arrayBuffer();
});

test('DELETE by id; the name can then be added again, under a new id', async () => {
  const first = await submit({ name: 'again', source: QWEN3_DIR });
  assert.equal((await pollStatus(gateway, first.id)).status, 'completed');
  await json(await fetch(byKey(first.id), { method: 'DELETE' }), 200);
  const second = await submit({ name: 'again', source: join(QWEN3_DIR, 'tokenizer.json') });
  assert.notEqual(second.id, first.id);
  assert.equal((await pollStatus(gateway, second.id)).status, 'completed');
  const [entry] = await listTokenizers(gateway);
  assert.equal(entry?.id, second.id);
  assert.equal(entry.source, join(QWEN3_DIR, 'tokenizer.json'), 'the source as given');
  await json(await fetch(byKey('again'), { method: 'DELETE' }), 200);
});

test('failed jobs keep their reason; nothing is listed for them', async () => {
  const empty = mkdtempSync(join(tmpdir(), 'no-tokenizer-'));
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ name: 'hub', source: 'Qwen/Qwen3-0.6B' }, /not a local path.*Hugging Face hub/],
    [{ name: 'empty-dir', source: empty }, /no tokenizer\.json in/],
    [{ name: '', source: QWEN3_DIR }, /^tokenizer name cannot be empty$/],
    [{ name: 'no-source', source: '' }, /^tokenizer source cannot be empty$/],
    [
      { name: 'bad-template', source: QWEN3_DIR, chat_template_path: join(empty, 'nope.jinja') },
      /nope\.jinja/,
    ],
  ];
  for (const [body, reason] of cases) {
    const job = await submit(body);
    const end = await pollStatus(gateway, job.id);
    assert.equal(end.status, 'failed', JSON.stringify(body));
    assert.equal(end.id, job.id);
    assert.match(end.message, reason);
    assert.equal((await fetch(byKey(job.id))).status, 404, 'no entry for a failed job');
  }
  assert.deepEqual(await listTokenizers(gateway), []);
});

test('unknown ids are 404; HEAD reads like GET', async () => {
  const status = await fetch(`${byKey('no-such-id')}/status`);
  assert.equal(status.status, 404);
  assert.equal(((await status.json()) as { error: { type: string } }).error.type, 'not_found');
  const head = await fetch(url('/v1/tokenizers'), { method: 'HEAD' });
  assert.equal(head.status, 200);
  assert.equal(await head.text(), '');
});
