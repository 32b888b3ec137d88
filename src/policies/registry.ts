/**
 * One policy instance per model (and per leg in PD), as SMG: the first worker registered for a
 * model fixes its policy; the mapping is dropped when the model's last worker leaves.
 */
import type { Logger } from '../observability/logger.js';
import type { GatewayMetrics } from '../observability/metrics.js';
import type { Clock } from '@switchyard/kit';
import type { Random } from '@switchyard/kit';
import type { WorkerRegistry } from '../workers/registry.js';
import type { Worker } from '../workers/worker.js';
import type { PolicyName } from './names.js';
import { policyConfigFrom, type PolicyConfig, type PolicyFlags } from './policy-config.js';
import type { Policy } from './policy.js';
import { CacheAwarePolicy } from './cache-aware.js';
import { ConsistentHashingPolicy } from './consistent-hashing.js';
import { DEFAULT_LEAST_LOAD_PARAMS } from './least-load-scorer.js';
import { LeastLoadPolicy } from './least-load.js';
import { ManualPolicy } from './manual.js';
import { PassthroughPolicy } from './passthrough.js';
import { PowerOfTwoPolicy } from './power-of-two.js';
import { PrefixHashPolicy } from './prefix-hash.js';
import { RandomPolicy } from './random.js';
import { RoundRobinPolicy } from './round-robin.js';
import { withStickyOverride } from './sticky-override.js';

export interface PolicyDeps {
  random: Random;
  clock: Clock;
  metrics: GatewayMetrics;
  config: PolicyConfig;
  /** For policies that warn about their setup (passthrough with several workers). */
  logger?: Logger | undefined;
  /**
   * `--routing-key-override`: wrap every policy but manual (already sticky by key) with the
   * sticky map (sticky-override.ts). Off when absent.
   */
  stickyOverride?: boolean | undefined;
}

/** The gateway's shared parts a policy may use; its knobs come from the config. */
export type PolicyServices = Pick<PolicyDeps, 'random' | 'clock' | 'metrics' | 'logger'>;

/** The policy knobs and `--routing-key-override`, with the shared parts: what every registry gets. */
export function policyDepsFromConfig(
  c: PolicyFlags & { routingKeyOverride: boolean },
  services: PolicyServices,
): PolicyDeps {
  return { ...services, config: policyConfigFrom(c), stickyOverride: c.routingKeyOverride };
}

/** A model's policy, wrapped for `--routing-key-override` when `deps.stickyOverride` is set. */
export function createPolicy(name: PolicyName, model: string, deps: PolicyDeps): Policy {
  const policy = createBasePolicy(name, model, deps);
  return deps.stickyOverride === true && name !== 'manual'
    ? withStickyOverride(policy, deps)
    : policy;
}

function createBasePolicy(name: PolicyName, model: string, deps: PolicyDeps): Policy {
  const { config, random, metrics } = deps;
  switch (name) {
    case 'random':
      return new RandomPolicy(random);
    case 'round_robin':
      return new RoundRobinPolicy();
    case 'passthrough':
      return new PassthroughPolicy((workers) =>
        deps.logger?.warn(
          { model, workers },
          'passthrough policy is meant for one worker; only the first available worker of the model receives traffic',
        ),
      );
    case 'cache_aware':
      return new CacheAwarePolicy(model, deps);
    case 'power_of_two':
      return new PowerOfTwoPolicy(random);
    case 'least_load':
      return new LeastLoadPolicy(
        {
          ...DEFAULT_LEAST_LOAD_PARAMS,
          kvPressureWeight: config.leastLoadKvPressureWeight,
          defaultThroughput: config.leastLoadDefaultThroughput,
          meanPrefillTokens: config.leastLoadMeanPrefillTokens,
          maxWaitingRequests: config.leastLoadMaxWaitingRequests,
        },
        random,
      );
    case 'prefix_hash':
      return new PrefixHashPolicy(config, metrics);
    case 'consistent_hashing':
      return new ConsistentHashingPolicy(random, metrics);
    case 'manual':
      return new ManualPolicy(deps);
  }
}

/** Key of the policy shared by every model that no registered worker names. */
const WILDCARD = '\u0000any-model';

export class PolicyRegistry {
  readonly #byModel = new Map<string, Policy>();

  constructor(
    private readonly defaultPolicy: PolicyName,
    private readonly deps: PolicyDeps,
    private readonly workers: WorkerRegistry,
  ) {
    workers.on('added', (w) => this.#onAdded(w));
    workers.on('removed', (w) => this.#onRemoved(w));
  }

  /**
   * The model's policy. Models no worker announces (served by wildcard workers) share one
   * policy, so client-chosen model names cannot grow policy state without bound.
   */
  forModel(model: string): Policy {
    const key = this.#byModel.has(model) || this.workers.hasModelId(model) ? model : WILDCARD;
    let policy = this.#byModel.get(key);
    if (!policy) {
      policy = createPolicy(this.defaultPolicy, key, this.deps);
      this.#byModel.set(key, policy);
    }
    return policy;
  }

  close(): void {
    for (const policy of this.#byModel.values()) policy.close?.();
    this.#byModel.clear();
  }

  #onAdded(worker: Worker): void {
    this.forModel(worker.modelId);
  }

  #onRemoved(worker: Worker): void {
    for (const policy of this.#byModel.values()) policy.onWorkerRemoved?.(worker);
    const model = worker.modelId;
    if (!this.workers.hasModelId(model)) {
      this.#byModel.get(model)?.close?.();
      this.#byModel.delete(model);
    }
  }
}
