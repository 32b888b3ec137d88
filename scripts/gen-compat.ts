// Writes docs/compat.md from the flag table and the SMG route list: `npm run docs:compat`.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderCompatDoc } from '../src/compat/render-compat-doc.js';

export const COMPAT_DOC_PATH = fileURLToPath(new URL('../docs/compat.md', import.meta.url));

writeFileSync(COMPAT_DOC_PATH, renderCompatDoc());
process.stdout.write(`wrote ${COMPAT_DOC_PATH}\n`);
