// The deploy files are checked against the code they configure, so neither can drift from the
// other: the gateway Deployment's argv goes through the launch flag parser itself, its probes
// are sent to the probe server's own routes on --health-check-port, the Role grants exactly what
// service discovery needs, and the Dockerfile runs the `switchyard` binary as non-root with every
// workspace package's published files in the runtime stage.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { test, type TestContext } from 'node:test';
import { loadAll } from 'js-yaml';
import { GATEWAY_FLAGS } from '../../../src/config/gateway-flags.js';
import type { GatewayFlag } from '../../../src/config/flag-status.js';
import { resolveLaunchFlags } from '../../../src/config/launch-flags.js';
import type { GatewayConfig } from '../../../src/config/schema.js';
import type { AppContext } from '../../../src/server/app-context.js';
import { createProbeServer } from '../../../src/server/probe-server.js';
import { NoneHistoryStore } from '../../../src/storage/none-history-store.js';
import { repoPath } from '../../helpers/repo-root.js';

// --- The manifests, as the few shapes read here --------------------------------------------

interface Meta {
  readonly name: string;
  readonly labels?: Record<string, string>;
  readonly annotations?: Record<string, string>;
}

interface Doc {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: Meta;
}

type PortRef = number | string;

interface Probe {
  readonly httpGet?: { readonly path: string; readonly port: PortRef };
}

interface EnvVar {
  readonly name: string;
  readonly value?: string;
  readonly valueFrom?: { readonly fieldRef?: { readonly fieldPath: string } };
}

interface Container {
  readonly name: string;
  readonly image: string;
  readonly args?: readonly string[];
  readonly env?: readonly EnvVar[];
  readonly ports?: readonly { readonly name?: string; readonly containerPort: number }[];
  readonly livenessProbe?: Probe;
  readonly readinessProbe?: Probe;
  readonly lifecycle?: { readonly preStop?: { readonly exec?: { readonly command: string[] } } };
  readonly securityContext?: {
    readonly allowPrivilegeEscalation?: boolean;
    readonly readOnlyRootFilesystem?: boolean;
    readonly runAsNonRoot?: boolean;
    readonly capabilities?: { readonly drop?: readonly string[]; readonly add?: readonly string[] };
  };
  readonly volumeMounts?: readonly { readonly name: string; readonly mountPath: string }[];
}

interface Deployment extends Doc {
  readonly spec: {
    readonly replicas: number;
    readonly selector: { readonly matchLabels: Record<string, string> };
    readonly template: {
      readonly metadata: Meta;
      readonly spec: {
        readonly serviceAccountName?: string;
        readonly terminationGracePeriodSeconds?: number;
        readonly securityContext?: { readonly runAsNonRoot?: boolean; readonly runAsUser?: number };
        readonly containers: readonly Container[];
        readonly volumes?: readonly { readonly name: string; readonly emptyDir?: object }[];
      };
    };
  };
}

interface Service extends Doc {
  readonly spec: {
    readonly selector: Record<string, string>;
    readonly ports: readonly {
      readonly name: string;
      readonly port: number;
      targetPort: PortRef;
    }[];
  };
}

interface PolicyRule {
  readonly apiGroups: readonly string[];
  readonly resources: readonly string[];
  readonly verbs: readonly string[];
}

interface Role extends Doc {
  readonly rules: readonly PolicyRule[];
}

interface RoleBinding extends Doc {
  readonly roleRef: { readonly kind: string; readonly name: string };
  readonly subjects: readonly { readonly kind: string; readonly name: string }[];
}

interface Kustomization extends Doc {
  readonly namespace?: string;
  readonly resources: readonly string[];
}

const DIR = repoPath('deploy', 'kubernetes');
const FILES = readdirSync(DIR)
  .filter((name) => name.endsWith('.yaml'))
  .sort();
const DOCS_BY_FILE = new Map(
  FILES.map((file) => [
    file,
    loadAll(readFileSync(`${DIR}/${file}`, 'utf8')).filter((doc) => doc !== null),
  ]),
);
const DOCS = [...DOCS_BY_FILE.values()].flat() as Doc[];

function one<T extends Doc>(kind: string, name?: string): T {
  const found = DOCS.filter(
    (d) => d.kind === kind && (name === undefined || d.metadata.name === name),
  );
  assert.equal(found.length, 1, `exactly one ${kind}${name ? ` ${name}` : ''}`);
  return found[0] as T;
}

const gateway = (): Deployment => one<Deployment>('Deployment', 'switchyard');
const gatewayContainer = (): Container => {
  const container = gateway().spec.template.spec.containers.find((c) => c.name === 'switchyard');
  assert.ok(container, 'the gateway Deployment has a container named switchyard');
  return container;
};

// --- The gateway's argv, as the launch parser sees it --------------------------------------

/**
 * SMG's Kubernetes service discovery flags. Until discovery lands they are in the flag table as
 * `unsupported` (a copied SMG command line is refused), and the argv is resolved without them.
 */
const SERVICE_DISCOVERY_FLAGS: ReadonlySet<string> = new Set([
  'service-discovery',
  'selector',
  'prefill-selector',
  'decode-selector',
  'service-discovery-port',
  'service-discovery-namespace',
  'bootstrap-port-annotation',
  'model-id-from',
]);

const FLAG_BY_NAME: ReadonlyMap<string, GatewayFlag> = new Map(
  GATEWAY_FLAGS.flatMap((flag) => [flag.name, ...(flag.aliases ?? [])].map((n) => [n, flag])),
);

const flagName = (token: string): string => token.slice(2).split('=', 1)[0] ?? '';

/** `$(VAR)` in args, expanded as the kubelet does from the container's env (fieldRefs: a sample). */
function kubeletArgs(container: Container, namespace: string): string[] {
  const env = new Map<string, string>();
  for (const v of container.env ?? []) {
    const field = v.valueFrom?.fieldRef?.fieldPath;
    env.set(v.name, v.value ?? (field === 'metadata.namespace' ? namespace : `sample-${v.name}`));
  }
  return (container.args ?? []).map((arg) =>
    arg.replace(/\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g, (ref, name: string) => env.get(name) ?? ref),
  );
}

/** argv without the given flags and the values that follow each (up to the next `--` token). */
function withoutFlags(argv: readonly string[], names: ReadonlySet<string>): string[] {
  const out: string[] = [];
  let skipping = false;
  for (const token of argv) {
    if (token.startsWith('--')) skipping = names.has(flagName(token));
    if (!skipping) out.push(token);
  }
  return out;
}

function gatewayArgv(): string[] {
  const namespace = one<Kustomization>('Kustomization').namespace ?? 'default';
  return kubeletArgs(gatewayContainer(), namespace);
}

/** Flags of the argv the table does not implement yet (status `unsupported`). */
function pendingFlags(argv: readonly string[]): Set<string> {
  return new Set(
    argv
      .filter((t) => t.startsWith('--'))
      .map(flagName)
      .filter((name) => FLAG_BY_NAME.get(name)?.status === 'unsupported'),
  );
}

/**
 * The config `switchyard launch` builds from the Deployment's args. Once service discovery is
 * implemented this is the whole argv; until then it is the argv without the discovery flags,
 * which the test's diagnostics name.
 */
function resolvedConfig(t: TestContext): GatewayConfig {
  const argv = gatewayArgv();
  const pending = pendingFlags(argv);
  if (pending.size > 0) {
    t.diagnostic(
      `not implemented in this tree yet, resolved without: ${[...pending].map((n) => `--${n}`).join(' ')}`,
    );
  }
  const { config, noEffect } = resolveLaunchFlags(
    pending.size > 0 ? withoutFlags(argv, pending) : argv,
  );
  assert.deepEqual(noEffect, [], 'the manifest gives no flag that has no effect');
  return config;
}

function portNumber(container: Container, ref: PortRef): number {
  if (typeof ref === 'number') return ref;
  const port = container.ports?.find((p) => p.name === ref);
  assert.ok(port, `container port named ${ref}`);
  return port.containerPort;
}

// --- Tests ---------------------------------------------------------------------------------

test('every document parses and has apiVersion, kind and metadata.name', () => {
  assert.ok(FILES.length >= 5, `manifests found: ${FILES.join(', ')}`);
  for (const [file, docs] of DOCS_BY_FILE) {
    assert.ok(docs.length > 0, `${file} has a document`);
    for (const doc of docs as Partial<Doc>[]) {
      assert.equal(typeof doc.apiVersion, 'string', `${file}: apiVersion`);
      assert.equal(typeof doc.kind, 'string', `${file}: kind`);
      assert.equal(typeof doc.metadata?.name, 'string', `${file} ${doc.kind}: metadata.name`);
    }
  }
});

test('the kustomization lists every other manifest of the folder', () => {
  const { resources } = one<Kustomization>('Kustomization');
  assert.deepEqual(
    [...resources].sort(),
    FILES.filter((f) => f !== 'kustomization.yaml'),
  );
});

test("the gateway's args name only flags of the table; those not implemented yet are service discovery's", () => {
  for (const name of gatewayArgv()
    .filter((t) => t.startsWith('--'))
    .map(flagName)) {
    const flag = FLAG_BY_NAME.get(name);
    assert.ok(flag, `--${name} is a flag of the table`);
    assert.notEqual(flag.status, 'no-effect', `--${name} has an effect`);
    if (flag.status === 'unsupported') {
      assert.ok(SERVICE_DISCOVERY_FLAGS.has(name), `--${name} is refused and not a discovery flag`);
    }
  }
});

test("the gateway's args resolve with the launch flag parser, to a PD gateway sharing admission through Redis", (t) => {
  const config = resolvedConfig(t);
  assert.equal(config.pdDisaggregation, true);
  assert.equal(config.port, 30000);
  assert.equal(config.prometheusPort, 29000);
  assert.ok(config.healthCheckPort, '--health-check-port is given');
  assert.ok(config.admissionStore, '--admission-store is given');
  // Each replica's share while Redis is unreachable: window / replicas.
  assert.equal(config.admissionReplicas, gateway().spec.replicas);
  assert.equal(gateway().spec.replicas, 2);
  const redis = new URL(config.admissionStore);
  const service = one<Service>('Service', redis.hostname);
  assert.ok(
    service.spec.ports.some((p) => p.port === Number(redis.port)),
    `the ${redis.hostname} Service serves port ${redis.port}`,
  );
});

test('the probes are served by the probe server on --health-check-port', async (t) => {
  const config = resolvedConfig(t);
  const container = gatewayContainer();
  const { livenessProbe, readinessProbe } = container;
  assert.ok(
    livenessProbe?.httpGet && readinessProbe?.httpGet,
    'HTTP liveness and readiness probes',
  );
  assert.equal(portNumber(container, livenessProbe.httpGet.port), config.healthCheckPort);
  assert.equal(portNumber(container, readinessProbe.httpGet.port), config.healthCheckPort);
  assert.equal(livenessProbe.httpGet.path, '/liveness');
  assert.equal(readinessProbe.httpGet.path, '/readiness');
  assert.equal(portNumber(container, 'http'), config.port);
  assert.equal(portNumber(container, 'metrics'), config.prometheusPort);

  // The paths are the probe server's own routes: liveness answers, readiness is its handler
  // (503 draining here), and any other path is the bare 404.
  const app = { draining: true, history: new NoneHistoryStore() } as unknown as AppContext;
  const server = createProbeServer(app).listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.after(() => {
    server.closeAllConnections();
    server.close();
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const live = await fetch(`${base}${livenessProbe.httpGet.path}`);
  assert.equal(live.status, 200);
  const ready = await fetch(`${base}${readinessProbe.httpGet.path}`);
  assert.equal(ready.status, 503);
  assert.deepEqual(await ready.json(), {
    status: 'not ready',
    reason: 'draining',
    history_store: { backend: 'none', reachable: true },
  });
  assert.equal((await fetch(`${base}/not-a-probe`)).status, 404);
});

test('the pod drains within its grace period and is scraped on --prometheus-port', (t) => {
  const config = resolvedConfig(t);
  const { spec, metadata } = gateway().spec.template;
  const preStop = gatewayContainer().lifecycle?.preStop?.exec?.command ?? [];
  const pause = preStop[0] === 'sleep' ? Number(preStop[1]) : 0;
  assert.ok(
    (spec.terminationGracePeriodSeconds ?? 30) > pause + config.shutdownGracePeriodSecs,
    'terminationGracePeriodSeconds exceeds the preStop pause plus --shutdown-grace-period-secs',
  );
  assert.equal(metadata.annotations?.['prometheus.io/scrape'], 'true');
  assert.equal(metadata.annotations?.['prometheus.io/port'], String(config.prometheusPort));
  assert.equal(metadata.annotations?.['prometheus.io/path'], '/metrics');
});

test('the gateway runs as non-root, without capabilities, on a read-only root with /tmp writable', () => {
  const pod = gateway().spec.template.spec;
  assert.equal(pod.securityContext?.runAsNonRoot, true);
  assert.ok((pod.securityContext?.runAsUser ?? 0) > 0, 'a numeric non-root runAsUser');
  const { securityContext, volumeMounts } = gatewayContainer();
  assert.equal(securityContext?.readOnlyRootFilesystem, true);
  assert.equal(securityContext?.allowPrivilegeEscalation, false);
  assert.deepEqual(securityContext?.capabilities?.drop, ['ALL']);
  assert.equal(securityContext?.capabilities?.add, undefined);
  // The gateway unpacks tokenizer bundles under the OS temp dir (src/tokenizer/bundle.ts).
  const tmp = volumeMounts?.find((m) => m.mountPath === '/tmp');
  assert.ok(tmp, '/tmp is mounted');
  assert.ok(pod.volumes?.find((v) => v.name === tmp.name)?.emptyDir, '/tmp is an emptyDir');
});

test('the Service selects the gateway pods and targets their named ports', () => {
  const deployment = gateway();
  const service = one<Service>('Service', 'switchyard');
  assert.deepEqual(service.spec.selector, deployment.spec.selector.matchLabels);
  for (const [key, value] of Object.entries(deployment.spec.selector.matchLabels)) {
    assert.equal(deployment.spec.template.metadata.labels?.[key], value, `pod label ${key}`);
  }
  for (const { targetPort } of service.spec.ports) portNumber(gatewayContainer(), targetPort);
});

test("the Role grants exactly pods list/watch, bound to the gateway's ServiceAccount", () => {
  const role = one<Role>('Role');
  assert.deepEqual(role.rules, [
    { apiGroups: [''], resources: ['pods'], verbs: ['list', 'watch'] },
  ]);
  for (const kind of ['ClusterRole', 'ClusterRoleBinding']) {
    assert.equal(DOCS.filter((d) => d.kind === kind).length, 0, `no ${kind}`);
  }
  const account = one<Doc>('ServiceAccount');
  assert.equal(gateway().spec.template.spec.serviceAccountName, account.metadata.name);
  const binding = one<RoleBinding>('RoleBinding');
  assert.deepEqual(binding.roleRef, {
    apiGroup: 'rbac.authorization.k8s.io',
    kind: 'Role',
    name: role.metadata.name,
  });
  assert.deepEqual(
    binding.subjects.map((s) => [s.kind, s.name]),
    [['ServiceAccount', account.metadata.name]],
  );
});

test('the Redis keeps leases in memory only and never evicts them', () => {
  const redis = one<Deployment>('Deployment', 'switchyard-redis');
  assert.equal(redis.spec.replicas, 1);
  const args = redis.spec.template.spec.containers[0]?.args ?? [];
  const value = (flag: string): string | undefined => args[args.indexOf(flag) + 1];
  assert.equal(value('--save'), '');
  assert.equal(value('--appendonly'), 'no');
  assert.equal(value('--maxmemory-policy'), 'noeviction');
});

// --- The Dockerfile --------------------------------------------------------------------------

interface Instruction {
  readonly op: string;
  readonly args: string;
}

/** Instructions by stage: continuation lines joined, comments and blank lines dropped. */
function dockerStages(text: string): Instruction[][] {
  const lines = text.replace(/\\\n/g, ' ').split('\n');
  const stages: Instruction[][] = [[]];
  for (const line of lines.map((l) => l.trim())) {
    if (line === '' || line.startsWith('#')) continue;
    const [op = '', ...rest] = line.split(/\s+/);
    const instruction = { op: op.toUpperCase(), args: rest.join(' ') };
    if (instruction.op === 'FROM') stages.push([]);
    stages.at(-1)?.push(instruction);
  }
  return stages.slice(1);
}

interface PackageJson {
  readonly bin?: Record<string, string>;
  readonly files?: readonly string[];
  readonly workspaces?: readonly string[];
}

const readPackage = (...parts: string[]): PackageJson =>
  JSON.parse(readFileSync(repoPath(...parts, 'package.json'), 'utf8')) as PackageJson;

test("the Dockerfile's runtime stage runs the switchyard binary as the pod's non-root user", () => {
  const runtime = dockerStages(readFileSync(repoPath('Dockerfile'), 'utf8')).at(-1) ?? [];
  const last = (op: string): string | undefined => runtime.findLast((i) => i.op === op)?.args;

  const entrypoint = JSON.parse(last('ENTRYPOINT') ?? 'null') as string[] | null;
  assert.ok(Array.isArray(entrypoint), 'ENTRYPOINT in exec form, so argv is passed unchanged');
  const bin = readPackage().bin?.switchyard;
  assert.ok(bin, 'package.json names the switchyard bin');
  assert.ok(
    entrypoint.at(-1)?.endsWith(bin) || entrypoint[0] === 'switchyard',
    `ENTRYPOINT ${JSON.stringify(entrypoint)} runs ${bin}`,
  );

  const user = (last('USER') ?? 'root').split(':', 1)[0] ?? '';
  assert.ok(/^\d+$/.test(user) && user !== '0', `USER ${user} is a numeric non-root uid`);
  assert.equal(Number(user), gateway().spec.template.spec.securityContext?.runAsUser);

  const exposed = runtime.filter((i) => i.op === 'EXPOSE').flatMap((i) => i.args.split(/\s+/));
  for (const name of ['port', 'prometheus-port']) {
    assert.ok(exposed.includes(String(FLAG_BY_NAME.get(name)?.default)), `EXPOSE --${name}`);
  }
  assert.ok(
    runtime.some((i) => i.op === 'RUN' && /npm ci\b.*--omit=dev/.test(i.args)),
    'the runtime stage installs production dependencies only',
  );
});

test("the Dockerfile's runtime stage has every workspace and every package's published files", () => {
  const runtime = dockerStages(readFileSync(repoPath('Dockerfile'), 'utf8')).at(-1) ?? [];
  const copies = runtime
    .filter((i) => i.op === 'COPY')
    .map((i) => i.args.split(/\s+/).filter((a) => !a.startsWith('--')));
  const sources = new Set(copies.flatMap((paths) => paths.slice(0, -1)));
  const targets = new Set(copies.map((paths) => (paths.at(-1) ?? '').replace(/\/$/, '')));

  const root = readPackage();
  for (const entry of root.files ?? []) assert.ok(targets.has(entry), `COPY … ${entry}`);
  for (const dir of root.workspaces ?? []) {
    // npm ci refuses the lockfile without every workspace's manifest.
    assert.ok(sources.has(`${dir}/package.json`), `COPY ${dir}/package.json`);
    for (const entry of readPackage(dir).files ?? []) {
      assert.ok(targets.has(`${dir}/${entry}`), `COPY … ${dir}/${entry}`);
    }
  }
});
