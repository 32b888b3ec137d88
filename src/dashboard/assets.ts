/**
 * The dashboard page's files, read once at startup into memory: the page itself (src/dashboard/
 * page/) and the uPlot build it draws with, both copied into dist/dashboard-assets/ by
 * `npm run build` (scripts/build-dashboard.mjs), so the gateway serves everything itself and the
 * page makes no request elsewhere. The folder is found from the package root, which holds for the
 * compiled gateway in dist/ and for the tests' build alike.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface DashboardAsset {
  readonly body: Buffer;
  readonly contentType: string;
}

export interface DashboardAssets {
  /** index.html with `{{BASE}}` still in it. */
  readonly indexHtml: string;
  /** Every other file, by name. */
  readonly files: ReadonlyMap<string, DashboardAsset>;
}

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.txt': 'text/plain; charset=utf-8',
};

/** Where `npm run build` puts the page (relative to the package root). */
export const ASSETS_DIR = join('dist', 'dashboard-assets');

/** The built assets, or undefined when the package was not built (the route then says so). */
export function loadDashboardAssets(
  dir = join(packageRoot(fileURLToPath(import.meta.url)), ASSETS_DIR),
): DashboardAssets | undefined {
  const index = join(dir, 'index.html');
  if (!existsSync(index)) return undefined;
  const files = new Map<string, DashboardAsset>();
  for (const name of readdirSync(dir)) {
    const type = CONTENT_TYPES[extname(name)];
    if (name === 'index.html' || type === undefined) continue;
    files.set(name, { body: readFileSync(join(dir, name)), contentType: type });
  }
  return { indexHtml: readFileSync(index, 'utf8'), files };
}

function packageRoot(from: string): string {
  for (let dir = dirname(from); ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      const { name } = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown };
      if (name === 'switchyard') return dir;
    }
    if (dirname(dir) === dir) return dirname(from);
  }
}
