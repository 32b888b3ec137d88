/**
 * Debian's headless Chromium (installed by scripts/ensure-chromium.sh), driven through
 * playwright-core, which brings no browser of its own. Each launch gets a fresh profile in a
 * temporary folder and the flags that keep Chromium from calling home, so a test's only traffic
 * is to the loopback servers it starts.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

// Everything Chromium would fetch on its own (component and safe-browsing updates, sync, field
// trials, QUIC probes) is switched off; GPU and the sandbox are not available in CI containers.
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** The chromium binary: `$CHROMIUM` if set, else `chromium` on PATH; undefined when neither. */
export function findChromium(): string | undefined {
  const fromEnv = process.env.CHROMIUM;
  if (fromEnv) return fromEnv;
  const found = spawnSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' });
  const path = found.stdout.trim();
  return found.status === 0 && path !== '' ? path : undefined;
}

/**
 * The `skip` option for a browser test: skipped only on a developer's machine without
 * Chromium. In CI (`CI` set) it runs and fails, since .ci/run installs Chromium and a silently
 * skipped browser test would hide a broken install.
 */
export function skipWithoutChromium(): string | false {
  if (findChromium() !== undefined || process.env.CI) return false;
  return 'chromium is not installed (bash scripts/ensure-chromium.sh installs it)';
}

export interface Browser {
  readonly context: BrowserContext;
  /** Closes the browser and removes its profile folder. */
  close(): Promise<void>;
}

export type ContextOptions = NonNullable<Parameters<typeof chromium.launchPersistentContext>[1]>;

/** Launches Chromium with a fresh profile; `options` are Playwright's context options. */
export async function launchChromium(options: ContextOptions = {}): Promise<Browser> {
  const executablePath = findChromium();
  if (executablePath === undefined) {
    throw new Error('chromium is not on PATH; run `bash scripts/ensure-chromium.sh` first');
  }
  const profile = await mkdtemp(join(tmpdir(), 'switchyard-chromium-'));
  try {
    const context = await chromium.launchPersistentContext(profile, {
      executablePath,
      args: ARGS,
      ...options,
    });
    return {
      context,
      close: async () => {
        await context.close();
        await rm(profile, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await rm(profile, { recursive: true, force: true });
    throw err;
  }
}
