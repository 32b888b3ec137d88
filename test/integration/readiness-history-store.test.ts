// /readiness reports the history store (which backend, and whether it answers) in every body,
// and a store that does not answer leaves the status to the workers: only the requests that
// store or read history need it. The store is closed at shutdown once the listener has stopped.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { parseFlags } from '@switchyard/kit';
import { startSimFleet, type SimWorker } from '@switchyard/sim';
import { GATEWAY_FLAGS } from '../../src/config/gateway-flags.js';
import { buildConfig } from '../../src/config/validate.js';
import { silentLogger } from '../../src/observability/logger.js';
import { startGateway, type Gateway } from '../../src/server/gateway.js';
import { MemoryHistoryStore } from '../../src/storage/memory-history-store.js';
import { startTestGateway, waitForReadyWorkers } from '../helpers/gateway.js';

const LOOPBACK = ['--host', '127.0.0.1', '--port', '0', '--prometheus-host', '127.0.0.1'];

let fleet: SimWorker[];

before(async () => {
  fleet = await startSimFleet(1, { model: 'sim-model', runtime: 'sglang' });
});

after(async () => {
  await Promise.all(fleet.map((w) => w.close()));
});

async function readiness(gateway: Gateway): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${gateway.url}/readiness`);
  return { status: res.status, body: await res.json() };
}

/** A memory store whose backend has gone away, as a Redis or Postgres store reports it. */
class UnreachableStore extends MemoryHistoryStore {
  constructor() {
    super({ maxResponses: 10, maxConversations: 10 });
  }
  override reachable(): Promise<boolean> {
    return Promise.resolve(false);
  }
}

test('the memory backend (the default) is reported, ready or not', async () => {
  const gateway = await startTestGateway(['--worker-urls', fleet[0]!.url]);
  try {
    assert.equal(gateway.internals.history.backend, 'memory');
    await waitForReadyWorkers(gateway, 1);
    assert.deepEqual(await readiness(gateway), {
      status: 200,
      body: {
        status: 'ready',
        healthy_workers: 1,
        total_workers: 1,
        history_store: { backend: 'memory', reachable: true },
      },
    });
  } finally {
    await gateway.close();
  }
  const empty = await startTestGateway();
  try {
    assert.deepEqual(await readiness(empty), {
      status: 503,
      body: {
        status: 'not ready',
        reason: 'insufficient healthy workers',
        history_store: { backend: 'memory', reachable: true },
      },
    });
  } finally {
    await empty.close();
  }
});

test('--history-backend none is reported as none, always reachable', async () => {
  const gateway = await startTestGateway([
    '--history-backend',
    'none',
    '--worker-urls',
    fleet[0]!.url,
  ]);
  try {
    await waitForReadyWorkers(gateway, 1);
    const { status, body } = await readiness(gateway);
    assert.equal(status, 200);
    assert.deepEqual((body as Record<string, unknown>)['history_store'], {
      backend: 'none',
      reachable: true,
    });
  } finally {
    await gateway.close();
  }
});

test('a store that does not answer keeps the replica ready, and says so', async () => {
  const history = new UnreachableStore();
  const config = buildConfig(
    parseFlags(
      [...LOOPBACK, '--prometheus-port', '0', '--worker-urls', fleet[0]!.url],
      GATEWAY_FLAGS,
    ),
  );
  const gateway = await startGateway(config, { logger: silentLogger(), history });
  try {
    await waitForReadyWorkers(gateway, 1);
    const { status, body } = await readiness(gateway);
    assert.equal(status, 200);
    assert.deepEqual((body as Record<string, unknown>)['history_store'], {
      backend: 'memory',
      reachable: false,
    });
  } finally {
    await gateway.close();
  }
});

test('shutdown closes the store after the listener stopped taking requests', async () => {
  let closedWhileListening: boolean | undefined;
  let url = '';
  const history = new (class extends MemoryHistoryStore {
    override async close(): Promise<void> {
      closedWhileListening = await fetch(`${url}/liveness`).then(
        () => true,
        () => false,
      );
      await super.close();
    }
  })({ maxResponses: 10, maxConversations: 10 });
  const config = buildConfig(parseFlags([...LOOPBACK, '--prometheus-port', '0'], GATEWAY_FLAGS));
  const gateway = await startGateway(config, { logger: silentLogger(), history });
  url = gateway.url;
  assert.equal((await fetch(`${url}/liveness`)).status, 200);
  await gateway.shutdown(1000);
  assert.equal(closedWhileListening, false);
});
