// Consecutive ports for the tests that need them (a fleet on --port/basePort counts up). Asking
// the kernel for one ephemeral port and hoping the next ones are free collides with whatever else
// runs: ephemeral ports are handed to every outgoing connection. So the range is drawn below
// Linux's default ephemeral range, probed by binding every port of it, and the start is retried
// when a port is taken between the probe and the bind.
import { createServer } from 'node:net';

const LOW = 20_000;
/** Linux's default ip_local_port_range starts at 32768. */
const HIGH = 32_768;
const ATTEMPTS = 50;

function bind(port: number): Promise<(() => Promise<void>) | undefined> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(undefined));
    srv.listen(port, '127.0.0.1', () =>
      resolve(() => new Promise<void>((done) => srv.close(() => done()))),
    );
  });
}

async function rangeIsFree(base: number, count: number): Promise<boolean> {
  const held: (() => Promise<void>)[] = [];
  try {
    for (let port = base; port < base + count; port++) {
      const release = await bind(port);
      if (release === undefined) return false;
      held.push(release);
    }
    return true;
  } finally {
    await Promise.all(held.map((release) => release()));
  }
}

const inUse = (err: unknown): boolean =>
  (err as NodeJS.ErrnoException | undefined)?.code === 'EADDRINUSE';

/**
 * Calls `start` with the first of `count` consecutive free ports, retrying on another range when
 * it fails with EADDRINUSE (someone took a port after the probe); any other error is the test's.
 */
export async function onConsecutivePorts<T>(
  count: number,
  start: (base: number) => Promise<T>,
): Promise<T> {
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const base = LOW + Math.floor(Math.random() * (HIGH - LOW - count));
    if (!(await rangeIsFree(base, count))) continue;
    try {
      return await start(base);
    } catch (err) {
      if (!inUse(err)) throw err;
    }
  }
  throw new Error(`no ${count} consecutive free ports in ${ATTEMPTS} attempts`);
}
