// Fleet files: one process serving a mixed fleet (regular, prefill and decode workers, several
// runtimes and windows), as `switchyard sim --fleet FILE` and `switchyard demo` need. A spec is
// `{ basePort?, defaults?, workers: [{ count?, ...SimWorkerOptions }] }` in JSON or YAML.
import { readFile } from 'node:fs/promises';
import type { SimProtocol, SimRole, SimRuntime, SimWorker, SimWorkerOptions } from './options.js';
import { startSimWorker } from './start-worker.js';
import { resolveSimOptions } from './resolve-options.js';
import { parseYamlLite } from './yaml-lite.js';

/** One group of identical workers. */
export type SimFleetGroup = SimWorkerOptions & { count?: number };

export interface SimFleetSpec {
  /** Workers without a port take consecutive ports from here (0 or absent = ephemeral). */
  basePort?: number | undefined;
  /** Options every group starts from. */
  defaults?: SimWorkerOptions;
  workers: SimFleetGroup[];
}

/** A started fleet. */
export interface SimFleet {
  readonly workers: readonly SimWorker[];
  /** Workers of one PD role, in spec order. */
  byRole(role: SimRole): SimWorker[];
  close(): Promise<void>;
}

// Every SimWorkerOptions key, so that a typo in a fleet file is an error rather than a default.
const OPTION_KEYS: ReadonlySet<string> = new Set([
  'host',
  'port',
  'runtime',
  'protocol',
  'tokenizerDir',
  'eosTokenId',
  'answerText',
  'maxContextLength',
  'weightVersion',
  'tokenizerPathLabel',
  'defaultSamplingParamsJson',
  'model',
  'seed',
  'engine',
  'timeScale',
  'ttftMs',
  'itlMs',
  'outputTokens',
  'eosLength',
  'maxRunningRequests',
  'prefillTps',
  'prefillChunk',
  'decodeBaseMs',
  'decodePerReqMs',
  'kvTokens',
  'blockSize',
  'prefixCache',
  'role',
  'bootstrapPort',
  'bootstrapTimeoutSecs',
  'waitingTimeoutSecs',
  'kvConnector',
  'kvEngineId',
  'kvAbortTimeoutSecs',
  'dpSize',
  'tpSize',
  'workerName',
  'faults',
]);

/** Validates an untrusted spec (parsed JSON or YAML); throws with the offending path. */
export function parseFleetSpec(value: unknown): SimFleetSpec {
  const spec = object(value, 'fleet');
  for (const key of Object.keys(spec)) {
    if (!['basePort', 'defaults', 'workers'].includes(key))
      throw new TypeError(`fleet: unknown key '${key}'`);
  }
  const defaults =
    spec['defaults'] === undefined ? {} : options(spec['defaults'], 'defaults', false);
  const workers = spec['workers'];
  if (!Array.isArray(workers) || workers.length === 0) {
    throw new TypeError('fleet: workers must be a non-empty list');
  }
  const basePort = spec['basePort'];
  if (basePort !== undefined && (!Number.isInteger(basePort) || (basePort as number) < 0)) {
    throw new TypeError('fleet: basePort must be a port number');
  }
  const groups = workers.map((w, i) => options(w, `workers[${i}]`, true) as SimFleetGroup);
  // Resolve each group once now, so that a bad value fails before any worker starts.
  for (const g of groups) {
    const { count: _c, ...opts } = g;
    resolveSimOptions({ ...defaults, ...opts, port: 0 });
  }
  return { basePort: basePort as number | undefined, defaults, workers: groups };
}

/** Reads a fleet file: `.json` as JSON, `.yaml`/`.yml` as the YAML subset, else either. */
export async function loadSimFleetFile(path: string): Promise<SimFleetSpec> {
  const text = await readFile(path, 'utf8');
  if (/\.json$/i.test(path)) return parseFleetSpec(JSON.parse(text));
  if (/\.ya?ml$/i.test(path)) return parseFleetSpec(parseYamlLite(text));
  try {
    return parseFleetSpec(JSON.parse(text));
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    return parseFleetSpec(parseYamlLite(text));
  }
}

/**
 * Starts every worker of `spec`, groups in order. Ports: a group's `port` (or `bootstrapPort`)
 * is its first worker's, the next ones count up; groups without one take the next ports from
 * `basePort`. If any worker fails to start, the started ones are closed and the error rethrown.
 */
export async function startSimFleetFromSpec(input: SimFleetSpec): Promise<SimFleet> {
  const spec = parseFleetSpec(input);
  const workers: SimWorker[] = [];
  const roles: SimRole[] = [];
  let next = spec.basePort ?? 0;
  try {
    for (const group of spec.workers) {
      const { count = 1, ...own } = group;
      const opts = { ...spec.defaults, ...own };
      for (let i = 0; i < count; i++) {
        let port = 0;
        if (own.port !== undefined) port = own.port === 0 ? 0 : own.port + i;
        else if (next !== 0) port = next++;
        const bootstrap = opts.bootstrapPort;
        const w = await startSimWorker({
          ...opts,
          port,
          bootstrapPort: bootstrap === undefined || bootstrap === 0 ? bootstrap : bootstrap + i,
          workerName:
            opts.workerName === undefined || count === 1
              ? opts.workerName
              : `${opts.workerName}-${i}`,
        });
        workers.push(w);
        roles.push(w.role);
      }
    }
  } catch (err) {
    await Promise.all(workers.map((w) => w.close()));
    throw err;
  }
  return {
    workers,
    byRole: (role) => workers.filter((_, i) => roles[i] === role),
    close: async () => {
      await Promise.all(workers.map((w) => w.close()));
    },
  };
}

/** Shape of `switchyard demo`'s fleet. */
export interface SimDemoShape {
  /** Default 2. */
  regular?: number;
  /** Default 1. */
  prefill?: number;
  /** Default 1. */
  decode?: number;
  /** 'grpc': the workers serve the runtime's gRPC engine service (vLLM included). */
  protocol?: SimProtocol;
  runtime?: SimRuntime;
  engine?: 'canned' | 'realistic';
  model?: string;
  /** The decode workers' running window (`maxRunningRequests`); the engine's default when unset. */
  decodeWindow?: number;
}

/**
 * The demo fleet: by default 2 regular + 1 prefill + 1 decode SGLang-style workers on the
 * realistic engine, named `regular-N`, `prefill-N`, `decode-N`, all on ephemeral ports, over
 * HTTP or (`protocol: 'grpc'`) gRPC alike.
 */
export function simDemoFleetSpec(shape: SimDemoShape = {}): SimFleetSpec {
  const groups: SimFleetGroup[] = [];
  // vLLM hands KV over only through a connector; its PD pair uses NIXL (gRPC discovers it).
  const pd: SimFleetGroup = shape.runtime === 'vllm' ? { kvConnector: 'NixlConnector' } : {};
  const add = (role: SimRole, count: number, extra: SimFleetGroup = {}): void => {
    if (count > 0)
      groups.push({ ...extra, role, count, workerName: count === 1 ? `${role}-0` : role });
  };
  add('regular', shape.regular ?? 2);
  add('prefill', shape.prefill ?? 1, pd);
  add(
    'decode',
    shape.decode ?? 1,
    shape.decodeWindow === undefined ? pd : { ...pd, maxRunningRequests: shape.decodeWindow },
  );
  return {
    defaults: {
      ...(shape.protocol === undefined ? {} : { protocol: shape.protocol }),
      runtime: shape.runtime ?? 'sglang',
      engine: shape.engine ?? 'realistic',
      model: shape.model ?? 'sim-model',
    },
    workers: groups,
  };
}

function object(value: unknown, where: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TypeError(`fleet: ${where} must be an object`);
  }
  return value as Record<string, unknown>;
}

function options(value: unknown, where: string, allowCount: boolean): SimWorkerOptions {
  const o = object(value, where);
  for (const key of Object.keys(o)) {
    if (!OPTION_KEYS.has(key) && !(allowCount && key === 'count')) {
      throw new TypeError(`fleet: ${where}: unknown option '${key}'`);
    }
  }
  if (allowCount && o['count'] !== undefined) {
    const c = o['count'];
    if (!Number.isInteger(c) || (c as number) < 1)
      throw new TypeError(`fleet: ${where}.count must be >= 1`);
  }
  return o;
}
