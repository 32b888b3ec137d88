/**
 * The repository's root folder, found by walking up to the gateway's package.json. Tests run
 * both from test/ (tsx) and compiled into .tmp/test/, so a fixed `../..` would point at a
 * different folder in each.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      const { name } = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string };
      if (name === 'switchyard') return dir;
    }
    if (dirname(dir) === dir) throw new Error(`no switchyard package.json above ${from}`);
  }
}

export const REPO_ROOT = findRoot(dirname(fileURLToPath(import.meta.url)));

/** A path inside the repository, e.g. `repoPath('docs', 'api.md')`. */
export function repoPath(...parts: string[]): string {
  return join(REPO_ROOT, ...parts);
}
