// Reading a simulated worker's answers back as a client would: a chat or completions choice from a
// JSON body or rebuilt from its SSE chunks (content, tool calls assembled from their deltas, the
// finish reason), and an Anthropic message from its body or rebuilt from its named events. The
// tests compare the two forms, so both come out in one shape.
import assert from 'node:assert/strict';
import { parseSseData, parseSseEvents } from '../../src/testing.js';

type Json = Record<string, unknown>;

export interface ToolCall {
  id: string;
  type: string;
  name: string;
  arguments: string;
}

export interface OpenAiChoice {
  content: string | null;
  toolCalls: ToolCall[] | undefined;
  finish: string;
  /** Streams: the chunks this choice had, role chunk and finish chunk included. */
  chunks: number;
}

/** POSTs a JSON body to a worker and returns the status and text. */
export async function post(url: string, body: unknown): Promise<{ status: number; text: string }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}

/** The choices of a whole chat or completions body. */
export function wholeChoices(text: string): OpenAiChoice[] {
  const body = JSON.parse(text) as { choices: Json[] };
  return body.choices.map((c) => {
    const m = c['message'] as Json | undefined;
    const calls = m?.['tool_calls'] as Json[] | undefined;
    return {
      content: m === undefined ? (c['text'] as string) : (m['content'] as string | null),
      toolCalls: calls?.map((call) => {
        const fn = call['function'] as Json;
        return {
          id: call['id'] as string,
          type: call['type'] as string,
          name: fn['name'] as string,
          arguments: fn['arguments'] as string,
        };
      }),
      finish: c['finish_reason'] as string,
      chunks: 0,
    };
  });
}

/**
 * The choices a stream adds up to. Asserts the delta rules on the way: a call's first delta has
 * its id, type and name, and later ones only argument text.
 */
export function streamedChoices(text: string): OpenAiChoice[] {
  const data = parseSseData(text);
  assert.equal(data.at(-1), '[DONE]');
  const out: OpenAiChoice[] = [];
  for (const d of data.slice(0, -1)) {
    const chunk = JSON.parse(d) as { choices: Json[] };
    for (const c of chunk.choices) {
      const index = c['index'] as number;
      const o = (out[index] ??= { content: null, toolCalls: undefined, finish: '', chunks: 0 });
      o.chunks++;
      const delta = (c['delta'] as Json | undefined) ?? { content: c['text'] };
      if (typeof delta['content'] === 'string' && delta['content'] !== '') {
        o.content = (o.content ?? '') + delta['content'];
      }
      for (const t of (delta['tool_calls'] as Json[] | undefined) ?? []) addCallDelta(o, t);
      if (typeof c['finish_reason'] === 'string') o.finish = c['finish_reason'];
    }
  }
  return out;
}

function addCallDelta(o: OpenAiChoice, t: Json): void {
  const calls = (o.toolCalls ??= []);
  const i = t['index'] as number;
  const fn = t['function'] as Json;
  if (t['id'] !== undefined) {
    assert.equal(calls[i], undefined, 'one first delta per call');
    assert.equal(typeof fn['name'], 'string', 'the name comes in the first delta');
    calls[i] = {
      id: t['id'] as string,
      type: t['type'] as string,
      name: fn['name'] as string,
      arguments: '',
    };
  } else {
    assert.deepEqual(Object.keys(t).sort(), ['function', 'index'], 'later deltas: arguments only');
  }
  const call = calls[i];
  assert.ok(call, 'a call starts with its first delta');
  call.arguments += fn['arguments'] as string;
}

export type Block =
  { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: unknown };

export interface AnthropicMessage {
  content: Block[];
  stop_reason: string;
  usage: { output_tokens: number };
}

/** The message an Anthropic stream adds up to (inputs parsed from their input_json_deltas). */
export function streamedMessage(text: string): AnthropicMessage {
  const content: Block[] = [];
  const json: string[] = [];
  let stop = '';
  let outputTokens = 0;
  for (const e of parseSseEvents(text)) {
    const data = JSON.parse(e.data) as Json;
    const index = data['index'] as number;
    if (e.event === 'content_block_start') {
      assert.equal(index, content.length, 'blocks open in order');
      const block = data['content_block'] as Block;
      content.push(block.type === 'text' ? { ...block } : { ...block, input: {} });
      json[index] = '';
    } else if (e.event === 'content_block_delta') {
      const delta = data['delta'] as Json;
      const block = content[index];
      if (delta['type'] === 'text_delta' && block?.type === 'text')
        block.text += String(delta['text']);
      else if (delta['type'] === 'input_json_delta') {
        json[index] = (json[index] ?? '') + String(delta['partial_json']);
      } else assert.fail(`a ${String(delta['type'])} delta for a ${String(block?.type)} block`);
    } else if (e.event === 'message_delta') {
      stop = (data['delta'] as Json)['stop_reason'] as string;
      outputTokens = (data['usage'] as Json)['output_tokens'] as number;
    }
  }
  content.forEach((b, i) => {
    if (b.type === 'tool_use') b.input = JSON.parse(json[i] ?? '') as unknown;
  });
  return { content, stop_reason: stop, usage: { output_tokens: outputTokens } };
}
