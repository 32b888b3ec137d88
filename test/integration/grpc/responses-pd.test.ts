// The Responses API over a gRPC PD pair (SGLang with its bootstrap rendezvous, vLLM with the NIXL
// relay): the decode leg answers, whole and streamed, the response is stored, and a second turn
// by `previous_response_id` renders the first on both legs. Every slot and room comes back.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import OpenAI from 'openai';
import { assertAllReleased } from '../../helpers/gateway.js';
import { generateRequests } from '../../helpers/grpc.js';
import { startGrpcPdSetup } from '../../helpers/grpc-pd-fleet.js';
import type { PdSetup } from '../../helpers/pd-fleet.js';

const setups: PdSetup[] = [];
after(async () => {
  for (const s of setups) await s.close();
});

/** Long enough for several full KV blocks: only full blocks are handed over. */
const LONG = Array.from({ length: 60 }, (_, i) => `token${i}`).join(' ');

const prompt = (engine: Record<string, unknown> | undefined): string =>
  (engine?.tokenized as { original_text?: string } | undefined)?.original_text ?? '';

describe('Responses through a gRPC PD pair', () => {
  for (const runtime of ['sglang', 'vllm'] as const) {
    it(`${runtime}: create, stream and a continued turn`, async () => {
      const nixl = runtime === 'vllm' ? { kvConnector: 'NixlConnector' as const } : {};
      const pd = await startGrpcPdSetup({
        runtime,
        flags: ['--disable-retries'],
        prefill: nixl,
        decode: nixl,
      });
      setups.push(pd);
      const client = new OpenAI({
        apiKey: 'unused',
        baseURL: `${pd.gateway.url}/v1`,
        maxRetries: 0,
      });
      const first = await client.responses.create({
        model: 'qwen3',
        input: `${LONG} <sim-answer>Paired answer.</sim-answer>`,
      });
      assert.equal(first.output_text, 'Paired answer.');
      const streamed = await client.responses
        .stream({ model: 'qwen3', input: `${LONG} <sim-answer>Paired stream.</sim-answer>` })
        .finalResponse();
      assert.equal(streamed.output_text, 'Paired stream.');
      assert.equal((await client.responses.retrieve(streamed.id)).id, streamed.id);

      const second = await client.responses.create({
        model: 'qwen3',
        previous_response_id: first.id,
        input: 'And again <sim-answer>Continued.</sim-answer>',
      });
      assert.equal(second.output_text, 'Continued.');
      const [prefillEngine, decodeEngine] = [pd.prefills[0], pd.decodes[0]];
      assert.ok(prefillEngine && decodeEngine);
      const decode = generateRequests(decodeEngine).at(-1);
      assert.ok(prompt(decode).includes('Paired answer.'), 'the decode rendered the first turn');
      const prefill = generateRequests(prefillEngine).at(-1);
      assert.ok(prompt(prefill).includes('Paired answer.'), 'and so did the prefill');
      await assertAllReleased(pd.gateway);
    });
  }
});
