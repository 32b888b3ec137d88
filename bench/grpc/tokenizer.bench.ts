// In-process tokenizer throughput for gRPC mode, on Qwen3's tokenizer (the real 151k-token
// vocabulary) loaded with the gateway's own loader (src/tokenizer/load-dir.ts):
//   - encode of the ~2,000-token chat prompt: no cache, L0 miss (a new prompt each time, so the
//     insert and eviction are paid too), L0 hit (a fresh string equal to a cached one, as every
//     request body parses into: the lookup hashes and compares the whole text);
//   - the chat template render: no cache, render-cache miss, render-cache hit;
//   - render + encode together (what one chat request's prompt costs the gateway);
//   - the stop decoder per token over a 2,000-token generation: no stop strings, two.
// Plain timing loops: each case runs for ROUND_MS a few times and reports the median of the
// rounds' CPU time per operation (process.cpuUsage, so time the OS gave other processes on this
// shared machine is not counted; the wall time is shown beside it).
//
//   node --import tsx bench/grpc/tokenizer.bench.ts     (~30 s; writes bench/results/grpc-tokenizer.json)
//   GRPC_TOKENIZER_ROUNDS=3 GRPC_TOKENIZER_ROUND_MS=200 ... (quick look)
import { pinSelf } from '../lib/proc.js';
import { writeResult } from '../lib/results.js';
import { median, round } from '../lib/stats.js';
import { fmt, printTable } from '../lib/table.js';
import { loadTokenizerDir } from '../../src/tokenizer/load-dir.js';
import type { ChatTemplateInput, ModelTokenizer } from '../../src/tokenizer/types.js';
import { ANSWER_TEXT, longChat, prose, type Message } from './text.js';
import { QWEN3_DIR } from './workloads.js';

const ROUNDS = Number(process.env['GRPC_TOKENIZER_ROUNDS'] ?? 5);
const ROUND_MS = Number(process.env['GRPC_TOKENIZER_ROUND_MS'] ?? 500);
const GENERATED_TOKENS = 2000;

interface Case {
  group: string;
  name: string;
  /** Tokens one operation handles (for tokens/s and µs per token); 1 when not token-shaped. */
  tokens: number;
  /** One operation; `i` counts up across the whole case, warm-up included. */
  op: (i: number) => unknown;
}

interface Result {
  group: string;
  name: string;
  tokens: number;
  cpuUsPerOp: number;
  wallUsPerOp: number;
  cpuUsPerOpRounds: number[];
  opsPerRound: number;
}

let sink: unknown;

function time(c: Case): Result {
  let i = 0;
  // Warm-up: the JIT, and the caches a hit case relies on.
  const warm = performance.now();
  while (performance.now() - warm < Math.min(300, ROUND_MS)) sink = c.op(i++);
  const cpu: number[] = [];
  const wall: number[] = [];
  let ops = 0;
  for (let r = 0; r < ROUNDS; r++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    let n = 0;
    // Check the clock every few operations only: a fast op would otherwise time the clock.
    while (performance.now() - t0 < ROUND_MS) for (let k = 0; k < 8; k++, n++) sink = c.op(i++);
    const dt = performance.now() - t0;
    const du = process.cpuUsage(c0);
    cpu.push((du.user + du.system) / n);
    wall.push((dt * 1000) / n);
    ops = n;
  }
  return {
    group: c.group,
    name: c.name,
    tokens: c.tokens,
    cpuUsPerOp: median(cpu),
    wallUsPerOp: median(wall),
    cpuUsPerOpRounds: cpu.map((v) => round(v, 2)),
    opsPerRound: ops,
  };
}

function input(messages: readonly Message[]): ChatTemplateInput {
  return { messages, addGenerationPrompt: true };
}

function stopDecodeAll(tok: ModelTokenizer, ids: readonly number[], stops: string[]): number {
  const d = tok.stopDecoder({
    hiddenStops: stops,
    visibleStops: [],
    hiddenStopTokenIds: [],
    visibleStopTokenIds: [],
    skipSpecialTokens: true,
  });
  let chars = 0;
  for (const id of ids) {
    const step = d.push(id);
    if (step.kind !== 'held') chars += step.text.length;
  }
  return chars + d.flush().length;
}

async function main(): Promise<void> {
  const pinned = pinSelf('0');
  const t0 = performance.now();
  const plain = await loadTokenizerDir(QWEN3_DIR, {
    modelId: 'qwen3',
    l0: { enabled: false, maxEntries: 0 },
  });
  const loadMs = performance.now() - t0;
  // The gateway's default size; the miss cases insert far more prompts than it holds, so they
  // also pay the sampled eviction, as a busy gateway would.
  const cached = await loadTokenizerDir(QWEN3_DIR, {
    modelId: 'qwen3',
    l0: { enabled: true, maxEntries: 10_000 },
  });

  const chat = longChat();
  const prompt = plain.renderChat(input(chat));
  const promptTokens = plain.encode(prompt, false).length;
  // A 2,000-token generation: the answer text repeated, then cut to length.
  let genText = ANSWER_TEXT;
  while (plain.encode(genText, false).length < GENERATED_TOKENS) genText += ` ${prose(300, 99)}`;
  const generated = plain.encode(genText, false).slice(0, GENERATED_TOKENS);
  // A hit must hash a string that has never been hashed, as a freshly parsed body is: each op
  // makes its own copy from the UTF-8 bytes (the "fresh copy" row is that part alone). Template
  // inputs are keyed by JSON.stringify, so reusing a few parsed copies changes nothing.
  const promptBytes = Buffer.from(prompt, 'utf8');
  const fresh = (): string => promptBytes.toString('utf8');
  const chatJson = JSON.stringify(chat);
  const chatCopies = Array.from({ length: 16 }, () => JSON.parse(chatJson) as Message[]);
  const at = <T>(xs: readonly T[], i: number): T => xs[i % xs.length] as T;
  cached.encode(prompt, false);
  cached.renderChat(input(chat));
  // The miss cases' prompts differ in one number and are made inside the op: a few µs of
  // string building against milliseconds of BPE.
  const variantPrompt = (i: number): string => prompt.replace('Answer from', `Answer ${i} from`);
  const variantChat = (i: number): Message[] => longChat(i);

  const cases: Case[] = [
    {
      group: 'encode',
      name: `encode ${promptTokens}-token chat prompt, no cache`,
      tokens: promptTokens,
      op: () => plain.encode(fresh(), false),
    },
    {
      group: 'encode',
      name: 'encode, L0 miss (new prompt: BPE + insert)',
      tokens: promptTokens,
      op: (i) => cached.encode(variantPrompt(i), false),
    },
    {
      group: 'encode',
      name: 'encode, L0 hit (fresh equal string)',
      tokens: promptTokens,
      op: () => cached.encode(fresh(), false),
    },
    {
      group: 'encode',
      name: 'fresh copy of the prompt alone (in the rows above)',
      tokens: promptTokens,
      op: fresh,
    },
    {
      group: 'render',
      name: 'chat template render, no cache',
      tokens: promptTokens,
      op: (i) => plain.renderChat(input(at(chatCopies, i))),
    },
    {
      group: 'render',
      name: 'render, render-cache miss (new user turn)',
      tokens: promptTokens,
      op: (i) => cached.renderChat(input(variantChat(i))),
    },
    {
      group: 'render',
      name: 'render, render-cache hit (fresh equal input)',
      tokens: promptTokens,
      op: (i) => cached.renderChat(input(at(chatCopies, i))),
    },
    {
      group: 'prompt',
      name: 'render + encode, caches off (the default)',
      tokens: promptTokens,
      op: (i) => plain.encode(plain.renderChat(input(at(chatCopies, i))), false),
    },
    {
      group: 'prompt',
      name: 'render + encode, L0 on, miss',
      tokens: promptTokens,
      op: (i) => cached.encode(cached.renderChat(input(variantChat(i))), false),
    },
    {
      group: 'prompt',
      name: 'render + encode, L0 on, hit',
      tokens: promptTokens,
      op: (i) => cached.encode(cached.renderChat(input(at(chatCopies, i))), false),
    },
    {
      group: 'stop decoder',
      name: `stop decoder, ${GENERATED_TOKENS} tokens, no stop strings`,
      tokens: GENERATED_TOKENS,
      op: () => stopDecodeAll(plain, generated, []),
    },
    {
      group: 'stop decoder',
      name: `stop decoder, ${GENERATED_TOKENS} tokens, two stop strings`,
      tokens: GENERATED_TOKENS,
      // Neither occurs, but "The" starts many sentences, so text is held and released often.
      op: () => stopDecodeAll(plain, generated, ['\n\nQuestion:', 'The end.']),
    },
  ];

  const results: Result[] = [];
  for (const c of cases) {
    const r = time(c);
    results.push(r);
    console.log(
      `${c.name.padEnd(52)} ${fmt(r.cpuUsPerOp, 1).padStart(9)} µs CPU/op  (rounds ${r.cpuUsPerOpRounds.map((v) => fmt(v, 0)).join(' / ')})`,
    );
  }
  void sink;

  const base = (group: string): Result | undefined => results.find((r) => r.group === group);
  printTable(
    `Tokenizer throughput, Qwen3, in process (medians of ${ROUNDS} rounds of ${ROUND_MS} ms, CPU time)`,
    ['operation', 'µs / op', 'wall µs / op', 'µs / token', 'tokens / s', '÷ first of group'],
    results.map((r) => [
      r.name,
      fmt(r.cpuUsPerOp, r.cpuUsPerOp < 100 ? 1 : 0),
      fmt(r.wallUsPerOp, r.wallUsPerOp < 100 ? 1 : 0),
      fmt(r.cpuUsPerOp / r.tokens, 3),
      fmt((r.tokens * 1e6) / r.cpuUsPerOp, 0),
      fmt(r.cpuUsPerOp / (base(r.group)?.cpuUsPerOp ?? NaN), 3),
    ]),
  );
  const path = writeResult('grpc-tokenizer', {
    rounds: ROUNDS,
    roundMs: ROUND_MS,
    pinned,
    tokenizerLoadMs: round(loadMs, 0),
    promptTokens,
    promptChars: prompt.length,
    generatedTokens: GENERATED_TOKENS,
    l0: (cached as Partial<{ l0Stats: unknown }>).l0Stats,
    results,
  });
  console.log(`\ntokenizer loaded in ${fmt(loadMs, 0)} ms; wrote ${path}`);
}

await main();
