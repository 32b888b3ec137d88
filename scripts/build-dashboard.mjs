#!/usr/bin/env node
// Copies the dashboard page (src/dashboard/page/) and the uPlot build it draws with into
// dist/dashboard-assets/, where the gateway serves them from. uPlot is vendored here, at build
// time, so an installed gateway needs neither the network nor a build step to show the page.
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const out = join('dist', 'dashboard-assets');
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const page = join('src', 'dashboard', 'page');
for (const name of existsSync(page) ? readdirSync(page) : []) {
  copyFileSync(join(page, name), join(out, name));
}
const uplot = dirname(createRequire(import.meta.url).resolve('uplot/package.json'));
copyFileSync(join(uplot, 'dist', 'uPlot.iife.min.js'), join(out, 'uPlot.iife.min.js'));
copyFileSync(join(uplot, 'dist', 'uPlot.min.css'), join(out, 'uPlot.min.css'));
copyFileSync(join(uplot, 'LICENSE'), join(out, 'uPlot.LICENSE.txt'));
