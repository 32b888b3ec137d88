/**
 * Tokenizers by model id. Registration follows SMG's tokenizer workflow
 * (`workflow/tokenizer_registration.rs`): one load per model however many workers serve it,
 * 3 attempts 2 s apart, 5 minutes overall, and the last failure kept for readiness and logs.
 */
import { sleep, type Clock } from '@switchyard/kit';
import type { Logger } from '../observability/logger.js';
import { TokenizerLoadError } from './errors.js';
import type { ModelTokenizer } from './types.js';

export const REGISTER_ATTEMPTS = 3;
export const REGISTER_BACKOFF_MS = 2_000;
export const REGISTER_TIMEOUT_MS = 5 * 60_000;

/** Loads one model's tokenizer; the signal aborts when the overall timeout or close() hits. */
export type TokenizerLoader = (signal: AbortSignal) => Promise<ModelTokenizer>;

interface Loading {
  readonly promise: Promise<ModelTokenizer>;
  readonly controller: AbortController;
}

export class TokenizerRegistry {
  readonly #clock: Clock;
  readonly #logger: Logger | undefined;
  readonly #ready = new Map<string, ModelTokenizer>();
  readonly #loading = new Map<string, Loading>();
  readonly #failures = new Map<string, string>();
  readonly #listeners = new Set<(modelId: string) => void>();
  #closed = false;

  constructor(deps: { clock: Clock; logger?: Logger | undefined }) {
    this.#clock = deps.clock;
    this.#logger = deps.logger;
  }

  get(modelId: string): ModelTokenizer | undefined {
    return this.#ready.get(modelId);
  }

  has(modelId: string): boolean {
    return this.#ready.has(modelId);
  }

  /** Model ids with a ready tokenizer, in registration order. */
  models(): string[] {
    return [...this.#ready.keys()];
  }

  /** The message of the model's last failed registration, until one succeeds. */
  failure(modelId: string): string | undefined {
    return this.#failures.get(modelId);
  }

  loading(modelId: string): boolean {
    return this.#loading.has(modelId);
  }

  /** Registers a tokenizer that is already loaded (`--tokenizer-path` at startup, tests). */
  set(tok: ModelTokenizer): void {
    this.#ready.set(tok.modelId, tok);
    this.#failures.delete(tok.modelId);
    this.#emit(tok.modelId);
  }

  /**
   * Drops a ready tokenizer (`DELETE /v1/tokenizers/{id}`); a load still running is not
   * stopped. Returns what was removed.
   */
  remove(modelId: string): ModelTokenizer | undefined {
    const tok = this.#ready.get(modelId);
    if (tok === undefined) return undefined;
    this.#ready.delete(modelId);
    this.#emit(modelId);
    return tok;
  }

  /**
   * Loads the model's tokenizer once. A call while a load is running, or after it succeeded,
   * gets the same result (a second worker of the model reuses the first one's tokenizer); a call
   * after a final failure starts again. The promise rejects with the last attempt's error.
   */
  register(modelId: string, load: TokenizerLoader): Promise<ModelTokenizer> {
    const ready = this.#ready.get(modelId);
    if (ready !== undefined) return Promise.resolve(ready);
    const running = this.#loading.get(modelId);
    if (running !== undefined) return running.promise;
    if (this.#closed) return Promise.reject(new TokenizerLoadError('tokenizer registry closed'));
    const controller = new AbortController();
    const promise = this.#attempts(modelId, load, controller).then(
      (tok) => this.#succeeded(modelId, tok),
      (err: unknown) => this.#failed(modelId, err),
    );
    // Registration is fire-and-forget for the worker workflow: a caller that drops the promise
    // must not turn a failed load into an unhandled rejection. The failure is recorded anyway.
    promise.catch(() => undefined);
    this.#loading.set(modelId, { promise, controller });
    return promise;
  }

  /** Fired when a model's registration succeeds or finally fails; returns an unsubscribe. */
  onChange(listener: (modelId: string) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Stops every pending load and retry; later registrations are refused. */
  close(): void {
    this.#closed = true;
    for (const { controller } of this.#loading.values()) {
      controller.abort(new TokenizerLoadError('tokenizer registry closed'));
    }
  }

  async #attempts(
    modelId: string,
    load: TokenizerLoader,
    controller: AbortController,
  ): Promise<ModelTokenizer> {
    const signal = controller.signal;
    const deadline = this.#clock.setTimer(REGISTER_TIMEOUT_MS, () => controller.abort(timedOut()), {
      keepAlive: false,
    });
    try {
      for (let attempt = 1; ; attempt++) {
        try {
          return await untilAborted(load(signal), signal);
        } catch (err) {
          if (signal.aborted || attempt >= REGISTER_ATTEMPTS)
            throw signal.aborted ? signal.reason : err;
          this.#logger?.warn(
            { model_id: modelId, attempt, error: messageOf(err) },
            'tokenizer load failed, retrying',
          );
          await sleep(REGISTER_BACKOFF_MS, signal, this.#clock);
        }
      }
    } finally {
      this.#clock.clearTimer(deadline);
    }
  }

  #succeeded(modelId: string, tok: ModelTokenizer): ModelTokenizer {
    this.#loading.delete(modelId);
    // A tokenizer set() while this one loaded (an explicit path) is kept.
    const kept = this.#ready.get(modelId) ?? tok;
    this.#ready.set(modelId, kept);
    this.#failures.delete(modelId);
    this.#logger?.info({ model_id: modelId, source: kept.source }, 'tokenizer registered');
    this.#emit(modelId);
    return kept;
  }

  #failed(modelId: string, err: unknown): never {
    this.#loading.delete(modelId);
    if (!this.#closed) {
      const message = messageOf(err);
      this.#failures.set(modelId, message);
      this.#logger?.error({ model_id: modelId, error: message }, 'tokenizer registration failed');
      this.#emit(modelId);
    }
    throw err;
  }

  #emit(modelId: string): void {
    for (const listener of this.#listeners) {
      try {
        listener(modelId);
      } catch (err) {
        this.#logger?.error(
          { model_id: modelId, error: messageOf(err) },
          'tokenizer listener threw',
        );
      }
    }
  }
}

function timedOut(): TokenizerLoadError {
  return new TokenizerLoadError(
    `tokenizer registration timed out after ${REGISTER_TIMEOUT_MS / 1000} s`,
  );
}

/** The load's result, or the signal's reason as soon as it aborts (a load may ignore it). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
