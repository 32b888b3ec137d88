// Node's TAP reporter, with one addition: just before the closing summary (`# tests N` … `# fail N`)
// it lists every failed test as a `# failed:` diagnostic line (file, test name, the error's start).
// A CI log that keeps only its tail then still says which test failed, not only how many.
import { tap } from 'node:test/reporters';

function firstLine(error) {
  const cause = error?.cause ?? error;
  const lines = String(cause?.message ?? cause ?? '').split('\n');
  return lines
    .map((l) => l.trim())
    .filter(Boolean)
    .slice(0, 3)
    .join(' ')
    .slice(0, 240);
}

async function* withFailures(source) {
  const failures = [];
  let listed = false;
  for await (const event of source) {
    if (event.type === 'test:fail') {
      const { name, file, nesting, details } = event.data;
      // A file's own test point fails whenever a test in it does; the tests themselves say more.
      const wrapper = nesting === 0 && file !== undefined && name === file;
      if (!wrapper) failures.push(`${file ?? '?'} › ${name}: ${firstLine(details?.error)}`);
    }
    const summaryStarts =
      event.type === 'test:diagnostic' &&
      event.data.nesting === 0 &&
      /^tests \d+$/.test(event.data.message);
    if (summaryStarts && !listed) {
      listed = true;
      for (const failure of failures) {
        yield { type: 'test:diagnostic', data: { nesting: 0, message: `failed: ${failure}` } };
      }
    }
    yield event;
  }
}

export default async function* tapWithFailures(source) {
  yield* tap(withFailures(source));
}
