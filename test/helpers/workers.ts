/** Worker and selection-info fixtures for policy unit tests. */
import type { SelectInfo } from '../../src/policies/policy.js';
import { Worker, type WorkerInit, type WorkerStatus } from '../../src/workers/worker.js';

/** A ready regular worker at http://<name>:8000 (override anything). */
export function testWorker(
  name: string,
  overrides: Partial<WorkerInit> & { status?: WorkerStatus } = {},
): Worker {
  const url = overrides.url ?? `http://${name}:8000`;
  const { status, ...init } = overrides;
  const worker = new Worker({
    id: name,
    url,
    type: 'regular',
    runtime: 'sglang',
    models: [],
    labels: {},
    priority: 50,
    cost: 1,
    spec: { url },
    ...init,
  });
  worker.status = status ?? 'ready';
  return worker;
}

export function testSelectInfo(overrides: Partial<SelectInfo> = {}): SelectInfo {
  return {
    model: 'm',
    headers: {},
    leg: 'single',
    text: '',
    routingKey: undefined,
    targetWorker: undefined,
    tokens: undefined,
    rid: undefined,
    ...overrides,
  };
}
