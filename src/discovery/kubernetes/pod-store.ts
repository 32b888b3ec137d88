/**
 * The watched pods, by namespace and name: replaced whole by each list, changed by each watch
 * event. Discovery reconciles against this snapshot, never against single events, so a missed
 * or repeated event cannot leave a worker behind (a re-list corrects the store, and the next
 * reconcile pass the registry).
 */
import type { PodObject } from './pod.js';

const keyOf = (pod: PodObject): string =>
  `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;

/**
 * Only the fields discovery reads. A pod object is mostly `managedFields` and spec, and without
 * a shared PD selector the store holds every pod of the namespace (or cluster); SMG prunes
 * `managed_fields` for the same reason.
 */
function trim(pod: PodObject): PodObject {
  const { metadata: m, status: s } = pod;
  return {
    metadata: {
      name: m?.name,
      namespace: m?.namespace,
      uid: m?.uid,
      resourceVersion: m?.resourceVersion,
      labels: m?.labels,
      annotations: m?.annotations,
      deletionTimestamp: m?.deletionTimestamp,
    },
    status: {
      phase: s?.phase,
      podIP: s?.podIP,
      conditions: (s?.conditions ?? []).map(({ type, status }) => ({ type, status })),
    },
  };
}

export class PodStore {
  #pods = new Map<string, PodObject>();

  /** A list's items: pods absent from it are gone, whatever events were missed. */
  replace(pods: readonly PodObject[]): void {
    this.#pods = new Map(pods.map((pod) => [keyOf(pod), trim(pod)]));
  }

  /** One watch event's pod. */
  apply(type: 'ADDED' | 'MODIFIED' | 'DELETED', pod: PodObject): void {
    if (type === 'DELETED') this.#pods.delete(keyOf(pod));
    else this.#pods.set(keyOf(pod), trim(pod));
  }

  values(): IterableIterator<PodObject> {
    return this.#pods.values();
  }

  get size(): number {
    return this.#pods.size;
  }
}
