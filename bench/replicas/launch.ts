// `switchyard launch`, with `--workers N` when N > 1, started and waited for until every gateway
// process can route. startGateway alone is not enough for N > 1: its /readiness answer comes from
// whichever process took the connection, the primary deals connections to a process as soon as
// that one listens, and a process listens before it has registered its startup workers (until
// then it answers 503 server_selection_failed). So this waits for the primary's one
// 'switchyard listening' line (printed once every process listens), then asks /readiness on
// fresh connections, two per process: the primary deals them round robin.
import { request } from 'undici';
import { startGateway, type GatewayProcess, type GatewayStart } from '../lib/services.js';

export async function startLaunch(processes: number, opts: GatewayStart): Promise<GatewayProcess> {
  const cluster = processes > 1;
  const gw = await startGateway({
    ...opts,
    // Info level only for the primary's 'switchyard listening' line (nothing logs per request).
    extraFlags: [
      ...(opts.extraFlags ?? []),
      ...(cluster ? ['--workers', String(processes), '--log-level', 'info'] : []),
    ],
    readyTimeoutMs: opts.readyTimeoutMs ?? 30_000,
  });
  if (!cluster) return gw;
  try {
    await gw.proc.waitForLine(/switchyard listening/, 30_000);
    await everyProcessReady(gw.url, processes);
  } catch (err) {
    await gw.proc.stop();
    throw err;
  }
  return gw;
}

async function everyProcessReady(url: string, processes: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    let ready = 0;
    for (let i = 0; i < processes * 2; i++) {
      const res = await request(`${url}/readiness`, { reset: true });
      await res.body.dump();
      if (res.statusCode === 200) ready++;
    }
    if (ready === processes * 2) return;
    if (Date.now() > deadline) throw new Error(`not every process of ${url} became ready`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
