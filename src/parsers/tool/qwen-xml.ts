/**
 * `qwen_xml` (Qwen3-Coder, Qwen3.5; SMG also registers it as `qwen_coder` and `nemotron`):
 * `<tool_call>\n<function=NAME>\n<parameter=KEY>\nVALUE\n</parameter>\n</function>\n</tool_call>`,
 * parameter values being text turned into JSON (`paramValueJson`). Text before, between and after
 * the calls is content; a block that is not a well-formed call is left in content.
 */
import type { ToolParser, ToolParseResult, ToolStream } from '../types.js';
import { CallStream, parseWhole } from './call-stream.js';
import { findMarker } from './find-start.js';
import { QwenXmlSection } from './qwen-xml-section.js';

const findCall = findMarker('<tool_call>', (_at, from) => new QwenXmlSection(from));

export class QwenXmlToolParser implements ToolParser {
  readonly name = 'qwen_xml';

  parse(text: string): ToolParseResult {
    return parseWhole(findCall, text);
  }

  stream(): ToolStream {
    return new CallStream(findCall);
  }
}
