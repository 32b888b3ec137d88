// A gateway started with --history-backend postgres opens that store: two gateways on one
// database see each other's writes, and /readiness reports the store's reachability as Postgres
// goes away and comes back, while the status stays as the workers decide.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startSimFleet, type SimWorker } from '@switchyard/sim';
import type { Gateway } from '../../../src/server/gateway.js';
import { startTestGateway, waitFor, waitForReadyWorkers } from '../../helpers/gateway.js';
import { PostgresServer } from '../../helpers/postgres-server.js';

let server: PostgresServer;
let fleet: SimWorker[];
const gateways: Gateway[] = [];

before(async () => {
  server = await PostgresServer.start();
  fleet = await startSimFleet(1, { model: 'sim-model', runtime: 'sglang' });
});

after(async () => {
  await Promise.all(gateways.map((g) => g.close()));
  await Promise.all(fleet.map((w) => w.close()));
  await server?.close();
});

async function start(url: string): Promise<Gateway> {
  const gateway = await startTestGateway([
    '--history-backend',
    'postgres',
    '--postgres-db-url',
    url,
    '--postgres-pool-max-size',
    '2',
    '--worker-urls',
    fleet[0]!.url,
  ]);
  gateways.push(gateway);
  await waitForReadyWorkers(gateway, 1);
  return gateway;
}

async function readiness(gateway: Gateway): Promise<{ status: number; history: unknown }> {
  const res = await fetch(`${gateway.url}/readiness`);
  const body = (await res.json()) as Record<string, unknown>;
  return { status: res.status, history: body['history_store'] };
}

test('two gateways on one database share stored responses', async () => {
  const url = server.url(await server.createDatabase('gateway'));
  const [a, b] = [await start(url), await start(url)];
  assert.equal(a.internals.history.backend, 'postgres');
  const response = { id: 'resp_shared', input: [], response: { id: 'resp_shared' }, createdAt: 1 };
  await a.internals.history.putResponse(response);
  assert.deepEqual(await b.internals.history.getResponse('resp_shared'), response);
});

test('readiness reports Postgres going away and coming back, staying 200', async () => {
  const gateway = await start(server.url(await server.createDatabase('readiness')));
  assert.deepEqual(await readiness(gateway), {
    status: 200,
    history: { backend: 'postgres', reachable: true },
  });
  const reports = (reachable: boolean) => async (): Promise<boolean> => {
    const { history } = await readiness(gateway);
    return JSON.stringify(history) === JSON.stringify({ backend: 'postgres', reachable });
  };
  await server.stop();
  await waitFor(reports(false), 'readiness to report Postgres unreachable', {
    timeoutMs: 15_000,
    intervalMs: 100,
  });
  assert.equal((await readiness(gateway)).status, 200);
  await server.restart();
  await waitFor(reports(true), 'readiness to report Postgres back', {
    timeoutMs: 15_000,
    intervalMs: 100,
  });
});
