// The `switchyard sim` flags that only a gRPC worker (`--protocol grpc`) reads: its tokenizer and
// answer, the model info it reports, and the gRPC faults.
import { MAX_TIMER_MS } from '@switchyard/kit';
import { SIM_PROTOCOLS } from './options.js';
import type { SimFlagSpec } from './cli-flag-kit.js';
import { fault, flag, opt, range } from './cli-flag-kit.js';

export const SIM_GRPC_FLAGS: readonly SimFlagSpec[] = [
  flag('protocol', {
    kind: 'enum',
    choices: SIM_PROTOCOLS,
    to: opt('protocol'),
    help: "wire protocol: http routes or the runtime's gRPC service (default http)",
  }),
  flag('tokenizer-dir', {
    grpcOnly: true,
    kind: 'string',
    metavar: '<DIR>',
    to: opt('tokenizerDir'),
    help: 'grpc: HF tokenizer directory (default the built-in tiny tokenizer)',
  }),
  flag('eos-token-id', {
    grpcOnly: true,
    kind: 'int',
    metavar: '<ID>',
    check: range(0, 2 ** 32 - 1),
    to: opt('eosTokenId'),
    help: "grpc: EOS id (default config.json's, else tokenizer_config's eos_token)",
  }),
  flag('answer-text', {
    grpcOnly: true,
    kind: 'string',
    metavar: '<TEXT>',
    to: opt('answerText'),
    help: 'grpc: every answer is this text, then EOS (default seeded canned words)',
  }),
  flag('max-context-length', {
    grpcOnly: true,
    kind: 'int',
    metavar: '<N>',
    check: range(2, 2 ** 31 - 1),
    to: opt('maxContextLength'),
    help: 'grpc: reported max_context_length; longer prompts are refused (default 32768)',
  }),
  flag('tokenizer-path-label', {
    grpcOnly: true,
    kind: 'string',
    metavar: '<PATH>',
    to: opt('tokenizerPathLabel'),
    help: 'grpc: tokenizer path reported by GetModelInfo (default --tokenizer-dir)',
  }),
  flag('weight-version', {
    grpcOnly: true,
    kind: 'string',
    metavar: '<V>',
    to: opt('weightVersion'),
    help: 'grpc: reported weight_version (default default)',
  }),
];

export const SIM_GRPC_FAULT_FLAGS: readonly SimFlagSpec[] = [
  flag('grpc-status', {
    grpcOnly: true,
    kind: 'int',
    metavar: '<CODE>',
    check: range(1, 16),
    to: fault('grpcStatus'),
    help: 'fault, grpc: status code of --error-rate failures (default from --error-status)',
  }),
  flag('grpc-stream-status', {
    grpcOnly: true,
    kind: 'int',
    metavar: '<CODE>',
    check: range(1, 16),
    to: fault('grpcStreamStatus'),
    help: 'fault, grpc: status of --drop-after-chunks/--drop-after-head (default 13)',
  }),
  flag('grpc-message', {
    grpcOnly: true,
    kind: 'string',
    metavar: '<TEXT>',
    to: fault('grpcMessage'),
    help: 'fault, grpc: status message of injected failures',
  }),
  flag('grpc-malformed', {
    grpcOnly: true,
    kind: 'bool',
    to: fault('grpcMalformed'),
    help: 'fault, grpc: Generate answers one message with neither chunk nor complete',
  }),
  flag('abort-delay-ms', {
    grpcOnly: true,
    kind: 'float',
    metavar: '<MS>',
    check: range(1e-6, MAX_TIMER_MS),
    to: fault('abortDelayMs'),
    help: 'fault, grpc: Abort answers after MS',
  }),
  flag('grpc-ignore-cancel', {
    grpcOnly: true,
    kind: 'bool',
    to: fault('grpcIgnoreCancel'),
    help: 'fault, grpc: a cancelled Generate keeps running until it ends or an Abort arrives',
  }),
  flag('grpc-stall-after-tokens', {
    grpcOnly: true,
    kind: 'int',
    metavar: '<N>',
    check: range(0, 1e9),
    to: fault('grpcStallAfterTokens'),
    help: 'fault, grpc: after N tokens the engine stops producing and leaves the call open',
  }),
  flag('tokenizer-bad-sha', {
    grpcOnly: true,
    kind: 'bool',
    to: fault('tokenizerBadSha'),
    help: 'fault, grpc: GetTokenizer sends a wrong sha256',
  }),
  flag('tokenizer-no-sha', {
    grpcOnly: true,
    kind: 'bool',
    to: fault('tokenizerNoSha'),
    help: 'fault, grpc: GetTokenizer sends no sha256',
  }),
  flag('tokenizer-delay-ms', {
    grpcOnly: true,
    kind: 'float',
    metavar: '<MS>',
    check: range(1e-6, MAX_TIMER_MS),
    to: fault('tokenizerDelayMs'),
    help: 'fault, grpc: GetTokenizer waits MS before the first chunk',
  }),
];
