/**
 * Which parser SMG picks for a model id when none is configured: the tool-call and reasoning
 * factories' pattern tables, reproduced with their own (different) matching rules. Names only;
 * undefined means SMG has no mapping, and SMG then parses no tool calls or reasoning for that
 * model (its availability check fails) rather than falling back.
 */

/** Every tool parser name SMG registers, for validating `--tool-call-parser`. */
export const TOOL_PARSER_NAMES: readonly string[] = [
  'passthrough',
  'json',
  'mistral',
  'qwen',
  'qwen_xml',
  'qwen_coder',
  'nemotron',
  'pythonic',
  'llama',
  'deepseek',
  'deepseek31',
  'deepseek32',
  'deepseek_v4',
  'glm45_moe',
  'glm47_moe',
  'step3',
  'sarashina',
  'kimik2',
  'kimi_k3',
  'inkling',
  'minimax_m2',
  'cohere',
];

/** Every reasoning parser name SMG registers, for validating `--reasoning-parser`. */
export const REASONING_PARSER_NAMES: readonly string[] = [
  'base',
  'passthrough',
  'deepseek_r1',
  'qwen3',
  'qwen3_thinking',
  'kimi',
  'glm45',
  'step3',
  'minimax',
  'cohere_cmd',
  'nano_v3',
  'inkling',
  'deepseek_v31',
  'deepseek_v4',
  'kimi_k25',
  'kimi_thinking',
  'kimi_k3',
];

/**
 * SMG's tool-parser model globs, as it writes them. Only a trailing `*` is special: the rest is a
 * stem matched anywhere in the id, case-insensitively, and the longest matching stem wins, which
 * is why `qwen3-coder*` beats `qwen*` whatever their order. (`moonshot*` patterns keep a literal
 * `*` in their stem, so in SMG they never match; their `kimi-k*` siblings cover those ids.)
 */
const TOOL_PATTERNS: readonly (readonly [string, string])[] = [
  ['gpt-4*', 'json'],
  ['gpt-3.5*', 'json'],
  ['gpt-4o*', 'json'],
  ['claude-*', 'json'],
  ['mistral-*', 'mistral'],
  ['mixtral-*', 'mistral'],
  ['Qwen/Qwen3.5*', 'qwen_xml'],
  ['Qwen3.5*', 'qwen_xml'],
  ['qwen3.5*', 'qwen_xml'],
  ['qwen/qwen3.5*', 'qwen_xml'],
  ['Qwen/Qwen3.6*', 'qwen_xml'],
  ['Qwen3.6*', 'qwen_xml'],
  ['qwen3.6*', 'qwen_xml'],
  ['qwen/qwen3.6*', 'qwen_xml'],
  ['Qwen/Qwen3.8*', 'qwen_xml'],
  ['Qwen3.8*', 'qwen_xml'],
  ['qwen3.8*', 'qwen_xml'],
  ['qwen/qwen3.8*', 'qwen_xml'],
  ['Qwen/Qwen3-Coder*', 'qwen_xml'],
  ['Qwen3-Coder*', 'qwen_xml'],
  ['qwen3-coder*', 'qwen_xml'],
  ['qwen/qwen3-coder*', 'qwen_xml'],
  ['qwen*', 'qwen'],
  ['Qwen*', 'qwen'],
  ['nemotron-3*', 'qwen_xml'],
  ['llama-4*', 'pythonic'],
  ['meta-llama-4*', 'pythonic'],
  ['llama-3.2*', 'llama'],
  ['meta-llama-3.2*', 'llama'],
  ['llama-*', 'json'],
  ['meta-llama-*', 'json'],
  ['deepseek-v3*', 'deepseek'],
  ['deepseek-ai/DeepSeek-V3*', 'deepseek'],
  ['deepseek-v3.1*', 'deepseek31'],
  ['deepseek-ai/DeepSeek-V3.1*', 'deepseek31'],
  ['deepseek-v3.2-exp*', 'deepseek31'],
  ['deepseek-ai/DeepSeek-V3.2-Exp*', 'deepseek31'],
  ['deepseek-v3.2*', 'deepseek32'],
  ['deepseek-ai/DeepSeek-V3.2*', 'deepseek32'],
  ['deepseek-v4*', 'deepseek_v4'],
  ['deepseek-ai/DeepSeek-V4*', 'deepseek_v4'],
  ['deepseek-*', 'pythonic'],
  ['glm-4.5*', 'glm45_moe'],
  ['glm-4.6*', 'glm45_moe'],
  ['glm-4.7*', 'glm47_moe'],
  ['glm-5*', 'glm47_moe'],
  ['glm-*', 'json'],
  ['sarashina*', 'sarashina'],
  ['Sarashina*', 'sarashina'],
  ['step3*', 'step3'],
  ['Step-3*', 'step3'],
  ['kimi-k2*', 'kimik2'],
  ['Kimi-K2*', 'kimik2'],
  ['moonshot*/Kimi-K2*', 'kimik2'],
  ['kimi-k3*', 'kimi_k3'],
  ['Kimi-K3*', 'kimi_k3'],
  ['moonshot*/Kimi-K3*', 'kimi_k3'],
  ['kimi_k3*', 'kimi_k3'],
  ['Kimi_K3*', 'kimi_k3'],
  ['moonshot*/Kimi_K3*', 'kimi_k3'],
  ['inkling*', 'inkling'],
  ['Inkling*', 'inkling'],
  ['minimax*', 'minimax_m2'],
  ['MiniMax*', 'minimax_m2'],
  ['command-r*', 'cohere'],
  ['command-r-plus*', 'cohere'],
  ['command-a*', 'cohere'],
  ['c4ai-command*', 'cohere'],
  ['cohere*', 'cohere'],
  ['CohereForAI*', 'cohere'],
  ['gemini-*', 'json'],
  ['palm-*', 'json'],
  ['gemma-*', 'json'],
];

/**
 * SMG's reasoning-parser patterns, in its order: the first stem found anywhere in the id,
 * case-insensitively, wins, so a specific stem must come before any stem it contains.
 */
const REASONING_PATTERNS: readonly (readonly [string, string])[] = [
  ['deepseek-r1', 'deepseek_r1'],
  ['deepseek-v4', 'deepseek_v4'],
  ['deepseek_v4', 'deepseek_v4'],
  ['deepseek-v3.1', 'deepseek_v31'],
  ['deepseek-v3-1', 'deepseek_v31'],
  ['qwen3-thinking', 'qwen3_thinking'],
  ['qwen-thinking', 'qwen3_thinking'],
  ['qwen3', 'qwen3'],
  ['qwen', 'qwen3'],
  ['glm45', 'glm45'],
  ['glm47', 'glm45'],
  ['glm-5', 'glm45'],
  ['kimi-k2-thinking', 'kimi_thinking'],
  ['kimi-k2.5', 'kimi_k25'],
  ['kimi-k3', 'kimi_k3'],
  ['kimi_k3', 'kimi_k3'],
  ['kimi', 'kimi'],
  ['step3', 'step3'],
  ['minimax', 'minimax'],
  ['minimax-m2', 'minimax'],
  ['mm-m2', 'minimax'],
  ['command-r', 'cohere_cmd'],
  ['command-a', 'cohere_cmd'],
  ['c4ai-command', 'cohere_cmd'],
  ['cohere', 'cohere_cmd'],
  ['nemotron-nano', 'nano_v3'],
  ['nemotron-super', 'nano_v3'],
  ['nano-v3', 'nano_v3'],
  ['nemotron-3', 'nano_v3'],
  ['inkling', 'inkling'],
];

interface Stem {
  stem: string;
  parser: string;
}

/** The stems lowered once, as matching runs per request; every tool glob ends in its one `*`. */
const TOOL_STEMS: readonly Stem[] = TOOL_PATTERNS.map(([glob, parser]) => ({
  stem: glob.slice(0, -1).toLowerCase(),
  parser,
}));
const REASONING_STEMS: readonly Stem[] = REASONING_PATTERNS.map(([stem, parser]) => ({
  stem: stem.toLowerCase(),
  parser,
}));

/** SMG's tool parser name for `model`: the longest matching stem; on a tie, the earlier entry. */
export function toolParserForModel(model: string): string | undefined {
  const id = model.toLowerCase();
  let best: Stem | undefined;
  for (const entry of TOOL_STEMS) {
    if ((best === undefined || entry.stem.length > best.stem.length) && id.includes(entry.stem)) {
      best = entry;
    }
  }
  return best?.parser;
}

/** SMG's reasoning parser name for `model`: the first pattern found in it. */
export function reasoningParserForModel(model: string): string | undefined {
  const id = model.toLowerCase();
  return REASONING_STEMS.find(({ stem }) => id.includes(stem))?.parser;
}
