/**
 * Micro-benchmarks for routing policies: radix-tree insert and match on short and 4 KB prompts
 * with shared prefixes, and the routing step of one request per policy at 4, 1,000 and 2,000
 * workers: the registry's candidates for the model, `select`, and the load lease taken and
 * released (the lease moves the registry's min-load index that cache_aware reads).
 *
 *   node --import tsx bench/micro/policies.bench.ts            (about 30 s)
 *   node --import tsx bench/micro/policies.bench.ts 'radix'    (only benches matching a regex)
 *   node --import tsx bench/micro/policies.bench.ts '^(?!match|insert)'   (only the routing groups)
 *
 * Compare rows within one run; absolute numbers move with the machine.
 */
import { bench, do_not_optimize, group, run, summary } from 'mitata';
import { GatewayMetrics } from '../../src/observability/metrics.js';
import { POLICY_NAMES } from '../../src/policies/names.js';
import type { Policy, SelectInfo } from '../../src/policies/policy.js';
import { DEFAULT_POLICY_CONFIG } from '../../src/policies/policy-config.js';
import { RadixTree } from '../../src/policies/radix-tree.js';
import { createPolicy } from '../../src/policies/registry.js';
import { seededRandom, systemClock } from '@switchyard/kit';
import { WorkerRegistry } from '../../src/workers/registry.js';
import { Worker } from '../../src/workers/worker.js';

const random = seededRandom(2024);
const clock = systemClock;

function words(n: number): string {
  const vocab = [
    'the',
    'model',
    'cache',
    'prefix',
    'worker',
    'route',
    'token',
    'gateway',
    'request',
    'answer',
  ];
  let out = '';
  for (let i = 0; i < n; i++) out += `${vocab[Math.floor(random.next() * vocab.length)] ?? ''} `;
  return out;
}

/** `count` prompts: one of `systems` shared system prompts, then a unique tail. */
function prompts(count: number, systemChars: number, tailChars: number, systems = 4): string[] {
  const heads = Array.from({ length: systems }, () => words(systemChars / 6).slice(0, systemChars));
  return Array.from(
    { length: count },
    (_, i) => `${heads[i % systems] ?? ''}${words(tailChars / 6).slice(0, tailChars)}`,
  );
}

const SHORT = prompts(2048, 64, 48); // ~112 chars
const LONG = prompts(512, 3584, 512); // 4 KB

function filledTree(pool: readonly string[], tenants: number): RadixTree {
  const tree = new RadixTree(clock);
  pool.forEach((p, i) => tree.insert(p, `http://w${i % tenants}:8000`));
  return tree;
}

group('radix tree (8 tenants)', () => {
  summary(() => {
    for (const [label, pool] of [
      ['short', SHORT],
      ['4KB', LONG],
    ] as const) {
      const tree = filledTree(pool, 8);
      let i = 0;
      bench(`match ${label}`, () => do_not_optimize(tree.match(pool[i++ % pool.length] ?? '')));
      bench(`insert ${label} (known prefix, refresh)`, () =>
        tree.insert(pool[i++ % pool.length] ?? '', `http://w${i % 8}:8000`),
      );
      const novel = prompts(4096, label === 'short' ? 64 : 3584, label === 'short' ? 48 : 512);
      bench(`insert ${label} (new tail)`, () =>
        tree.insert(novel[i++ % novel.length] ?? '', `http://w${i % 8}:8000`),
      );
    }
  });
});

/** A registry of `n` ready workers serving model `m`, with engine reports. */
function fleet(n: number): WorkerRegistry {
  const registry = new WorkerRegistry(new GatewayMetrics());
  for (let i = 0; i < n; i++) {
    const url = `http://10.0.${i >> 8}.${i & 255}:8000`;
    const w = new Worker({
      id: registry.reserveId(url),
      url,
      type: 'regular',
      runtime: 'sglang',
      models: ['m'],
      labels: {},
      priority: 50,
      cost: 1,
      spec: { url },
    });
    registry.add(w);
    registry.setStatus(w, 'ready');
    // Engine reports so least_load / power_of_two take their full scoring path.
    w.loadSnapshot = {
      receivedAt: 0,
      ranks: [
        {
          dpRank: 0,
          runningReqs: i % 7,
          waitingReqs: i % 3,
          waitingUncachedTokens: (i % 5) * 300,
          usedTokens: 0,
          maxTotalTokens: 0,
          tokenUsage: (i % 10) / 20,
          genThroughput: 1500 + (i % 4) * 250,
          cacheHitRate: 0,
          maxRunningRequests: 0,
        },
      ],
    };
  }
  return registry;
}

/** Requests as the router builds them: 4 KB chat prompts and a session key from 1000 users. */
const INFOS: SelectInfo[] = LONG.map((text, i) => ({
  model: 'm',
  headers: {},
  leg: 'single',
  text,
  routingKey: `user-${i % 1000}`,
  targetWorker: undefined,
  tokens: undefined,
  rid: undefined,
}));

const metrics = new GatewayMetrics();
const deps = {
  random,
  clock,
  metrics,
  config: { ...DEFAULT_POLICY_CONFIG, evictionIntervalSecs: 0 },
};
const opened: Policy[] = [];

/** One request's routing step: candidates, selection, and the lease the router would take. */
function route(registry: WorkerRegistry, policy: Policy, info: SelectInfo): Worker | undefined {
  const set = registry.candidateSet(registry.forModel('m', 'regular'));
  const worker = policy.select(set, info);
  worker?.acquireLoad().release();
  return worker;
}

for (const n of [4, 1000, 2000]) {
  group(`route, ${n} workers`, () => {
    summary(() => {
      const registry = fleet(n);
      for (const name of POLICY_NAMES) {
        const policy = createPolicy(name, 'm', deps);
        opened.push(policy);
        let i = 0;
        bench(name, () =>
          do_not_optimize(route(registry, policy, INFOS[i++ % INFOS.length] as SelectInfo)),
        );
      }
      const sticky = createPolicy('cache_aware', 'm', { ...deps, stickyOverride: true });
      opened.push(sticky);
      let j = 0;
      bench('cache_aware + routing-key-override (pinned sessions)', () =>
        do_not_optimize(route(registry, sticky, INFOS[j++ % INFOS.length] as SelectInfo)),
      );
    });
  });
}

const filter = process.argv[2];
await run(filter === undefined ? {} : { filter: new RegExp(filter) });
for (const p of opened) p.close?.();
