#!/usr/bin/env node
// Entry point. Runs the compiled CLI; `npm ci` builds it (the `prepare` script).
import { main } from '../dist/cli/main.js';

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`switchyard: ${err?.stack ?? err}\n`);
    process.exit(1);
  },
);
