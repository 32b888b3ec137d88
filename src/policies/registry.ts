/**
 * One policy instance per model, as SMG: the first worker registered for a model fixes its
 * policy; the mapping is dropped when the model's last worker leaves.
 */
import type { Random } from '../util/random.js';
import type { WorkerRegistry } from '../workers/registry.js';
import type { Worker } from '../workers/worker.js';
import type { PolicyName } from './names.js';
import type { Policy } from './policy.js';
import { RandomPolicy } from './random.js';
import { RoundRobinPolicy } from './round-robin.js';

export interface PolicyDeps {
  random: Random;
}

export function createPolicy(name: PolicyName, deps: PolicyDeps): Policy {
  switch (name) {
    case 'random':
      return new RandomPolicy(deps.random);
    case 'round_robin':
      return new RoundRobinPolicy();
  }
}

export class PolicyRegistry {
  readonly #byModel = new Map<string, Policy>();

  constructor(
    private readonly defaultPolicy: PolicyName,
    private readonly deps: PolicyDeps,
    private readonly workers: WorkerRegistry,
    /** Prefix that keeps leg-specific policies (prefill/decode) apart from regular ones. */
    private readonly scope = '',
  ) {
    workers.on('added', (w) => this.#onAdded(w));
    workers.on('removed', (w) => this.#onRemoved(w));
  }

  /** The model's policy; a model seen first at request time gets the default. */
  forModel(model: string): Policy {
    const key = this.scope + model;
    let policy = this.#byModel.get(key);
    if (!policy) {
      policy = createPolicy(this.defaultPolicy, this.deps);
      this.#byModel.set(key, policy);
    }
    return policy;
  }

  #onAdded(worker: Worker): void {
    this.forModel(worker.modelId);
  }

  #onRemoved(worker: Worker): void {
    for (const policy of this.#byModel.values()) policy.onWorkerRemoved?.(worker);
    const model = worker.modelId;
    if (!this.workers.all().some((w) => w.modelId === model)) this.#byModel.delete(this.scope + model);
  }
}
