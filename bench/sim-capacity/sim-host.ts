// Child process of the sim-capacity benchmark: serves a fleet of simulated workers on one core
// (one Node main thread) and answers the driver's commands on stdin, one JSON line each, so the
// driver's own load generation never shares this process's core.
//   start <json SimFleetSpec>  → {"urls":[...],"startMs":N,"rssMb":N}
//   cpu                        → {"cpuMs":N,"wallMs":N,"rssMb":N} (cumulative since start)
//   stop                       → closes the fleet and exits
import { createInterface } from 'node:readline';
import type { SimFleet, SimFleetSpec } from '@switchyard/sim';
import { startSimFleetFromSpec } from '@switchyard/sim';

let fleet: SimFleet | undefined;
const born = performance.now();

function reply(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

const rssMb = (): number => Math.round(process.memoryUsage().rss / 1e5) / 10;

for await (const line of createInterface({ input: process.stdin })) {
  const [command = '', ...rest] = line.split(' ');
  if (command === 'start') {
    const t0 = performance.now();
    await fleet?.close();
    fleet = await startSimFleetFromSpec(JSON.parse(rest.join(' ')) as SimFleetSpec);
    reply({
      urls: fleet.workers.map((w) => w.url),
      startMs: performance.now() - t0,
      rssMb: rssMb(),
    });
  } else if (command === 'cpu') {
    const { user, system } = process.cpuUsage();
    reply({ cpuMs: (user + system) / 1000, wallMs: performance.now() - born, rssMb: rssMb() });
  } else if (command === 'stop') {
    await fleet?.close();
    break;
  }
}
process.exit(0);
