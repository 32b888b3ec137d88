/**
 * SMG `launch` flags that Switchyard accepts, parses with SMG's type, and ignores, because the
 * subsystem they tune is absent here and its absence changes nothing for a request. `launch`
 * logs one warning naming those given. Lines are SMG's model_gateway/src/main.rs at f8daa883.
 */
import type { FlagKind } from '@switchyard/kit';
import {
  boolDefault,
  keyOf,
  u64,
  unsignedRule,
  type GatewayFlag,
  type UnsupportedValues,
} from './flag-status.js';

type NoEffectFlag = Extract<GatewayFlag, { status: 'no-effect' }>;

interface Options {
  readonly default?: string | number | boolean;
  readonly choices?: readonly string[];
  readonly check?: (value: string) => string | undefined;
  readonly aliases?: readonly string[];
  readonly unsupportedValues?: UnsupportedValues;
}

function noEffect(
  name: string,
  kind: FlagKind,
  help: string,
  reason: string,
  options: Options = {},
): NoEffectFlag {
  return {
    name,
    key: keyOf(name),
    kind,
    help: `(accepted, no effect) ${help}`,
    status: 'no-effect',
    reason,
    ...boolDefault(kind),
    ...options,
  };
}

const EVENT_ROUTING =
  "Tunes SMG's event-driven KV-cache routing, fed by engine KV events over gRPC; Switchyard's workers are HTTP and its cache_aware routing uses its own prefix tree.";
const HASH_INDEX =
  "Tunes SMG's hash cache index; Switchyard's cache_aware always uses a prefix tree (SMG's default `--cache-index tree`).";
const TOKENIZER_L1 =
  "Sizes SMG's L1 prefix cache of the gateway-side tokenizer; Switchyard's tokenizers have the L0 exact-match cache only, so encodings are the same and only their cost differs.";
const MULTIMODAL =
  "Tensor transport of SMG's gRPC multimodal pipeline; HTTP workers receive images inside the request body.";
const JOB_QUEUE =
  "Sizes SMG's control-plane job queue; Switchyard has no bounded job queue to size.";
const BODY_STREAMING =
  'Switchyard buffers every request body up to `--max-payload-size`, as SMG does at its default `--stream-request-bodies-over 0`.';

/** `--cache-boundaries 128,512`: SMG's `Vec<usize>` with `value_delimiter = ','`. */
function commaSeparatedUnsigned(value: string): string | undefined {
  return value.split(',').every((part) => /^\+?\d+$/.test(part.trim()))
    ? undefined
    : 'expects comma-separated non-negative integers';
}

function finiteNumber(value: string): string | undefined {
  return value.trim() !== '' && Number.isFinite(Number(value)) ? undefined : 'expects numbers';
}

export const NO_EFFECT_FLAGS: readonly NoEffectFlag[] = [
  // Routing (main.rs:330-545)
  noEffect('overlap-decay', 'float', 'Event-driven anti-hotspot decay', EVENT_ROUTING, {
    default: 0,
  }),
  noEffect(
    'selection-temperature',
    'float',
    'Softmax temperature over event-driven cache scores',
    EVENT_ROUTING,
    { default: 0 },
  ),
  noEffect(
    'block-size',
    'int',
    'Token-tree page / KV block size',
    "Page size of SMG's token tree; Switchyard's cache tree counts characters, so there is no page to size.",
    { default: 16, check: u64 },
  ),
  noEffect('cache-boundaries', 'append', 'Prefix-hash boundaries (comma-separated)', HASH_INDEX, {
    check: commaSeparatedUnsigned,
  }),
  noEffect('cache-index', 'enum', 'cache_aware index: tree or hash', HASH_INDEX, {
    default: 'tree',
    choices: ['tree', 'hash'],
  }),
  noEffect('cache-ttl-secs', 'int', 'Hash-index placement TTL', HASH_INDEX, {
    default: 180,
    check: unsignedRule(Number.MAX_SAFE_INTEGER, 1),
  }),
  noEffect('kv-indexer-ttl-secs', 'int', 'Event-driven KV index entry TTL', EVENT_ROUTING, {
    check: u64,
  }),
  noEffect('kv-indexer-max-entries', 'int', 'Event-driven KV index size cap', EVENT_ROUTING, {
    check: u64,
  }),
  noEffect(
    'dp-minimum-tokens-scheduler',
    'bool',
    'DP minimum-tokens scheduler',
    'SMG stores it in its router config (config/types.rs:154) but no router reads it.',
  ),
  // Server and workers (main.rs:499-515, 1103)
  noEffect('job-queue-capacity', 'int', 'Control-plane job queue size', JOB_QUEUE, {
    default: 1000,
    check: unsignedRule(1_000_000, 1),
  }),
  noEffect('job-queue-concurrency', 'int', 'Control-plane jobs run at once', JOB_QUEUE, {
    default: 200,
    check: unsignedRule(100_000, 1),
  }),
  noEffect(
    'zmq-engine-count',
    'int',
    'DP engines per ZMQ worker',
    'Applies to `ipc://` (ZMQ) workers only; Switchyard takes `http://` and `https://` workers.',
    { check: unsignedRule(Number.MAX_SAFE_INTEGER, 1) },
  ),
  noEffect(
    'upstream-http2',
    'bool',
    'HTTP/2 (h2c) to workers',
    'Switchyard speaks HTTP/1.1 with keep-alive pools to workers, which SGLang, vLLM and TokenSpeed serve.',
  ),
  noEffect(
    'runtime-worker-threads',
    'int',
    'Async runtime threads',
    "Sizes tokio's thread pool; Node.js serves requests on one event loop.",
    { check: u64 },
  ),
  // Logging and metrics (main.rs:616, 637)
  noEffect(
    'log-dir',
    'string',
    'Log file directory',
    'Switchyard logs to stderr only (JSON lines with `--log-json`); collect logs there.',
  ),
  noEffect(
    'prometheus-duration-buckets',
    'list',
    'Custom duration histogram buckets',
    "Switchyard's duration histograms use SMG's default buckets (docs/metrics.md, Histogram buckets).",
    { check: finiteNumber },
  ),
  // Tokenizer L1 cache and multimodal (main.rs:551-556, 873-877); the other tokenizer flags
  // are implemented (flags-tokenizer.ts).
  noEffect('tokenizer-cache-enable-l1', 'bool', 'Prefix tokenizer cache', TOKENIZER_L1),
  noEffect('tokenizer-cache-l1-max-memory', 'int', 'L1 cache bytes', TOKENIZER_L1, {
    default: 52428800,
    check: u64,
  }),
  noEffect('multimodal-tensor-transport', 'enum', 'Multimodal tensor transport', MULTIMODAL, {
    choices: ['inline', 'shm', 'auto', 'rdma'],
  }),
  noEffect('multimodal-shm-min-bytes', 'int', 'Smallest tensor sent over shm', MULTIMODAL, {
    check: u64,
  }),
  // Request handling (main.rs:691-699)
  noEffect(
    'stream-request-bodies-over',
    'int',
    'Raw-stream bodies larger than this',
    BODY_STREAMING,
    { default: 0, check: u64 },
  ),
  noEffect(
    'stream-body-stall-timeout-secs',
    'int',
    'Stall timeout of a streamed body',
    `Applies only to bodies streamed by \`--stream-request-bodies-over\`. ${BODY_STREAMING}`,
    { default: 300, check: u64 },
  ),
  // Backends (main.rs:895-899): the local runtimes change nothing, the others are refused.
  noEffect(
    'backend',
    'enum',
    'Worker runtime or cloud provider',
    'Switchyard detects the runtime of each worker (SGLang, vLLM, TokenSpeed) when it registers.',
    {
      aliases: ['runtime'],
      choices: ['sglang', 'vllm', 'trtllm', 'tokenspeed', 'openai', 'anthropic', 'gemini'],
      unsupportedValues: {
        values: ['trtllm', 'openai', 'anthropic', 'gemini'],
        subsystem: 'this backend',
      },
    },
  ),
  // Control-plane auth (main.rs:1056)
  noEffect(
    'disable-audit-logging',
    'bool',
    'No control-plane audit log',
    'Switchyard writes no control-plane audit log, which is what the flag asks for.',
  ),
];
