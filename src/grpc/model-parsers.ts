/**
 * The parsers a model's chat answers go through: `--tool-call-parser` / `--reasoning-parser`
 * when given, else SMG's model-name mapping. A name the mapping gives for a parser Switchyard
 * does not implement (SMG's structured-channel formats) means no parsing for that kind.
 */
import { toolParserForModel, reasoningParserForModel } from '../parsers/model-map.js';
import { reasoningParserNamed, toolMarkerOf, toolParserNamed } from '../parsers/catalog.js';
import type { ModelParsers } from './chat-parsing.js';

export interface ModelParsersOptions {
  toolCallParser?: string | undefined;
  reasoningParser?: string | undefined;
  onUnparsed?: ((parser: string) => void) | undefined;
}

export function modelParsers(opts: ModelParsersOptions): ModelParsers {
  return {
    tool(model) {
      const name = opts.toolCallParser ?? toolParserForModel(model);
      const parser = name === undefined ? undefined : toolParserNamed(name);
      return parser === undefined ? undefined : { parser, marker: toolMarkerOf(parser.name) };
    },
    reasoning(model) {
      const name = opts.reasoningParser ?? reasoningParserForModel(model);
      return name === undefined ? undefined : reasoningParserNamed(name);
    },
    onUnparsed: opts.onUnparsed,
  };
}
