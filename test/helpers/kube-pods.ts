/**
 * Pods as the Kubernetes API server returns them, for the fake API server's tests, and the
 * gateway options that point discovery at a fake.
 */
import type { KubeConfig } from '@kubernetes/client-node';

export interface PodJson {
  metadata: {
    name: string;
    namespace: string;
    uid: string;
    resourceVersion?: string;
    labels: Record<string, string>;
    annotations: Record<string, string>;
    deletionTimestamp?: string;
  };
  status: { phase: string; podIP?: string; conditions: { type: string; status: string }[] };
}

export interface PodOptions {
  namespace?: string;
  uid?: string;
  ip?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  phase?: string;
  ready?: boolean;
  deleting?: boolean;
}

/** A pod as the API server returns it: Running and Ready unless told otherwise. */
export function podJson(name: string, o: PodOptions = {}): PodJson {
  return {
    metadata: {
      name,
      namespace: o.namespace ?? 'default',
      uid: o.uid ?? `uid-${name}`,
      labels: o.labels ?? {},
      annotations: o.annotations ?? {},
      ...(o.deleting ? { deletionTimestamp: '2030-01-01T00:00:00Z' } : {}),
    },
    status: {
      phase: o.phase ?? 'Running',
      ...(o.ip === undefined ? {} : { podIP: o.ip }),
      conditions: [{ type: 'Ready', status: o.ready === false ? 'False' : 'True' }],
    },
  };
}

/** Gateway options pointing discovery at `api`, with test-speed settling and backoff. */
export function discoveryOptions(api: { kubeConfig(): KubeConfig }): {
  kube: { kubeConfig: KubeConfig; settleMs: number; backoff: { initialMs: number; maxMs: number } };
} {
  return {
    kube: { kubeConfig: api.kubeConfig(), settleMs: 20, backoff: { initialMs: 20, maxMs: 200 } },
  };
}
