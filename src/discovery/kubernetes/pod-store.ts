/**
 * The watched pods, by namespace and name: replaced whole by each list, changed by each watch
 * event. Discovery reconciles against this snapshot, never against single events, so a missed
 * or repeated event cannot leave a worker behind (a re-list corrects the store, and the next
 * reconcile pass the registry).
 */
import type { PodObject } from './pod.js';

const keyOf = (pod: PodObject): string =>
  `${pod.metadata?.namespace ?? ''}/${pod.metadata?.name ?? ''}`;

export class PodStore {
  #pods = new Map<string, PodObject>();

  /** A list's items: pods absent from it are gone, whatever events were missed. */
  replace(pods: readonly PodObject[]): void {
    this.#pods = new Map(pods.map((pod) => [keyOf(pod), pod]));
  }

  /** One watch event's pod. */
  apply(type: 'ADDED' | 'MODIFIED' | 'DELETED', pod: PodObject): void {
    if (type === 'DELETED') this.#pods.delete(keyOf(pod));
    else this.#pods.set(keyOf(pod), pod);
  }

  values(): IterableIterator<PodObject> {
    return this.#pods.values();
  }

  get size(): number {
    return this.#pods.size;
  }
}
