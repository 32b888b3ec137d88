// The response side of the gRPC pipeline on a real (tiny, byte-level) tokenizer: a sample's
// state decodes chunks, keeps the logprobs of the tokens the client saw, and pins a local stop;
// the chat, completions and /generate bodies carry them in OpenAI's and SGLang's shapes.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { EngineChunk, EngineComplete } from '../../../src/engine/types.js';
import { ChoiceState, usageOf } from '../../../src/grpc/choice.js';
import { deltaFrame, finalBody, type ResponseMeta } from '../../../src/grpc/formats.js';
import { loadTokenizerDir } from '../../../src/tokenizer/load-dir.js';
import type { ModelTokenizer } from '../../../src/tokenizer/types.js';
import { repoPath } from '../../helpers/repo-root.js';

const TINY = repoPath('packages', 'sim', 'assets', 'tiny-tokenizer');

function chunk(index: number, ids: number[], completion: number, logprobs = true): EngineChunk {
  return {
    kind: 'chunk',
    index,
    tokenIds: ids,
    promptTokens: 7,
    completionTokens: completion,
    cachedTokens: 2,
    reasoningTokens: 0,
    logprobs: logprobs
      ? {
          tokenLogprobs: ids.map((_, i) => -0.5 - i),
          tokenIds: ids,
          top: ids.map((id) => ({ tokenIds: [id, 1], logprobs: [-0.5, -3] })),
        }
      : undefined,
  };
}

function complete(index: number, reason: string, completion: number): EngineComplete {
  return {
    kind: 'complete',
    index,
    outputIds: [],
    finishReason: reason,
    promptTokens: 7,
    completionTokens: completion,
    cachedTokens: 2,
    reasoningTokens: 0,
  };
}

void describe('gRPC response shapes', () => {
  let tok: ModelTokenizer;
  let meta: ResponseMeta;
  const state = (index: number, stop: string[] = [], logprobs = true) =>
    new ChoiceState(
      index,
      tok.stopDecoder({
        hiddenStops: stop,
        visibleStops: [],
        hiddenStopTokenIds: [...tok.eosTokenIds],
        visibleStopTokenIds: [],
        skipSpecialTokens: true,
      }),
      logprobs,
    );

  before(async () => {
    tok = await loadTokenizerDir(TINY, { modelId: 'tiny', l0: { enabled: false, maxEntries: 0 } });
    meta = {
      id: 'chatcmpl-1',
      model: 'tiny',
      created: 1,
      fingerprint: 'w',
      tokenText: (id) => tok.decode([id], false),
    };
  });

  void it('decodes chunks, keeps logprobs per shown token, and takes the engine finish', () => {
    const ids = [...tok.encode('Hello world', false)];
    const c = state(0);
    const text = c.onChunk(chunk(0, ids, ids.length));
    assert.equal(text, 'Hello world');
    assert.equal(c.logprobs.length, ids.length);
    c.onComplete(complete(0, 'length', ids.length), true);
    assert.equal(c.finishReason, 'length');
    const frame = deltaFrame('chat', meta, c, text, 0, true);
    const parsed = JSON.parse(frame.slice('data: '.length)) as {
      choices: {
        logprobs: { content: { token: string; logprob: number; top_logprobs: unknown[] }[] };
      }[];
    };
    const content = parsed.choices[0]?.logprobs.content ?? [];
    assert.equal(content.map((e) => e.token).join(''), 'Hello world');
    assert.equal(content[0]?.logprob, -0.5);
    assert.equal(content[0]?.top_logprobs.length, 2);
  });

  void it('writes a delta chunk with every field of the chunk object, in order', () => {
    const c = state(1, [], false);
    const text = 'say "hi"\n';
    assert.deepEqual(JSON.parse(deltaFrame('chat', meta, c, text, 0, false).slice(6)), {
      id: 'chatcmpl-1',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'tiny',
      system_fingerprint: 'w',
      choices: [{ index: 1, delta: { content: text }, logprobs: null, finish_reason: null }],
    });
    assert.deepEqual(JSON.parse(deltaFrame('completion', meta, c, text, 0, false).slice(6)), {
      id: 'chatcmpl-1',
      object: 'text_completion',
      created: 1,
      model: 'tiny',
      system_fingerprint: 'w',
      choices: [{ index: 1, text, logprobs: null, finish_reason: null }],
    });
    assert.ok(deltaFrame('chat', meta, c, text, 0, false).endsWith('}\n\n'));
  });

  void it('pins a local stop against a later engine "length" and ignores tokens after it', () => {
    const ids = [...tok.encode('Hello world again', false)];
    const c = state(0, [' wor']);
    const text = c.onChunk(chunk(0, ids, ids.length, false));
    assert.equal(text, 'Hello');
    assert.equal(c.onChunk(chunk(0, [...tok.encode(' more', false)], ids.length + 1, false)), '');
    c.onComplete(complete(0, 'length', ids.length + 1), true);
    assert.equal(c.finishReason, 'stop');
    assert.equal(c.matchedStop, ' wor');
    assert.equal(c.text, 'Hello');
  });

  void it('builds chat, completions and /generate bodies with usage as SMG adds it up', () => {
    const ids = [...tok.encode('Hi there', false)];
    const a = state(0);
    const b = state(1);
    a.onComplete({ ...complete(0, 'stop', 3), outputIds: ids }, false);
    b.onComplete({ ...complete(1, 'length', 5), outputIds: ids, promptTokens: 9 }, false);
    assert.deepEqual(usageOf([a, b]), {
      prompt_tokens: 9,
      completion_tokens: 8,
      total_tokens: 17,
      prompt_tokens_details: { cached_tokens: 2 },
    });
    const opts = { wantLogprobs: false, echoText: 'Q: ', latencySecs: 0.5, outputIds: [ids, ids] };
    const chat = finalBody('chat', meta, [a, b], opts) as {
      choices: { message: { content: string }; finish_reason: string }[];
    };
    assert.deepEqual(
      chat.choices.map((c) => [c.message.content, c.finish_reason]),
      [
        ['Hi there', 'stop'],
        ['Hi there', 'length'],
      ],
    );
    const completion = finalBody('completion', meta, [a], opts) as { choices: { text: string }[] };
    assert.equal(completion.choices[0]?.text, 'Q: Hi there');
    const generate = finalBody('generate', meta, [b], opts) as {
      text: string;
      output_ids: number[];
      meta_info: { finish_reason: unknown; e2e_latency: number };
    };
    assert.equal(generate.text, 'Hi there');
    assert.deepEqual(generate.output_ids, ids);
    assert.deepEqual(generate.meta_info.finish_reason, { type: 'length', length: 5 });
    assert.equal(generate.meta_info.e2e_latency, 0.5);
  });
});
