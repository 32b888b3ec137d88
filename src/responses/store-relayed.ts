/**
 * HTTP mode: a worker's Responses answer passes through as it is, and is also stored, so
 * `GET /v1/responses/{id}`, `previous_response_id` and conversations work in every mode (SMG's
 * HTTP router stores nothing). The response is stored before the client is told it is complete:
 * a whole body is read and stored first (a store outage is then a 503 instead of it), and in a
 * stream the `response.completed` event waits until the store has it (an outage turns it into
 * `response.failed` with `history_store_unavailable`). Every other event passes at once.
 */
import { GatewayError } from '../errors/gateway-error.js';
import { bufferAnswer, releaseLeases, type Answer } from '../routing/answer.js';
import { PushBody, readAll, type BodySource } from '../upstream/body-source.js';
import { isJsonObject, type JsonObject } from '../util/json.js';
import type { ResponsesTurn } from './responses-turn.js';

/** The largest whole Responses body read to store it (the relay's own buffering limit). */
const WHOLE_BODY_LIMIT = 16 * 1024 * 1024;
const COMPLETED = 'response.completed';

function parseObject(text: string): JsonObject | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return isJsonObject(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** The JSON of an SSE block's `data:` lines, when the block is a `response.completed` event. */
function completedEvent(block: string): JsonObject | undefined {
  if (!block.includes(COMPLETED)) return undefined;
  const data = block
    .split('\n')
    .filter((l) => l.startsWith('data:'))
    .map((l) => l.slice(l.startsWith('data: ') ? 6 : 5))
    .join('\n');
  const event = parseObject(data);
  return event?.type === COMPLETED && isJsonObject(event.response) ? event : undefined;
}

function failedBlock(event: JsonObject, err: unknown): string {
  const error = err instanceof GatewayError ? err : undefined;
  const response = {
    ...(event.response as JsonObject),
    status: 'failed',
    error: { code: error?.code ?? 'server_error', message: String((err as Error).message) },
  };
  const failed = { type: 'response.failed', sequence_number: event.sequence_number, response };
  return `event: response.failed\ndata: ${JSON.stringify(failed)}\n\n`;
}

/** Relays SSE bytes, holding back the `response.completed` event until it is stored. */
class StoringEventBody extends PushBody {
  #pending = '';
  #paused = false;
  #storing = false;

  constructor(
    private readonly source: BodySource,
    private readonly turn: ResponsesTurn,
  ) {
    super();
    source.attach({
      onData: (chunk) => this.#onData(chunk),
      onEnd: () => this.#onEnd(),
      onError: (err) => this.fail(err),
    });
  }

  protected resumeProducer(): void {
    this.#paused = false;
    if (!this.#storing) this.source.resume();
  }

  protected cancelProducer(reason: Error): void {
    this.source.cancel(reason);
  }

  #onData(chunk: Buffer): boolean {
    this.#pending += chunk.toString('utf8');
    return this.#drain();
  }

  /** Pushes every whole block up to a completed event, which is stored before it goes. */
  #drain(): boolean {
    let cut = 0;
    for (;;) {
      const end = this.#pending.indexOf('\n\n', cut);
      if (end === -1) break;
      const block = this.#pending.slice(cut, end + 2);
      const event = completedEvent(block);
      if (event !== undefined) {
        this.#flushText(this.#pending.slice(0, cut));
        this.#pending = this.#pending.slice(end + 2);
        this.#store(block, event);
        return false;
      }
      cut = end + 2;
    }
    const ok = this.#flushText(this.#pending.slice(0, cut));
    this.#pending = this.#pending.slice(cut);
    return ok;
  }

  #flushText(text: string): boolean {
    if (text === '') return !this.#paused;
    const ok = this.push(Buffer.from(text));
    if (!ok) this.#paused = true;
    return ok;
  }

  #store(block: string, event: JsonObject): void {
    this.#storing = true;
    this.turn.finish(event.response as JsonObject).then(
      () => this.#stored(block),
      (err: unknown) => this.#stored(failedBlock(event, err)),
    );
  }

  #stored(block: string): void {
    this.#storing = false;
    this.#flushText(block);
    if (this.#drain() && !this.#paused) this.source.resume();
    if (this.#ended && !this.#storing) this.#finish();
  }

  #ended = false;

  #onEnd(): void {
    this.#ended = true;
    if (!this.#storing) this.#finish();
  }

  #finish(): void {
    this.#flushText(this.#pending);
    this.#pending = '';
    this.end();
  }
}

/**
 * The worker's answer with storing added; a non-streamed body is read first and stored, and a
 * store outage is then a 503 (the leases are released and the answer is not sent).
 */
export async function storeRelayedAnswer(answer: Answer, turn: ResponsesTurn): Promise<Answer> {
  if (answer.status !== 200 || !turn.store) return answer;
  if (answer.eventStream) return { ...answer, body: new StoringEventBody(answer.body, turn) };
  let bytes: Buffer;
  try {
    bytes = await readAll(answer.body, WHOLE_BODY_LIMIT);
  } catch (err) {
    releaseLeases(answer, 'upstream_failed', err);
    throw answer.midStreamError(err);
  }
  const response = parseObject(bytes.toString('utf8'));
  try {
    if (response?.object === 'response') await turn.finish(response);
  } catch (err) {
    // The worker answered; only the gateway's store failed.
    releaseLeases(answer, 'complete');
    throw err;
  }
  const { 'content-length': _length, ...headers } = answer.headers;
  return bufferAnswer(answer.status, headers, bytes, {
    routedTo: answer.routedTo,
    midStreamError: answer.midStreamError,
    leases: answer.leases,
  });
}
