// A gateway started with --history-backend postgres or redis opens that store: two gateways on
// one backend see each other's writes, and /readiness reports the store's reachability as the
// backend goes away and comes back, while the status stays as the workers decide.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startSimFleet, type SimWorker } from '@switchyard/sim';
import type { Gateway } from '../../../src/server/gateway.js';
import { startTestGateway, waitFor, waitForReadyWorkers } from '../../helpers/gateway.js';
import { PostgresServer } from '../../helpers/postgres-server.js';
import { RedisServer } from '../../helpers/redis-server.js';

/** A real backend server, its history flags, and a way to take it away and give it back. */
interface Backend {
  readonly name: 'postgres' | 'redis';
  /** Flags of a gateway on this backend; the same `scope` gives the same data. */
  flags(scope: string): Promise<string[]>;
  stop(): Promise<void>;
  restart(): Promise<void>;
  close(): Promise<void>;
}

async function postgres(): Promise<Backend> {
  const server = await PostgresServer.start();
  const databases = new Map<string, string>();
  return {
    name: 'postgres',
    async flags(scope) {
      let db = databases.get(scope);
      if (db === undefined) databases.set(scope, (db = await server.createDatabase(scope)));
      return ['--postgres-db-url', server.url(db), '--postgres-pool-max-size', '2'];
    },
    stop: () => server.stop(),
    restart: () => server.restart(),
    close: () => server.close(),
  };
}

async function redis(): Promise<Backend> {
  const server = await RedisServer.start();
  return {
    name: 'redis',
    // Every test uses its own ids, so one Redis serves them all.
    flags: () => Promise.resolve(['--redis-url', server.url, '--redis-retention-days', '1']),
    stop: () => server.stop(),
    restart: () => server.restart(),
    close: () => server.close(),
  };
}

let fleet: SimWorker[];
before(async () => {
  fleet = await startSimFleet(1, { model: 'sim-model', runtime: 'sglang' });
});
after(async () => {
  await Promise.all(fleet.map((w) => w.close()));
});

for (const open of [postgres, redis]) {
  describe(`--history-backend ${open.name}`, () => {
    let backend: Backend;
    const gateways: Gateway[] = [];
    before(async () => {
      backend = await open();
    });
    after(async () => {
      await Promise.all(gateways.map((g) => g.close()));
      await backend?.close();
    });

    const start = async (scope: string): Promise<Gateway> => {
      const gateway = await startTestGateway([
        '--history-backend',
        backend.name,
        ...(await backend.flags(scope)),
        '--worker-urls',
        fleet[0]!.url,
      ]);
      gateways.push(gateway);
      await waitForReadyWorkers(gateway, 1);
      return gateway;
    };
    const readiness = async (gateway: Gateway): Promise<{ status: number; history: unknown }> => {
      const res = await fetch(`${gateway.url}/readiness`);
      const body = (await res.json()) as Record<string, unknown>;
      return { status: res.status, history: body['history_store'] };
    };

    it('two gateways on one backend share stored responses', async () => {
      const [a, b] = [await start('shared'), await start('shared')];
      assert.equal(a.internals.history.backend, backend.name);
      const id = `resp_shared_${backend.name}`;
      const response = { id, input: [], response: { id }, createdAt: 1 };
      await a.internals.history.putResponse(response);
      const read = await b.internals.history.getResponse(id);
      // A backend may hand back the optional fields it has no value for as undefined.
      assert.deepEqual(JSON.parse(JSON.stringify(read)), response);
    });

    it('readiness reports the backend going away and coming back, staying 200', async () => {
      const gateway = await start('readiness');
      assert.deepEqual(await readiness(gateway), {
        status: 200,
        history: { backend: backend.name, reachable: true },
      });
      const reports = (reachable: boolean) => async (): Promise<boolean> => {
        const { history } = await readiness(gateway);
        return JSON.stringify(history) === JSON.stringify({ backend: backend.name, reachable });
      };
      await backend.stop();
      await waitFor(reports(false), `readiness to report ${backend.name} unreachable`, {
        timeoutMs: 15_000,
        intervalMs: 100,
      });
      assert.equal((await readiness(gateway)).status, 200);
      await backend.restart();
      await waitFor(reports(true), `readiness to report ${backend.name} back`, {
        timeoutMs: 15_000,
        intervalMs: 100,
      });
    });
  });
}
