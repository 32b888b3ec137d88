// A relayed Responses stream passes its events through unchanged, except that the
// `response.completed` event waits until the response is stored, and becomes `response.failed`
// when the store cannot take it; a whole body is stored before it is answered, and a store
// outage is then the 503 instead of it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GatewayError } from '../../../src/errors/gateway-error.js';
import type { Answer } from '../../../src/routing/answer.js';
import type { ResponsesTurn } from '../../../src/responses/responses-turn.js';
import { storeRelayedAnswer } from '../../../src/responses/store-relayed.js';
import { BufferBody, PushBody, readAllText } from '../../../src/upstream/body-source.js';

/** A source the test feeds chunk by chunk. */
class FedBody extends PushBody {
  protected resumeProducer(): void {}
  protected cancelProducer(): void {}
  feed(text: string): void {
    this.push(Buffer.from(text));
  }
  close(): void {
    this.end();
  }
}

const event = (type: string, data: Record<string, unknown>): string =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

const RESPONSE = { id: 'resp_1', object: 'response', status: 'completed', output: [] };
const STREAM =
  event('response.created', {
    sequence_number: 0,
    response: { ...RESPONSE, status: 'in_progress' },
  }) +
  event('response.output_text.delta', { sequence_number: 1, delta: 'hi' }) +
  event('response.completed', { sequence_number: 2, response: RESPONSE });

function turnWith(finish: ResponsesTurn['finish']): ResponsesTurn {
  return {
    id: 'resp_x',
    createdAt: 0,
    store: true,
    previousResponseId: undefined,
    conversationId: undefined,
    ownInput: [],
    finish,
  };
}

function answerOf(body: Answer['body'], eventStream: boolean): Answer {
  return {
    status: 200,
    headers: { 'content-type': eventStream ? 'text/event-stream' : 'application/json' },
    body,
    eventStream,
    leases: [],
    midStreamError: (cause) => new GatewayError('upstream_stream_failed', String(cause)),
  };
}

describe('storing a relayed Responses answer', () => {
  for (const size of [1, 5, 17, STREAM.length]) {
    it(`passes the stream through byte for byte, stored before completed (chunks of ${size})`, async () => {
      const stored: unknown[] = [];
      const seenAtStore: string[] = [];
      const source = new FedBody();
      const received: string[] = [];
      const answer = await storeRelayedAnswer(
        answerOf(source, true),
        turnWith(async (response) => {
          seenAtStore.push(received.join(''));
          stored.push(response);
        }),
      );
      const done = new Promise<void>((resolve, reject) =>
        answer.body.attach({
          onData: (chunk) => {
            received.push(chunk.toString());
            return true;
          },
          onEnd: resolve,
          onError: reject,
        }),
      );
      for (let i = 0; i < STREAM.length; i += size) source.feed(STREAM.slice(i, i + size));
      source.close();
      await done;
      assert.equal(received.join(''), STREAM);
      assert.deepEqual(stored, [RESPONSE]);
      assert.ok(!(seenAtStore[0] ?? '').includes('response.completed'), 'held until stored');
    });
  }

  it('a store outage turns completed into failed with the store code', async () => {
    const answer = await storeRelayedAnswer(
      answerOf(new BufferBody(Buffer.from(STREAM)), true),
      turnWith(() => Promise.reject(new GatewayError('history_store_unavailable', 'down'))),
    );
    const text = await readAllText(answer.body);
    assert.ok(!text.includes('response.completed'));
    const last = text.trim().split('\n\n').at(-1) ?? '';
    assert.match(last, /^event: response\.failed\n/);
    const data = JSON.parse(last.split('\n')[1]?.slice(6) ?? '{}') as {
      sequence_number: number;
      response: { status: string; error: { code: string } };
    };
    assert.equal(data.sequence_number, 2);
    assert.equal(data.response.status, 'failed');
    assert.equal(data.response.error.code, 'history_store_unavailable');
  });

  it('a whole body is stored before it is answered; an outage is thrown instead', async () => {
    const bytes = Buffer.from(JSON.stringify(RESPONSE));
    const stored: unknown[] = [];
    const answer = await storeRelayedAnswer(
      answerOf(new BufferBody(bytes), false),
      turnWith(async (r) => {
        stored.push(r);
      }),
    );
    assert.deepEqual(stored, [RESPONSE]);
    assert.equal(await readAllText(answer.body), bytes.toString());
    assert.equal(answer.headers['content-length'], String(bytes.length));
    let released = 0;
    const failing = answerOf(new BufferBody(bytes), false);
    failing.leases.push({ release: () => void released++ });
    await assert.rejects(
      storeRelayedAnswer(
        failing,
        turnWith(() => Promise.reject(new GatewayError('history_store_unavailable', 'down'))),
      ),
      { code: 'history_store_unavailable' },
    );
    assert.equal(released, 1, 'the answer it replaced let go of what it held');
  });
});
