// JSON results (bench/results/<name>.json, gitignored) with the machine they came from, since a
// number from a 2-vCPU shared guest means little without it.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, release } from 'node:os';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const RESULTS_DIR = fileURLToPath(new URL('../results/', import.meta.url));

export interface MachineInfo {
  nproc: number;
  cpuModel: string;
  node: string;
  kernel: string;
}

export function machineInfo(): MachineInfo {
  let cpuModel = cpus()[0]?.model ?? 'unknown';
  try {
    const m = /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'));
    if (m?.[1] !== undefined) cpuModel = m[1];
  } catch {
    // Not Linux; os.cpus() is the fallback.
  }
  return { nproc: cpus().length, cpuModel, node: process.version, kernel: release() };
}

/** Writes `{date, machine, ...data}` to bench/results/<name>.json and returns the path. */
export function writeResult(name: string, data: Record<string, unknown>): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const path = `${RESULTS_DIR}${name}.json`;
  const body = { date: new Date().toISOString(), machine: machineInfo(), ...data };
  writeFileSync(path, `${JSON.stringify(body, null, 2)}\n`);
  return path;
}
