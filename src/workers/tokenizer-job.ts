/**
 * SMG's tokenizer registration job (`SubmitTokenizerJobStep` + `tokenizer_registration.rs`),
 * fired when a gRPC worker becomes active (never for HTTP workers, nor with
 * `--disable-tokenizer-autoload`). The source is, in order, the worker's `tokenizer_path` label,
 * its `model_path` label, `--tokenizer-path`, then `--model-path` (a label beats the flag, as
 * SMG). A source that is a local directory is loaded; otherwise, or when it fails, the bundle
 * is fetched with `GetTokenizer` from the model's healthy gRPC workers in turn. There is no hub
 * download at run time: an HF id that is not a local directory goes straight to the workers,
 * and the log says so. The registry dedupes by model, so a second worker of the same model
 * reuses the entry. A failure is logged naming every worker tried and leaves the model
 * unregistered (readiness stays 503); nothing throws out of `submit`.
 */
import { stat } from 'node:fs/promises';
import type { TokenizerFlags } from '../tokenizer/load-jobs.js';
import { EngineCallError } from '../engine/types.js';
import type { Logger } from '../observability/logger.js';
import type { ModelTokenizer } from '../tokenizer/types.js';
import type { EngineClients } from './engine-clients.js';
import type { WorkerRegistry } from './registry.js';
import type {
  TokenizerLoaders,
  TokenizerLoadOptions,
  TokenizerRegistryLike,
} from './tokenizer-source.js';
import type { Worker } from './worker.js';

/** SMG's `GetTokenizer` deadline: the handshake plus the whole stream. */
export const GET_TOKENIZER_TIMEOUT_MS = 120_000;
/** grpc-js `status.UNIMPLEMENTED`: a runtime without `GetTokenizer`; the next worker is tried. */
const GRPC_UNIMPLEMENTED = 12;

export interface TokenizerJobConfig {
  tokenizerPath?: string | undefined;
  modelPath?: string | undefined;
  chatTemplate?: string | undefined;
  l0: { enabled: boolean; maxEntries: number };
}

export interface TokenizerJobDeps {
  tokenizers: TokenizerRegistryLike;
  loaders: TokenizerLoaders;
  registry: WorkerRegistry;
  clients: EngineClients;
  logger: Logger;
  /** Whether `path` is a local directory (tests inject one). */
  isDirectory?: (path: string) => Promise<boolean>;
}

/** The job, or undefined under `--disable-tokenizer-autoload`. */
export function tokenizerJobFromConfig(
  c: TokenizerFlags,
  deps: TokenizerJobDeps,
): TokenizerJob | undefined {
  if (c.disableTokenizerAutoload) return undefined;
  return new TokenizerJob(
    {
      tokenizerPath: c.tokenizerPath,
      modelPath: c.modelPath,
      chatTemplate: c.chatTemplate,
      l0: { enabled: c.tokenizerCacheEnableL0, maxEntries: c.tokenizerCacheL0MaxEntries },
    },
    deps,
  );
}

const localDirectory = async (path: string): Promise<boolean> =>
  stat(path).then(
    (s) => s.isDirectory(),
    () => false,
  );

export class TokenizerJob {
  readonly #isDirectory: (path: string) => Promise<boolean>;

  constructor(
    private readonly config: TokenizerJobConfig,
    private readonly deps: TokenizerJobDeps,
  ) {
    this.#isDirectory = deps.isDirectory ?? localDirectory;
  }

  /**
   * The source for a worker's model: label `tokenizer_path`, label `model_path`,
   * `--tokenizer-path`, `--model-path`; undefined when none names one.
   */
  sourceFor(worker: Pick<Worker, 'labels'>): string | undefined {
    return (
      worker.labels.tokenizer_path ??
      worker.labels.model_path ??
      this.config.tokenizerPath ??
      this.config.modelPath
    );
  }

  /**
   * Registers the tokenizer of a gRPC worker's model, in the background. Resolves when the
   * model has a tokenizer or the attempt failed (logged); never rejects.
   */
  async submit(worker: Worker): Promise<void> {
    if (worker.connectionMode !== 'grpc') return;
    const modelId = worker.modelId;
    const { tokenizers, logger } = this.deps;
    if (tokenizers.has(modelId)) return;
    const source = this.sourceFor(worker);
    try {
      // The registry logs the registration once; every worker of the model joins the same entry.
      await tokenizers.register(modelId, (signal) => this.#load(modelId, source, worker, signal));
    } catch (err) {
      logger.error(
        { model: modelId, worker: worker.url, err: (err as Error).message },
        'tokenizer registration failed',
      );
    }
  }

  /** `signal`: the registry's, fired at its 5 min cap or at shutdown; it cancels GetTokenizer. */
  async #load(
    modelId: string,
    source: string | undefined,
    worker: Worker,
    signal: AbortSignal,
  ): Promise<ModelTokenizer> {
    const opts: TokenizerLoadOptions = {
      modelId,
      source,
      chatTemplatePath: this.config.chatTemplate,
      l0: this.config.l0,
    };
    const failures: string[] = [];
    if (source !== undefined) {
      if (await this.#isDirectory(source)) {
        try {
          return await this.deps.loaders.loadDir(source, opts);
        } catch (err) {
          failures.push(`local directory ${source}: ${(err as Error).message}`);
        }
      } else {
        // SMG would try the HF hub here; Switchyard never downloads at run time.
        this.deps.logger.info(
          { model: modelId, source },
          'tokenizer source is not a local directory; no hub download is attempted, fetching it from the workers with GetTokenizer',
        );
        failures.push(`${source} is not a local directory (no hub download)`);
      }
    }
    return this.#fromWorkers(modelId, opts, failures, worker, signal);
  }

  /** GetTokenizer from each healthy gRPC worker of the model in turn (one call per engine). */
  async #fromWorkers(
    modelId: string,
    opts: TokenizerLoadOptions,
    failures: string[],
    trigger: Worker,
    signal: AbortSignal,
  ): Promise<ModelTokenizer> {
    const urls = new Map<string, Worker>();
    for (const w of this.deps.registry.all()) {
      if (w.connectionMode === 'grpc' && w.isHealthy && w.modelId === modelId && !urls.has(w.url))
        urls.set(w.url, w);
    }
    if (urls.size === 0) failures.push(`no healthy gRPC worker of the model (${trigger.url} left)`);
    for (const [url, w] of urls) {
      if (signal.aborted) break;
      try {
        const bundle = await this.deps.clients
          .get(w)
          .getTokenizer(GET_TOKENIZER_TIMEOUT_MS, signal);
        return await this.deps.loaders.loadBundle(bundle, { ...opts, origin: `worker:${url}` });
      } catch (err) {
        if (err instanceof EngineCallError && err.code === GRPC_UNIMPLEMENTED) {
          this.deps.logger.debug({ worker: url, model: modelId }, 'GetTokenizer unimplemented');
          failures.push(`worker ${url}: GetTokenizer is unimplemented`);
        } else {
          failures.push(`worker ${url}: ${(err as Error).message}`);
        }
      }
    }
    throw new Error(`No tokenizer for model ${modelId}: ${failures.join('; ')}`);
  }
}

/**
 * SMG's readiness gate: every healthy gRPC worker's model has a tokenizer. Always true when
 * there is no tokenizer registry to wait for (`--disable-tokenizer-autoload`).
 */
export function tokenizersReady(
  workers: readonly Worker[],
  tokenizers: Pick<TokenizerRegistryLike, 'has'> | undefined,
): boolean {
  if (!tokenizers) return true;
  return workers.every(
    (w) => w.connectionMode !== 'grpc' || !w.isHealthy || tokenizers.has(w.modelId),
  );
}
