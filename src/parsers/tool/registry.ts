/**
 * The tool-call parsers by SMG name. Parsers keep no state between answers (each answer gets its
 * own stream), so one instance serves every request. SMG's aliases for `qwen_xml` (`qwen_coder`,
 * `nemotron`) name the same parser.
 */
import type { ToolParser } from '../types.js';
import { deepseekToolParser } from './deepseek.js';
import { deepseek31ToolParser } from './deepseek31.js';
import { glm45MoeToolParser, glm47MoeToolParser } from './glm45-moe.js';
import { JsonToolParser } from './json.js';
import { kimiK2ToolParser } from './kimik2.js';
import { LlamaToolParser } from './llama.js';
import { MistralToolParser } from './mistral.js';
import { PassthroughToolParser } from './passthrough.js';
import { pythonicToolParser } from './pythonic.js';
import { QwenToolParser } from './qwen.js';
import { QwenXmlToolParser } from './qwen-xml.js';

const qwenXml = new QwenXmlToolParser();

export const TOOL_PARSERS: ReadonlyMap<string, ToolParser> = new Map<string, ToolParser>([
  ['passthrough', new PassthroughToolParser()],
  ['json', new JsonToolParser()],
  ['qwen', new QwenToolParser()],
  ['qwen_xml', qwenXml],
  ['qwen_coder', qwenXml],
  ['nemotron', qwenXml],
  ['llama', new LlamaToolParser()],
  ['mistral', new MistralToolParser()],
  ['pythonic', pythonicToolParser],
  ['deepseek', deepseekToolParser],
  ['deepseek31', deepseek31ToolParser],
  ['kimik2', kimiK2ToolParser],
  ['glm45_moe', glm45MoeToolParser],
  ['glm47_moe', glm47MoeToolParser],
]);

/**
 * The text that opens a call in each format, by which an answer whose calls did not parse is
 * recognised (for a metric). Formats without a distinctive opening (bare JSON, Python lists) have
 * none.
 */
export const TOOL_CALL_MARKERS: Readonly<Record<string, string>> = {
  qwen: '<tool_call>',
  qwen_xml: '<tool_call>',
  qwen_coder: '<tool_call>',
  nemotron: '<tool_call>',
  llama: '<|python_tag|>',
  mistral: '[TOOL_CALLS]',
  deepseek: '<｜tool▁call▁begin｜>',
  deepseek31: '<｜tool▁call▁begin｜>',
  kimik2: '<|tool_call_begin|>',
  glm45_moe: '<tool_call>',
  glm47_moe: '<tool_call>',
};
