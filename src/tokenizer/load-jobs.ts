/**
 * The background loads of `POST /v1/tokenizers` and of the startup tokenizer, with the job
 * statuses `GET /v1/tokenizers/{id}/status` reports: SMG's `AddTokenizer` job (`job_queue.rs`,
 * `workflow/tokenizer_registration.rs`). A job is `pending` in the queue, `processing` while it
 * loads, and on success its status is dropped (the catalog entry answers from then on); a failed
 * job keeps its message for 5 minutes, as SMG's status TTL.
 *
 * Sources are local only: a directory holding `tokenizer.json` (or that file itself), read by
 * the same loader gRPC workers use. There is no hub download at run time, so a Hugging Face id
 * that is not a local path fails its job at once, saying so. Loads run one at a time: building
 * a tokenizer parses its tokenizer.json on the event loop (about 0.6 s for Qwen3), and a burst
 * of them at once would stall every request the gateway is serving.
 */
import { stat } from 'node:fs/promises';
import type { Clock } from '@switchyard/kit';
import type { GatewayConfig } from '../config/schema.js';
import type { Logger } from '../observability/logger.js';
import { uuidv7 } from '../util/uuid7.js';
import type { TokenizerCatalog } from './catalog.js';
import type { TokenizerLoadOptions } from './load-dir.js';
import type { ModelTokenizer } from './types.js';

/** Jobs waiting or running at once, SMG's job-queue capacity; one more is `503`. */
export const LOAD_QUEUE_CAPACITY = 1000;
/** How long a failed job's status stays readable (SMG: `STATUS_TTL`, 300 s). */
export const FAILED_STATUS_TTL_MS = 5 * 60_000;

export type JobState = 'pending' | 'processing' | 'failed';

export interface JobStatus {
  readonly status: JobState;
  /** The failure, for a failed job; SMG leaves it unset while the job waits or runs. */
  readonly message: string | undefined;
  /** `clock.now()` when the job entered this state. */
  readonly at: number;
}

export interface LoadRequest {
  name: string;
  source: string;
  chatTemplatePath?: string | undefined;
  /** SMG caches the startup tokenizer's encodings (the L0 flags) but not the API's. */
  l0?: { enabled: boolean; maxEntries: number } | undefined;
  /**
   * API jobs fail when the name is taken by the time they run; the startup job then just
   * finishes (SMG's `fail_on_duplicate`).
   */
  failOnDuplicate: boolean;
}

export type Submitted =
  | { readonly kind: 'queued'; readonly id: string }
  | { readonly kind: 'duplicate'; readonly id: string }
  | { readonly kind: 'full'; readonly message: string };

export interface TokenizerLoadDeps {
  catalog: TokenizerCatalog;
  /** `loadTokenizerDir` (the loader gRPC workers use; tests inject a fake). */
  loadDir: (dir: string, opts: TokenizerLoadOptions) => Promise<ModelTokenizer>;
  clock: Clock;
  logger: Logger;
  /** The `--tokenizer-path` / `--model-path` source loaded by `start()`, if any. */
  startup?: Omit<LoadRequest, 'name' | 'source' | 'failOnDuplicate'> & { source: string };
  /** Whether the source is a local path (tests inject one). */
  isLocalPath?: (path: string) => Promise<boolean>;
  capacity?: number;
}

const exists = (path: string): Promise<boolean> =>
  stat(path).then(
    () => true,
    () => false,
  );

interface Queued {
  readonly id: string;
  readonly req: LoadRequest;
}

export class TokenizerLoadJobs {
  readonly #deps: TokenizerLoadDeps;
  readonly #isLocalPath: (path: string) => Promise<boolean>;
  readonly #capacity: number;
  readonly #statuses = new Map<string, JobStatus>();
  readonly #queue: Queued[] = [];
  #running: Promise<void> | undefined;
  #closed = false;

  constructor(deps: TokenizerLoadDeps) {
    this.#deps = deps;
    this.#isLocalPath = deps.isLocalPath ?? exists;
    this.#capacity = deps.capacity ?? LOAD_QUEUE_CAPACITY;
  }

  /**
   * Queues the startup tokenizer, registered under its source string as SMG does
   * (`server.rs` startup job), before the startup workers register.
   */
  start(): void {
    const startup = this.#deps.startup;
    if (startup === undefined) return;
    this.#deps.logger.info({ source: startup.source }, 'loading the startup tokenizer');
    this.submit({ ...startup, name: startup.source, failOnDuplicate: false });
  }

  /**
   * Queues a load. A name already loaded is `duplicate` with that entry's id (SMG's 409); a
   * full queue is `full` (SMG's 503).
   */
  submit(req: LoadRequest): Submitted {
    const existing = this.#deps.catalog.byName(req.name);
    if (existing !== undefined) return { kind: 'duplicate', id: existing.id };
    if (this.#closed || this.#queue.length >= this.#capacity) {
      const message = this.#closed
        ? 'Job queue shutting down'
        : `Job queue full: ${this.#queue.length} jobs pending (capacity: ${this.#capacity})`;
      return { kind: 'full', message };
    }
    const id = uuidv7();
    this.#setStatus(id, 'pending', undefined);
    this.#queue.push({ id, req });
    // Started on a later turn, so the job is seen `pending` before it is picked up, as in SMG.
    this.#running ??= Promise.resolve().then(() => this.#drain());
    return { kind: 'queued', id };
  }

  /** The job's status while it waits, runs, or after it failed; undefined otherwise. */
  status(id: string): JobStatus | undefined {
    this.#expire();
    return this.#statuses.get(id);
  }

  /** Resolves once the queue is empty (tests). */
  async idle(): Promise<void> {
    while (this.#running !== undefined) await this.#running;
  }

  /** Drops queued jobs; a load already reading its files finishes but is not registered. */
  close(): void {
    this.#closed = true;
    this.#queue.length = 0;
  }

  async #drain(): Promise<void> {
    try {
      for (let job = this.#queue.shift(); job !== undefined; job = this.#queue.shift()) {
        this.#setStatus(job.id, 'processing', undefined);
        const failure = await this.#run(job).catch((err: unknown) => messageOf(err));
        if (failure === undefined) {
          this.#statuses.delete(job.id);
        } else {
          this.#setStatus(job.id, 'failed', failure);
          this.#deps.logger.error(
            { tokenizer: job.req.name, id: job.id, source: job.req.source, err: failure },
            'tokenizer load failed',
          );
        }
      }
    } finally {
      this.#running = undefined;
    }
  }

  /** Loads one job's tokenizer; the failure message, or undefined once it is registered. */
  async #run({ id, req }: Queued): Promise<string | undefined> {
    const { catalog } = this.#deps;
    // SMG's `LoadError` checks, in its order.
    if (req.name === '') return 'tokenizer name cannot be empty';
    if (req.source === '') return 'tokenizer source cannot be empty';
    const taken = (): string | undefined => {
      const entry = catalog.byName(req.name);
      if (entry === undefined || !req.failOnDuplicate) return undefined;
      return `Tokenizer '${req.name}' already exists (id: ${entry.id})`;
    };
    if (catalog.has(req.name)) return taken();
    if (!(await this.#isLocalPath(req.source))) {
      return (
        `Failed to load tokenizer '${req.name}': source '${req.source}' is not a local path. ` +
        'Switchyard does not download tokenizers from the Hugging Face hub at run time; give a ' +
        'directory holding tokenizer.json (or the tokenizer.json file itself)'
      );
    }
    let tok: ModelTokenizer;
    try {
      tok = await this.#deps.loadDir(req.source, {
        modelId: req.name,
        source: req.source,
        chatTemplatePath: req.chatTemplatePath,
        l0: req.l0 ?? { enabled: false, maxEntries: 0 },
      });
    } catch (err) {
      return `Failed to load tokenizer '${req.name}' from ${req.source}: ${messageOf(err)}`;
    }
    // Shutting down: nobody will read the entry or the status.
    if (this.#closed) return undefined;
    // Another path (a gRPC worker's registration) may have taken the name while this loaded.
    if (!catalog.add(id, tok)) return taken();
    this.#deps.logger.info(
      { tokenizer: req.name, id, source: req.source, vocab_size: tok.baseVocabSize },
      'tokenizer loaded',
    );
    return undefined;
  }

  #setStatus(id: string, status: JobState, message: string | undefined): void {
    this.#statuses.delete(id);
    this.#statuses.set(id, { status, message, at: this.#deps.clock.now() });
    if (status !== 'failed') return;
    this.#expire();
    // Failed statuses are bounded like the queue: a flood of failing jobs evicts the oldest.
    for (const [key, s] of this.#statuses) {
      if (this.#statuses.size <= this.#capacity) break;
      if (s.status === 'failed') this.#statuses.delete(key);
    }
  }

  #expire(): void {
    const now = this.#deps.clock.now();
    for (const [key, s] of this.#statuses) {
      if (s.status === 'failed' && now - s.at >= FAILED_STATUS_TTL_MS) this.#statuses.delete(key);
    }
  }
}

/** The tokenizer flags of `switchyard launch`: where tokenizers come from and how they cache. */
export type TokenizerFlags = Pick<
  GatewayConfig,
  | 'disableTokenizerAutoload'
  | 'tokenizerPath'
  | 'modelPath'
  | 'chatTemplate'
  | 'tokenizerCacheEnableL0'
  | 'tokenizerCacheL0MaxEntries'
>;

/**
 * The startup source is `--tokenizer-path`, else `--model-path`, unless
 * `--disable-tokenizer-autoload` (SMG's `server.rs` startup job); it gets `--chat-template` and
 * the L0 cache flags.
 */
export function tokenizerLoadsFromConfig(
  c: TokenizerFlags,
  deps: Omit<TokenizerLoadDeps, 'startup'>,
): TokenizerLoadJobs {
  const source = c.disableTokenizerAutoload ? undefined : (c.tokenizerPath ?? c.modelPath);
  return new TokenizerLoadJobs({
    ...deps,
    ...(source === undefined
      ? {}
      : {
          startup: {
            source,
            chatTemplatePath: c.chatTemplate,
            l0: { enabled: c.tokenizerCacheEnableL0, maxEntries: c.tokenizerCacheL0MaxEntries },
          },
        }),
  });
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
