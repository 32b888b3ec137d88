// The connect-time address guard: net.connect's `lookup` that resolves like dns.lookup and fails
// the connection when a resolved address is forbidden or outside --worker-allow-cidr, logging
// each refused host/address once per window. DNS is injected, so nothing is resolved for real.
import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { createLogger } from '../../../src/observability/logger.js';
import {
  REFUSAL_LOG_INTERVAL_MS,
  WorkerConnectGuard,
  type ConnectGuardOptions,
} from '../../../src/workers/connect-guard.js';
import { ManualClock } from '@switchyard/kit';

const DNS: Record<string, string[]> = {
  'worker.example': ['10.0.0.5', 'fd00::5'],
  'evil.example': ['10.0.0.5', '169.254.169.254'],
  'mapped.example': ['::ffff:169.254.169.254'],
};

interface Logged {
  msg: string;
  host: string;
  address: string;
  suppressed: number;
}

function setup(opts: Partial<ConnectGuardOptions> = {}): {
  guard: WorkerConnectGuard;
  clock: ManualClock;
  logs: Logged[];
} {
  const logs: Logged[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n'))
        if (line) logs.push(JSON.parse(line) as Logged);
      done();
    },
  });
  const clock = new ManualClock(1_000_000);
  const guard = new WorkerConnectGuard({
    allowCidrs: [],
    lookup: (host) => {
      const found = DNS[host];
      return found ? Promise.resolve(found) : Promise.reject(new Error(`ENOTFOUND ${host}`));
    },
    logger: createLogger({ level: 'warn', json: true, destination }),
    clock,
    ...opts,
  });
  return { guard, clock, logs };
}

interface Answer {
  err: NodeJS.ErrnoException | null;
  address: string | LookupAddress[];
  family: number | undefined;
}

function resolve(guard: WorkerConnectGuard, host: string, all: boolean): Promise<Answer> {
  return new Promise((done) => {
    guard.lookup(host, { all }, (err, address, family) => done({ err, address, family }));
  });
}

void describe('WorkerConnectGuard.lookup', () => {
  void it('answers like dns.lookup: the first address, or all of them with { all: true }', async () => {
    const { guard } = setup();
    assert.deepEqual(await resolve(guard, 'worker.example', false), {
      err: null,
      address: '10.0.0.5',
      family: 4,
    });
    const all = await resolve(guard, 'worker.example', true);
    assert.equal(all.err, null);
    assert.deepEqual(all.address, [
      { address: '10.0.0.5', family: 4 },
      { address: 'fd00::5', family: 6 },
    ]);
  });

  void it('fails when any address is link-local or metadata, including the IPv4-mapped form', async () => {
    const { guard } = setup();
    for (const host of ['evil.example', 'mapped.example']) {
      for (const all of [false, true]) {
        const { err } = await resolve(guard, host, all);
        assert.equal(err?.code, 'ERR_WORKER_ADDRESS_REFUSED', host);
        assert.match(err?.message ?? '', /link-local or cloud metadata address/);
        assert.match(err?.message ?? '', new RegExp(`${host.replace('.', '\\.')} resolves to`));
      }
    }
  });

  void it('with --worker-allow-cidr, fails when an address is outside the ranges', async () => {
    const { guard } = setup({ allowCidrs: ['10.0.0.0/8'] });
    const { err } = await resolve(guard, 'worker.example', true);
    assert.equal(err?.code, 'ERR_WORKER_ADDRESS_REFUSED');
    assert.match(err?.message ?? '', /--worker-allow-cidr \(worker\.example resolves to fd00::5\)/);
    const inside = setup({ allowCidrs: ['10.0.0.0/8', 'fd00::/8'] });
    assert.equal((await resolve(inside.guard, 'worker.example', true)).err, null);
  });

  void it('passes resolution failures through unchanged', async () => {
    const { guard, logs } = setup();
    const { err } = await resolve(guard, 'nowhere.example', false);
    assert.match(err?.message ?? '', /ENOTFOUND nowhere\.example/);
    assert.equal(logs.length, 0);
  });

  void it('logs a refused host and address once per window, then with the count it held back', async () => {
    const { guard, clock, logs } = setup();
    for (let i = 0; i < 5; i += 1) await resolve(guard, 'evil.example', false);
    assert.equal(logs.length, 1);
    assert.deepEqual(
      { host: logs[0]?.host, address: logs[0]?.address, suppressed: logs[0]?.suppressed },
      { host: 'evil.example', address: '169.254.169.254', suppressed: 0 },
    );
    await resolve(guard, 'mapped.example', false);
    assert.equal(logs.length, 2, 'another host and address has its own entry');
    clock.advance(REFUSAL_LOG_INTERVAL_MS);
    await resolve(guard, 'evil.example', false);
    assert.equal(logs.length, 3);
    assert.equal(logs[2]?.suppressed, 4);
  });
});
