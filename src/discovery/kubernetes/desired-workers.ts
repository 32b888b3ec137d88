/**
 * The workers the watched pods ask for, as SMG's `compute_desired_state` and
 * `build_worker_spec` (service_discovery.rs): one worker per selected pod and worker port, keyed
 * by its URL, and the registration spec of each.
 */
import { isIP } from 'node:net';
import { parseWorkerSpec, type WorkerSpec } from '../../workers/spec.js';
import { parseWorkerUrl } from '../../workers/worker-url.js';
import type { WorkerType } from '../../workers/worker.js';
import {
  isSelected,
  POD_NAME_LABEL,
  POD_UID_LABEL,
  readPod,
  type PodObject,
  type PodReadConfig,
} from './pod.js';

/** One worker a healthy pod asks for. */
export interface DesiredWorker {
  /** The normalised worker URL, as the registry keys it. */
  readonly url: string;
  readonly type: WorkerType;
  readonly bootstrapPort: number | undefined;
  readonly podName: string;
  readonly podUid: string;
  readonly modelId: string | undefined;
  /** The pod's malformed annotations, logged when the worker is registered. */
  readonly problems: readonly string[];
}

export interface DesiredState {
  /**
   * The owning pod uid of every worker URL of a Running and Ready pod. A discovered worker whose
   * URL is missing here (its pod gone, terminating, no longer Ready or no longer Running), or
   * held by another uid, is removed (drained).
   */
  readonly uidByUrl: ReadonlyMap<string, string>;
  /**
   * The pod uid of every worker URL of a live, selected pod, ready or not (the
   * `smg_discovery_workers_discovered` gauge counts these), to say why a worker is removed.
   */
  readonly heldByUrl: ReadonlyMap<string, string>;
  /** Workers of Running and Ready pods: the ones to register, one per `uidByUrl` entry. */
  readonly addable: readonly DesiredWorker[];
}

/** `http://{podIP}:{port}`, normalised as every worker URL is (port 80 is dropped). */
export function podWorkerUrl(ip: string, port: number): string | undefined {
  const host = isIP(ip) === 6 ? `[${ip}]` : ip;
  const parsed = parseWorkerUrl(`http://${host}:${port}`);
  return parsed.ok ? parsed.value.url : undefined;
}

export function desiredState(pods: Iterable<PodObject>, config: PodReadConfig): DesiredState {
  const uidByUrl = new Map<string, string>();
  const heldByUrl = new Map<string, string>();
  const addable: DesiredWorker[] = [];
  for (const pod of pods) {
    if (!isSelected(pod, config)) continue;
    // A terminating pod leaves at once, so its workers drain at the start of its grace period.
    if (pod.metadata?.deletionTimestamp != null) continue;
    const info = readPod(pod, config);
    if (info === undefined) continue;
    info.ports.forEach((port, index) => {
      const url = podWorkerUrl(info.ip, port);
      // The first ready pod to claim a URL keeps it (two pods cannot share an IP and port for
      // long); a pod that is not ready (a finished pod still listing a reused IP) yields it.
      if (url === undefined || uidByUrl.has(url)) return;
      if (!info.healthy) {
        if (!heldByUrl.has(url)) heldByUrl.set(url, info.uid);
        return;
      }
      heldByUrl.set(url, info.uid);
      uidByUrl.set(url, info.uid);
      addable.push({
        url,
        type: info.type,
        bootstrapPort: info.bootstrapPorts[index],
        podName: info.name,
        podUid: info.uid,
        modelId: info.modelId,
        problems: info.problems,
      });
    });
  }
  return { uidByUrl, heldByUrl, addable };
}

/**
 * The registration spec of a discovered worker: its role, bootstrap port and pod labels, and
 * the model id override as its model (SMG writes it into `served_model_name`, the first source
 * of a spec without models; here a spec's model card is).
 */
export function workerSpecOf(worker: DesiredWorker): WorkerSpec | string {
  const labels: Record<string, string> = {
    [POD_NAME_LABEL]: worker.podName,
    [POD_UID_LABEL]: worker.podUid,
  };
  if (worker.modelId !== undefined) labels.served_model_name = worker.modelId;
  const parsed = parseWorkerSpec({
    url: worker.url,
    worker_type: worker.type,
    bootstrap_port: worker.bootstrapPort ?? null,
    labels,
    models: worker.modelId === undefined ? [] : [worker.modelId],
  });
  return parsed.ok ? parsed.spec : parsed.message;
}
