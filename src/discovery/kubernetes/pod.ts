/**
 * What discovery reads from one pod, as SMG's `PodInfo::from_pod` (service_discovery.rs): its
 * identity, address and readiness, its role by selector, its worker ports and their bootstrap
 * ports, and its model id override. Pure functions of the pod object and the discovery config.
 */
import type { WorkerType } from '../../workers/worker.js';
import { modelIdOf, type ModelIdSource } from './model-id-source.js';
import { matchesSelector, type LabelSelector } from './selector.js';

/**
 * The fields of a Kubernetes Pod that discovery reads. Objects from a list and from a watch both
 * fit (a listed pod's `deletionTimestamp` is a Date, a watched one's a string: only its presence
 * counts).
 */
export interface PodObject {
  readonly metadata?: {
    readonly name?: string | undefined;
    readonly namespace?: string | undefined;
    readonly uid?: string | undefined;
    readonly resourceVersion?: string | undefined;
    readonly labels?: Readonly<Record<string, string>> | undefined;
    readonly annotations?: Readonly<Record<string, string>> | undefined;
    readonly deletionTimestamp?: unknown;
  };
  readonly status?: {
    readonly phase?: string | undefined;
    readonly podIP?: string | undefined;
    readonly conditions?:
      | readonly { readonly type?: string | undefined; readonly status?: string | undefined }[]
      | undefined;
  };
}

/** SMG's annotation listing a pod's worker ports (comma-separated): one worker per port. */
export const WORKER_PORTS_ANNOTATION = 'smg.ai/worker-ports';
/** Labels stamped on every discovered worker; the uid label marks the workers discovery owns. */
export const POD_NAME_LABEL = 'smg.ai/pod-name';
export const POD_UID_LABEL = 'smg.ai/pod-uid';

/** The discovery flags a pod is read with. */
export interface PodReadConfig {
  /** `--pd-disaggregation`: pods are prefill or decode workers by their role selector. */
  readonly pdMode: boolean;
  readonly selector: LabelSelector;
  readonly prefillSelector: LabelSelector;
  readonly decodeSelector: LabelSelector;
  /** `--service-discovery-port`: the worker port of a pod without the ports annotation. */
  readonly port: number;
  readonly bootstrapPortAnnotation: string;
  readonly modelIdSource: ModelIdSource | undefined;
}

export interface PodInfo {
  readonly name: string;
  readonly uid: string;
  readonly ip: string;
  /**
   * Phase `Running` and condition `Ready` true: only such a pod's workers are registered, and
   * they are drained once it is no longer both.
   */
  readonly healthy: boolean;
  readonly type: WorkerType;
  /** Worker ports, in annotation order, without repeats. */
  readonly ports: readonly number[];
  /** Each port's bootstrap port (prefill pods only), aligned with `ports`. */
  readonly bootstrapPorts: readonly (number | undefined)[];
  readonly modelId: string | undefined;
  /** Annotations that were malformed and ignored, for the registration log line. */
  readonly problems: readonly string[];
}

/** Whether the pod is one discovery selects: by its role selectors in PD mode, else `--selector`. */
export function isSelected(pod: PodObject, config: PodReadConfig): boolean {
  const labels = pod.metadata?.labels;
  return config.pdMode
    ? matchesSelector(labels, config.prefillSelector) ||
        matchesSelector(labels, config.decodeSelector)
    : matchesSelector(labels, config.selector);
}

/**
 * The pod as discovery sees it, or undefined when it cannot be a worker yet: no name, no uid
 * (its identity could not be tracked across restarts) or no IP.
 */
export function readPod(pod: PodObject, config: PodReadConfig): PodInfo | undefined {
  const meta = pod.metadata;
  const ip = pod.status?.podIP;
  if (!meta?.name || !meta.uid || !ip) return undefined;
  const ready = (pod.status?.conditions ?? []).some(
    (c) => c.type === 'Ready' && c.status === 'True',
  );
  const type = roleOf(pod, config);
  const problems: string[] = [];
  const ports = workerPorts(meta.annotations?.[WORKER_PORTS_ANNOTATION], config.port, problems);
  const bootstrapPorts =
    type === 'prefill'
      ? bootstrapPortsFor(meta.annotations?.[config.bootstrapPortAnnotation], ports, problems)
      : ports.map(() => undefined);
  const modelId = config.modelIdSource && modelIdOf(config.modelIdSource, meta);
  return {
    name: meta.name,
    uid: meta.uid,
    ip,
    healthy: ready && pod.status?.phase === 'Running',
    type,
    ports,
    bootstrapPorts,
    // An empty label or annotation names no model: the worker's own id stands.
    modelId: modelId === '' ? undefined : modelId,
    problems,
  };
}

/** Prefill is checked before decode, as SMG; outside PD mode every pod is a regular worker. */
function roleOf(pod: PodObject, config: PodReadConfig): WorkerType {
  if (!config.pdMode) return 'regular';
  const labels = pod.metadata?.labels;
  if (matchesSelector(labels, config.prefillSelector)) return 'prefill';
  if (matchesSelector(labels, config.decodeSelector)) return 'decode';
  return 'regular';
}

/** `8080, 8081` -> [8080, 8081]; undefined when any part is not a port in 1..65535. */
export function parsePortList(raw: string): number[] | undefined {
  const ports: number[] = [];
  for (const part of raw.split(',')) {
    const text = part.trim();
    const port = Number(text);
    if (!/^\d+$/.test(text) || port < 1 || port > 65535) return undefined;
    ports.push(port);
  }
  return ports;
}

/** The annotation's ports, repeats dropped; a malformed annotation falls back to the flag's port (SMG). */
function workerPorts(
  annotation: string | undefined,
  fallback: number,
  problems: string[],
): number[] {
  if (annotation === undefined) return [fallback];
  const ports = parsePortList(annotation);
  if (ports !== undefined) return [...new Set(ports)];
  problems.push(`${WORKER_PORTS_ANNOTATION} '${annotation}' is not a port list; using ${fallback}`);
  return [fallback];
}

/**
 * One bootstrap port applies to every worker port; a list must have one per worker port. Any
 * other shape is ignored (SMG `resolve_bootstrap_ports`), and the prefill workers then have none.
 */
function bootstrapPortsFor(
  annotation: string | undefined,
  workerPorts: readonly number[],
  problems: string[],
): (number | undefined)[] {
  const none = workerPorts.map(() => undefined);
  if (annotation === undefined) return none;
  const ports = parsePortList(annotation);
  if (ports?.length === 1) return none.map(() => ports[0]);
  if (ports?.length === workerPorts.length) return ports;
  problems.push(
    `bootstrap port annotation '${annotation}' does not fit ${workerPorts.length} worker port(s); ignored`,
  );
  return none;
}
