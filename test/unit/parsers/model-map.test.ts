// The model-id → parser-name mapping, pinned to the cases SMG's own factory tests assert plus the
// families SMG's tables name, and to SMG's two matching rules (longest stem for tool parsers,
// first pattern for reasoning parsers).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  REASONING_PARSER_NAMES,
  TOOL_PARSER_NAMES,
  reasoningParserForModel,
  toolParserForModel,
} from '../../../src/parsers/model-map.js';

const TOOL_CASES: [string, string | undefined][] = [
  ['gpt-4', 'json'],
  ['gpt-4o-mini', 'json'],
  ['gpt-3.5-turbo', 'json'],
  ['claude-3-opus', 'json'],
  ['mistral-large', 'mistral'],
  ['mistralai/Mistral-7B-Instruct-v0.3', 'mistral'],
  ['mistralai/Mixtral-8x7B-Instruct-v0.1', 'mistral'],
  // Qwen: the XML-parameter generations by their longer stems, the rest JSON-style.
  ['Qwen3.5-32B', 'qwen_xml'],
  ['Qwen/Qwen3.5-4B', 'qwen_xml'],
  ['qwen3.5-72b', 'qwen_xml'],
  ['qwen/qwen3.5-32b', 'qwen_xml'],
  ['Qwen/Qwen3.6-35B-A3B', 'qwen_xml'],
  ['Qwen/Qwen3.8-2.4T-A95B', 'qwen_xml'],
  ['Qwen3-Coder-480B', 'qwen_xml'],
  ['Qwen/Qwen3-Coder-480B-A35B-Instruct', 'qwen_xml'],
  ['qwen3-coder-7b', 'qwen_xml'],
  ['Qwen2.5-72B-Instruct', 'qwen'],
  ['Qwen2.5-Coder-32B-Instruct', 'qwen'],
  ['Qwen3-32B', 'qwen'],
  ['Qwen/Qwen3-235B-A22B', 'qwen'],
  ['qwen-max', 'qwen'],
  ['nvidia/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-NVFP4', 'qwen_xml'],
  ['nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-FP8', 'qwen_xml'],
  ['nemotron-4-340b-instruct', undefined],
  // Llama: only 4 (pythonic) and 3.2 (llama) have their own; other `llama-` ids are JSON.
  ['meta-llama/Llama-4-Scout-17B-16E-Instruct', 'pythonic'],
  ['meta-llama/Llama-3.2-3B-Instruct', 'llama'],
  ['meta-llama/Llama-3.1-8B-Instruct', 'json'],
  ['meta-llama/Meta-Llama-3-8B-Instruct', 'json'],
  ['llama3', undefined],
  // DeepSeek generations, with `deepseek-` otherwise pythonic (R1 included).
  ['deepseek-v3', 'deepseek'],
  ['deepseek-ai/DeepSeek-V3-0324', 'deepseek'],
  ['deepseek-v3.1', 'deepseek31'],
  ['deepseek-ai/DeepSeek-V3.1-Terminus', 'deepseek31'],
  ['deepseek-v3.2-exp', 'deepseek31'],
  ['deepseek-ai/DeepSeek-V3.2-Exp', 'deepseek31'],
  ['deepseek-v3.2', 'deepseek32'],
  ['deepseek-ai/DeepSeek-V3.2', 'deepseek32'],
  ['deepseek-ai/DeepSeek-V4-Flash', 'deepseek_v4'],
  ['deepseek-ai/DeepSeek-R1', 'pythonic'],
  ['zai-org/GLM-4.5-Air', 'glm45_moe'],
  ['glm-4.6', 'glm45_moe'],
  ['glm-4.7-flash', 'glm47_moe'],
  ['glm-5.2-fp8', 'glm47_moe'],
  ['glm-4-9b-chat', 'json'],
  ['sbintuitions/sarashina2.2-3b', 'sarashina'],
  ['stepfun-ai/step3', 'step3'],
  ['Step-3-fp8', 'step3'],
  ['moonshotai/Kimi-K2-Instruct', 'kimik2'],
  ['moonshotai/Kimi-K2.5', 'kimik2'],
  ['moonshotai/Kimi-K3', 'kimi_k3'],
  ['Kimi_K3', 'kimi_k3'],
  ['org/Inkling-Chat', 'inkling'],
  ['MiniMaxAI/MiniMax-M2', 'minimax_m2'],
  ['command-r-plus', 'cohere'],
  ['CohereForAI/c4ai-command-r-v01', 'cohere'],
  ['command-a-03-2025', 'cohere'],
  ['gemini-1.5-pro', 'json'],
  ['google/gemma-2-9b', 'json'],
  ['unknown-model', undefined],
  ['', undefined],
];

const REASONING_CASES: [string, string | undefined][] = [
  ['deepseek-r1-distill', 'deepseek_r1'],
  ['deepseek-ai/DeepSeek-R1-Distill-Qwen-32B', 'deepseek_r1'],
  ['DeepSeek-R1', 'deepseek_r1'],
  ['deepseek-ai/DeepSeek-V4-Flash-0731', 'deepseek_v4'],
  ['DEEPSEEK_V4_LOCAL', 'deepseek_v4'],
  ['deepseek-ai/DeepSeek-V3.1', 'deepseek_v31'],
  ['deepseek-v3-1-terminus', 'deepseek_v31'],
  ['deepseek-v3', undefined],
  ['Qwen/Qwen3-235B-A22B-Thinking-2507', 'qwen3'],
  ['qwen3-thinking-30b', 'qwen3_thinking'],
  ['qwen-thinking', 'qwen3_thinking'],
  ['qwen3-7b', 'qwen3'],
  ['QWEN3', 'qwen3'],
  ['Qwen/Qwen3.8-2.4T-A95B', 'qwen3'],
  ['Qwen/Qwen3-Coder-480B-A35B-Instruct', 'qwen3'],
  ['Qwen2.5-72B-Instruct', 'qwen3'],
  ['glm45-v2', 'glm45'],
  ['glm47-flash', 'glm45'],
  ['glm-5.2-fp8', 'glm45'],
  ['zai-org/GLM-4.5', undefined],
  ['moonshotai/Kimi-K2-Thinking', 'kimi_thinking'],
  ['moonshotai/Kimi-K2.5', 'kimi_k25'],
  ['moonshotai/Kimi-K3', 'kimi_k3'],
  ['Kimi_K3', 'kimi_k3'],
  ['kimi-chat', 'kimi'],
  ['moonshotai/Kimi-K2-Instruct', 'kimi'],
  ['Kimi', 'kimi'],
  ['step3-model', 'step3'],
  ['minimax-m2', 'minimax'],
  ['mm-m2-chat', 'minimax'],
  ['command-r-plus', 'cohere_cmd'],
  ['command-a-03-2025', 'cohere_cmd'],
  ['c4ai-command-r-v01', 'cohere_cmd'],
  ['cohere-embed', 'cohere_cmd'],
  ['nano-v3-chat', 'nano_v3'],
  ['nemotron-nano-4b', 'nano_v3'],
  ['NVIDIA-Nemotron/nemotron-super', 'nano_v3'],
  ['nvidia/NVIDIA-Nemotron-3.5-Lightning-30B-A3B-NVFP4', 'nano_v3'],
  ['nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-FP8', 'nano_v3'],
  ['inkling-chat', 'inkling'],
  ['unknown-model', undefined],
  ['meta-llama/Llama-3.1-8B-Instruct', undefined],
];

test('tool parser names by model id', () => {
  for (const [model, expected] of TOOL_CASES) {
    assert.equal(toolParserForModel(model), expected, model);
  }
});

test('reasoning parser names by model id', () => {
  for (const [model, expected] of REASONING_CASES) {
    assert.equal(reasoningParserForModel(model), expected, model);
  }
});

test('tool mapping: the longest stem wins whatever the table order', () => {
  // `qwen` (4) loses to `qwen3-coder` (11); `deepseek-v3` (11) to `deepseek-v3.1` (13).
  assert.equal(toolParserForModel('my-org/QWEN3-CODER-30B'), 'qwen_xml');
  assert.equal(toolParserForModel('DEEPSEEK-V3.1'), 'deepseek31');
  assert.equal(toolParserForModel('glm-5'), 'glm47_moe');
});

test('reasoning mapping: the first pattern in the table wins', () => {
  // `qwen3-thinking` comes before `qwen3`; the R1 distill of Qwen matches `deepseek-r1` first.
  assert.equal(reasoningParserForModel('qwen3-thinking'), 'qwen3_thinking');
  assert.equal(reasoningParserForModel('DeepSeek-R1-Distill-Qwen-7B'), 'deepseek_r1');
  assert.equal(reasoningParserForModel('kimi-k3-preview'), 'kimi_k3');
});

test('every mapped name is a known parser name', () => {
  for (const [model, name] of TOOL_CASES) {
    if (name !== undefined) assert.ok(TOOL_PARSER_NAMES.includes(name), model);
  }
  for (const [model, name] of REASONING_CASES) {
    if (name !== undefined) assert.ok(REASONING_PARSER_NAMES.includes(name), model);
  }
  assert.equal(new Set(TOOL_PARSER_NAMES).size, TOOL_PARSER_NAMES.length);
  assert.equal(new Set(REASONING_PARSER_NAMES).size, REASONING_PARSER_NAMES.length);
});
