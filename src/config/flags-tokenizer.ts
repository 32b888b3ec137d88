/**
 * The tokenizer flags of `switchyard launch`, SMG's names and CLI defaults (main.rs "Tokenizer"
 * section): where a gRPC model's tokenizer comes from and how its encodings are cached. HTTP
 * workers tokenize themselves; for them only the startup tokenizer of `/v1/tokenize` matters
 * (`--tokenizer-path`, else `--model-path`, registered under the path string as SMG does).
 */
import { REASONING_PARSER_NAMES, TOOL_PARSER_NAMES } from '../parsers/model-map.js';
import { UNBUILT_REASONING_PARSERS, UNBUILT_TOOL_PARSERS } from '../parsers/catalog.js';
import type { CoreFlag } from './core-flag.js';
import { u64 } from './flag-status.js';

export const TOKENIZER_FLAGS: readonly CoreFlag[] = [
  {
    name: 'model-path',
    key: 'modelPath',
    kind: 'string',
    aliases: ['model'],
    metavar: '<dir>',
    help: "Tokenizer source after a worker's tokenizer_path/model_path labels and --tokenizer-path, and the startup tokenizer of /v1/tokenize without --tokenizer-path: a local directory (no hub download at run time)",
  },
  {
    name: 'tokenizer-path',
    key: 'tokenizerPath',
    kind: 'string',
    metavar: '<dir>',
    help: "Tokenizer directory for gRPC workers whose labels name none (a worker's tokenizer_path/model_path label wins); also loaded at startup for /v1/tokenize, named by this path",
  },
  {
    name: 'chat-template',
    key: 'chatTemplate',
    kind: 'string',
    metavar: '<path>',
    help: 'Chat template file (.jinja, or .json with a chat_template) for every gateway-side tokenizer',
  },
  {
    name: 'disable-tokenizer-autoload',
    key: 'disableTokenizerAutoload',
    kind: 'bool',
    default: false,
    help: 'Do not load tokenizers when gRPC workers register, nor the startup tokenizer; readiness then does not wait for them',
  },
  {
    name: 'tokenizer-cache-enable-l0',
    key: 'tokenizerCacheEnableL0',
    kind: 'bool',
    default: false,
    help: 'Exact-match cache of whole encodings (L0)',
  },
  {
    name: 'tokenizer-cache-l0-max-entries',
    key: 'tokenizerCacheL0MaxEntries',
    kind: 'int',
    default: 10000,
    check: u64,
    help: 'Entries the L0 cache holds',
  },
  // Parsers (SMG's "Parsers" section): how a gRPC chat answer's text is split.
  {
    name: 'reasoning-parser',
    key: 'reasoningParser',
    kind: 'enum',
    choices: REASONING_PARSER_NAMES,
    unsupportedValues: {
      values: UNBUILT_REASONING_PARSERS,
      subsystem: 'this structured-channel reasoning format',
    },
    help: "Reasoning parser for every model's chat answers (default: by model name)",
  },
  {
    name: 'tool-call-parser',
    key: 'toolCallParser',
    kind: 'enum',
    choices: TOOL_PARSER_NAMES,
    unsupportedValues: { values: UNBUILT_TOOL_PARSERS, subsystem: 'this tool-call format' },
    help: "Tool-call parser for every model's chat answers (default: by model name)",
  },
];
