/**
 * Reading a simulated worker's Responses API answers back as a client would: the response object
 * of a JSON body, or of a stream rebuilt from its events (items from `output_item.added`, text from
 * the deltas, arguments from their deltas), checked on the way against the framing rules — every
 * event named by its `type`, `sequence_number` counting from 0, each `.done` agreeing with what its
 * deltas added up to — and against the `response.completed` event that ends the stream.
 */
import assert from 'node:assert/strict';
import { parseSseEvents } from '../../src/testing.js';

type Json = Record<string, unknown>;

/** The parts of an output item tests look at. */
export interface Item {
  type: string;
  id: string;
  status: string;
  /** message: the text of its one output_text part. */
  text?: string;
  /** function_call */
  call_id?: string;
  name?: string;
  arguments?: string;
}

export interface ResponseObject {
  id: string;
  object: string;
  created_at: number;
  status: string;
  incomplete_details: { reason: string } | null;
  model: string;
  output: Json[];
  usage: {
    input_tokens: number;
    input_tokens_details: { cached_tokens: number };
    output_tokens: number;
    output_tokens_details: { reasoning_tokens: number };
    total_tokens: number;
  } | null;
  [key: string]: unknown;
}

export interface Streamed {
  /** Event names in order. */
  names: string[];
  /** The response of `response.completed`. */
  completed: ResponseObject;
  /** The items as the events built them. */
  items: Item[];
}

/** An output item of a response object, flattened to `Item`. */
export function item(j: Json): Item {
  const out: Item = {
    type: j['type'] as string,
    id: j['id'] as string,
    status: j['status'] as string,
  };
  if (out.type === 'message') {
    const parts = j['content'] as Json[];
    assert.equal(parts.length, 1, 'a message has one output_text part');
    assert.deepEqual(Object.keys(parts[0] ?? {}), ['type', 'text', 'annotations', 'logprobs']);
    out.text = parts[0]?.['text'] as string;
  } else {
    out.call_id = j['call_id'] as string;
    out.name = j['name'] as string;
    out.arguments = j['arguments'] as string;
  }
  return out;
}

/** Rebuilds a stream; throws on a framing rule broken. */
export function streamedResponse(body: string): Streamed {
  assert.ok(!body.includes('[DONE]'), 'a Responses stream sends no [DONE]');
  const events = parseSseEvents(body);
  const names = events.map((e) => e.event);
  const items: Item[] = [];
  let completed: ResponseObject | undefined;
  events.forEach((e, seq) => {
    const d = JSON.parse(e.data) as Json;
    assert.equal(d['type'], e.event, 'the event is named by its type');
    assert.equal(d['sequence_number'], seq, `${e.event} numbered in order`);
    const at = d['output_index'] as number;
    const open = items[at];
    switch (e.event) {
      case 'response.output_item.added': {
        assert.equal(at, items.length, 'items are added in order');
        const added = item({ ...(d['item'] as Json), content: [textPart('')] });
        if (added.type === 'message') assert.deepEqual((d['item'] as Json)['content'], []);
        else assert.equal(added.arguments, '');
        assert.equal(added.status, 'in_progress');
        items.push(added);
        break;
      }
      case 'response.content_part.added':
      case 'response.content_part.done':
        assert.equal(d['item_id'], open?.id);
        break;
      case 'response.output_text.delta':
        assert.equal(d['item_id'], open?.id);
        if (open !== undefined) open.text = (open.text ?? '') + (d['delta'] as string);
        break;
      case 'response.output_text.done':
        assert.equal(d['text'], open?.text, 'the deltas add up to the done text');
        break;
      case 'response.function_call_arguments.delta':
        assert.equal(d['item_id'], open?.id);
        if (open !== undefined) open.arguments = (open.arguments ?? '') + (d['delta'] as string);
        break;
      case 'response.function_call_arguments.done':
        assert.equal(d['arguments'], open?.arguments, 'the deltas add up to the arguments');
        assert.equal(d['name'], open?.name);
        break;
      case 'response.output_item.done':
        assert.deepEqual(item(d['item'] as Json), { ...open, status: 'completed' });
        if (open !== undefined) open.status = 'completed';
        break;
      case 'response.completed':
        completed = d['response'] as ResponseObject;
        break;
      default:
        break;
    }
  });
  assert.ok(completed, 'the stream ends with response.completed');
  assert.equal(names.at(-1), 'response.completed');
  assert.deepEqual(
    completed.output.map(item),
    items,
    'response.completed holds the streamed items',
  );
  return { names, completed, items };
}

function textPart(text: string): Json {
  return { type: 'output_text', text, annotations: [], logprobs: [] };
}

/** POSTs a body to a worker's /v1/responses and returns the status and text. */
export async function postResponses(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; type: string | null; text: string }> {
  const res = await fetch(`${url}/v1/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

/** A whole response, asserted 200 JSON. */
export async function wholeResponse(url: string, body: Json): Promise<ResponseObject> {
  const r = await postResponses(url, body);
  assert.equal(r.status, 200, r.text);
  assert.equal(r.type, 'application/json');
  return JSON.parse(r.text) as ResponseObject;
}
