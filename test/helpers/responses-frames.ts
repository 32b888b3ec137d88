/**
 * For tests of the Responses framer: a sample's text played through `ResponsesFramer` in chunks
 * of any size (token ids are character codes, so every cut is reachable), the same text as a
 * whole body, the stream's events parsed back, and responses with their fresh ids and times
 * normalised so two runs compare equal.
 */
import assert from 'node:assert/strict';
import { ChatOutput, parseChatAnswer, type ChatParsing } from '../../src/grpc/chat-output.js';
import { ChoiceState } from '../../src/grpc/choice.js';
import { ResponsesFramer } from '../../src/grpc/responses/responses-framer.js';
import { responseBody, type ResponseHead } from '../../src/grpc/responses/responses-shapes.js';
import { chatToolsOf } from '../../src/grpc/tools.js';
import { reasoningParserNamed, toolParserNamed } from '../../src/parsers/catalog.js';
import type { StopDecoder } from '../../src/tokenizer/types.js';

export const HEAD: ResponseHead = {
  id: 'resp_test',
  createdAt: 1_700_000_000,
  model: 'm',
  echo: { instructions: null, tools: [], tool_choice: 'auto', store: true, metadata: {} },
};

/** The prompt's token count the framer is given, and the counts the engine reports. */
export const INPUT_TOKENS = 9;
const counts = { promptTokens: 9, cachedTokens: 3, reasoningTokens: 0 };

/** Token ids are character codes: each id decodes to its character. */
const charDecoder = (): StopDecoder => ({
  push: (id) => ({ kind: 'text', text: String.fromCharCode(id) }),
  flush: () => '',
  stopped: false,
});

/**
 * Qwen3's reasoning parser and a tool parser (Qwen's unless named), with one function tool.
 * DeepSeek's tool parser passes the whitespace before a call on as content; Qwen's drops it.
 */
export function parsing(toolParser = 'qwen'): ChatParsing {
  const info = chatToolsOf({
    tools: [
      { type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } },
    ],
  });
  const reasoning = reasoningParserNamed('qwen3');
  const tool = toolParserNamed(toolParser);
  assert.ok(info && reasoning && tool);
  return {
    reasoning: { parser: reasoning, start: { inReasoning: false } },
    tools: { info, parser: tool },
    model: 'm',
  };
}

export interface PlayOptions {
  /** The engine's finish reason (default `stop`). */
  finishReason?: string;
  /** False: a model with no parsers (the text is the message). */
  parsed?: boolean;
  /** The tool parser's name (default `qwen`). */
  toolParser?: string;
  finish?: (response: Record<string, unknown>) => Promise<void>;
}

/** A framer and a sample state as the gRPC pipeline makes them for one streamed answer. */
export function framerAndChoice(o: PlayOptions = {}): { framer: ResponsesFramer; c: ChoiceState } {
  const framer = new ResponsesFramer(HEAD, INPUT_TOKENS, o.finish ?? (() => Promise.resolve()));
  const c = new ChoiceState(0, charDecoder(), false);
  if (o.parsed !== false) c.output = new ChatOutput(parsing(o.toolParser));
  return { framer, c };
}

/** The frames `text` adds in chunks of `size`, before the stream's closing frames. */
export function playChunks(framer: ResponsesFramer, c: ChoiceState, text: string, size: number) {
  const ids = [...text].map((ch) => ch.charCodeAt(0));
  let frames = '';
  for (let i = 0; i < ids.length; i += size) {
    const tokenIds = ids.slice(i, i + size);
    frames += framer.frames(
      { kind: 'chunk', index: 0, tokenIds, completionTokens: i + tokenIds.length, ...counts },
      c,
    );
  }
  return frames;
}

/** The whole stream of `text` in chunks of `size`: chunks, the engine's complete, the closing. */
export async function play(text: string, size: number, o: PlayOptions = {}): Promise<string> {
  const { framer, c } = framerAndChoice(o);
  let frames = playChunks(framer, c, text, size);
  frames += framer.frames(
    {
      kind: 'complete',
      index: 0,
      outputIds: [],
      finishReason: o.finishReason ?? 'stop',
      completionTokens: text.length,
      ...counts,
    },
    c,
  );
  return frames + (await framer.closing([c]));
}

/** The non-streamed response of the same answer. */
export function whole(text: string, o: PlayOptions = {}): Record<string, unknown> {
  const c = new ChoiceState(0, charDecoder(), false);
  c.onComplete(
    {
      kind: 'complete',
      index: 0,
      outputIds: [...text].map((ch) => ch.charCodeAt(0)),
      finishReason: o.finishReason ?? 'stop',
      completionTokens: text.length,
      ...counts,
    },
    false,
  );
  if (o.parsed !== false) c.parsed = parseChatAnswer(c.text, parsing(o.toolParser));
  return responseBody(HEAD, c, INPUT_TOKENS);
}

export interface Event {
  type: string;
  sequence_number: number;
  [key: string]: unknown;
}

/** The events of a stream, each checked to be framed `event: <type>` + its data; `[DONE]` last. */
export function parseEvents(frames: string): Event[] {
  assert.ok(frames.endsWith('data: [DONE]\n\n'), 'the stream ends with [DONE]');
  return frames
    .slice(0, -'data: [DONE]\n\n'.length)
    .trimEnd()
    .split('\n\n')
    .map((f) => {
      const m = /^event: ([\w.]+)\ndata: (.*)$/.exec(f);
      assert.ok(m, `framed as OpenAI does: ${f}`);
      const e = JSON.parse(m[2] ?? '') as Event;
      assert.equal(e.type, m[1]);
      return e;
    });
}

/**
 * A response with what is fresh per run replaced: item ids (checked for their prefix), call ids
 * (checked to be the parser's `call_…`) and `completed_at` (checked to be a time).
 */
export function normalised(response: Record<string, unknown>): Record<string, unknown> {
  const prefix: Record<string, string> = {
    message: 'msg_',
    reasoning: 'rs_',
    function_call: 'fc_',
  };
  const output = (response.output as Record<string, unknown>[]).map((item) => {
    const type = item.type as string;
    assert.ok((item.id as string).startsWith(prefix[type] ?? '?'), `${type} id ${String(item.id)}`);
    const out: Record<string, unknown> = { ...item, id: type };
    if (type === 'function_call') {
      assert.match(item.call_id as string, /^call_[0-9a-f]{24}$/);
      out.call_id = 'call';
    }
    return out;
  });
  const completedAt = response.completed_at;
  if (response.status === 'completed') assert.equal(typeof completedAt, 'number');
  else assert.equal(completedAt, null);
  return { ...response, output, completed_at: completedAt === null ? null : 'time' };
}
