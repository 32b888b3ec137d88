// The cluster primary's half of the claim benchmark, forked by claims.ts with an IPC channel: an
// AdmissionPrimary wired to the channel as src/cluster/primary.ts wires it to each gateway process
// (`handle` for every message, answers through `send` with a callback that drops a send racing the
// close). It also answers `bench-cpu` with its own process.cpuUsage(), so the benchmark can book
// the primary's CPU per claim next to the gateway process's.
import { AdmissionPrimary } from '../../src/admission/store/admission-primary.js';

const WORKER_ID = 1;
const primary = new AdmissionPrimary();

function send(msg: object): void {
  if (process.connected) process.send?.(msg, undefined, undefined, () => undefined);
}

primary.attach(WORKER_ID, { send });
process.on('message', (msg: unknown) => {
  if (primary.handle(WORKER_ID, msg)) return;
  const m = msg as { t?: unknown; id?: unknown };
  if (m.t === 'bench-cpu') send({ t: 'bench-cpu', id: m.id, ...process.cpuUsage() });
});
// The benchmark is done (or gone): nothing else keeps this process.
process.on('disconnect', () => process.exit(0));
send({ t: 'bench-ready' });
