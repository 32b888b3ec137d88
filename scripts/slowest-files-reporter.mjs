// A node:test reporter that writes the slowest test files, so a slow file is seen without
// reading the whole TAP log. run-tests.mjs sends it to .tmp/slowest-tests.txt.
export default async function* slowestFiles(source) {
  const files = [];
  for await (const event of source) {
    // A top-level test point of a file run in its own process carries the file and its duration.
    if (event.type === 'test:pass' || event.type === 'test:fail') {
      const { nesting, file, details } = event.data;
      if (nesting === 0 && file !== undefined) files.push({ file, ms: details.duration_ms });
    }
  }
  const byFile = new Map();
  for (const { file, ms } of files) byFile.set(file, Math.max(byFile.get(file) ?? 0, ms));
  const rows = [...byFile].sort((a, b) => b[1] - a[1]).slice(0, 25);
  yield 'slowest test files (ms)\n';
  for (const [file, ms] of rows) yield `${Math.round(ms).toString().padStart(7)}  ${file}\n`;
}
