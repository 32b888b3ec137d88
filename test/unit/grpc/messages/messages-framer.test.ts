// The Anthropic stream of a gRPC answer, reassembled as a client would, equals the whole message
// for every way the engine may cut the text into chunks: thinking, text and tool_use blocks open
// one at a time with counting indexes, whitespace between blocks opens no text block, and the
// stop reason and usage close the message.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ChatOutput, parseChatAnswer, type ChatParsing } from '../../../../src/grpc/chat-output.js';
import { ChoiceState } from '../../../../src/grpc/choice.js';
import type { ResponseMeta } from '../../../../src/grpc/formats.js';
import { MessagesFramer } from '../../../../src/grpc/messages/messages-framer.js';
import { messageBody } from '../../../../src/grpc/messages/messages-shapes.js';
import { chatToolsOf } from '../../../../src/grpc/tools.js';
import { reasoningParserNamed, toolParserNamed } from '../../../../src/parsers/catalog.js';
import type { StopDecoder } from '../../../../src/tokenizer/types.js';

/** Token ids are character codes: each id decodes to its character. */
const charDecoder = (): StopDecoder => ({
  push: (id) => ({ kind: 'text', text: String.fromCharCode(id) }),
  flush: () => '',
  stopped: false,
});

const META: ResponseMeta = {
  id: 'msg_test',
  model: 'm',
  created: 0,
  fingerprint: 'default',
  tokenText: (id) => String.fromCharCode(id),
};

function parsing(): ChatParsing {
  const info = chatToolsOf({
    tools: [
      { type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } },
    ],
  });
  const reasoning = reasoningParserNamed('qwen3');
  const tool = toolParserNamed('qwen');
  assert.ok(info && reasoning && tool);
  return {
    reasoning: { parser: reasoning, start: { inReasoning: false } },
    tools: { info, parser: tool },
    model: 'm',
  };
}

const counts = { promptTokens: 9, cachedTokens: 0, reasoningTokens: 0 };

/** Streams `text` in chunks of `size` through a framer; returns the frames. */
function stream(text: string, size: number): string {
  const framer = new MessagesFramer(META, 9);
  const c = new ChoiceState(0, charDecoder(), false);
  c.output = new ChatOutput(parsing());
  const ids = [...text].map((ch) => ch.charCodeAt(0));
  let frames = '';
  for (let i = 0; i < ids.length; i += size) {
    const tokenIds = ids.slice(i, i + size);
    frames += framer.frames(
      { kind: 'chunk', index: 0, tokenIds, completionTokens: i + tokenIds.length, ...counts },
      c,
    );
  }
  frames += framer.frames(
    {
      kind: 'complete',
      index: 0,
      outputIds: [],
      finishReason: 'stop',
      completionTokens: ids.length,
      ...counts,
    },
    c,
  );
  return frames + framer.closing([c]);
}

interface Event {
  type: string;
  index?: number;
  content_block?: Record<string, unknown>;
  delta?: Record<string, unknown>;
  message?: Record<string, unknown>;
  usage?: Record<string, unknown>;
}

/** Reassembles the message from its events, checking their grammar on the way. */
function reassemble(frames: string): Record<string, unknown> {
  const events = frames
    .trimEnd()
    .split('\n\n')
    .map((f) => {
      const m = /^event: (\w+)\ndata: (.*)$/.exec(f);
      assert.ok(m, `framed as Anthropic does: ${f}`);
      const e = JSON.parse(m[2] ?? '') as Event;
      assert.equal(e.type, m[1]);
      return e;
    });
  assert.deepEqual(
    events.slice(0, 2).map((e) => e.type),
    ['message_start', 'ping'],
  );
  assert.deepEqual(
    events.slice(-2).map((e) => e.type),
    ['message_delta', 'message_stop'],
  );
  const message = { ...events[0]?.message } as Record<string, unknown>;
  const content: Record<string, unknown>[] = [];
  let open: number | undefined;
  const json: string[] = [];
  for (const e of events.slice(2, -2)) {
    if (e.type === 'content_block_start') {
      assert.equal(open, undefined, 'one block open at a time');
      assert.equal(e.index, content.length, 'indexes count up from 0');
      open = e.index;
      content.push({ ...e.content_block });
    } else if (e.type === 'content_block_delta') {
      assert.equal(e.index, open);
      const block = content[open ?? -1] as Record<string, unknown>;
      const d = e.delta as Record<string, string>;
      if (d.type === 'text_delta') block.text = `${block.text as string}${d.text}`;
      else if (d.type === 'thinking_delta')
        block.thinking = `${block.thinking as string}${d.thinking}`;
      else if (d.type === 'input_json_delta')
        json[open ?? -1] = (json[open ?? -1] ?? '') + d.partial_json;
      else assert.fail(`unknown delta ${d.type}`);
    } else if (e.type === 'content_block_stop') {
      assert.equal(e.index, open);
      open = undefined;
    } else assert.fail(`unexpected ${e.type}`);
  }
  assert.equal(open, undefined, 'every block is closed');
  json.forEach((text, i) => {
    if (content[i] !== undefined) content[i].input = JSON.parse(text) as unknown;
  });
  const last = events.at(-2) as Event;
  return { ...message, content, ...last.delta, usage: last.usage };
}

function whole(text: string): Record<string, unknown> {
  const c = new ChoiceState(0, charDecoder(), false);
  c.onComplete(
    {
      kind: 'complete',
      index: 0,
      outputIds: [...text].map((ch) => ch.charCodeAt(0)),
      finishReason: 'stop',
      completionTokens: text.length,
      ...counts,
    },
    false,
  );
  c.parsed = parseChatAnswer(c.text, parsing());
  return messageBody(META, c);
}

void describe('Anthropic Messages stream framer', () => {
  const answers = [
    'Just text, no markup.',
    '<think>weigh it</think>\n\nThe answer.',
    '<think>need data</think>\n\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
    'Checking.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Lyon"}}\n</tool_call>',
  ];
  for (const answer of answers) {
    void it(`streams ${JSON.stringify(answer.slice(0, 32))}… as its whole message, however cut`, () => {
      const expected = whole(answer);
      for (let size = 1; size <= 7; size++) {
        const got = reassemble(stream(answer, size));
        const content = got.content as Record<string, unknown>[];
        // Tool ids are fresh per answer; the rest must match exactly.
        const ids = content.filter((b) => b.type === 'tool_use').map((b) => b.id as string);
        for (const id of ids) assert.match(id, /^toolu_[0-9a-f]{24}$/);
        const strip = (m: Record<string, unknown>) => ({
          ...m,
          content: (m.content as Record<string, unknown>[]).map((b) => ({
            ...b,
            id: b.type === 'tool_use' ? 'x' : undefined,
          })),
        });
        assert.deepEqual(strip(got), strip(expected), `chunk size ${size}`);
      }
    });
  }

  void it('a stream that fails ends with one Anthropic error event', () => {
    const framer = new MessagesFramer(META, 3);
    assert.equal(
      framer.failure('Stream error: boom'),
      'event: error\ndata: {"type":"error","error":{"type":"api_error","message":"Stream error: boom"}}\n\n',
    );
  });
});
