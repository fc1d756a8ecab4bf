/**
 * `npm run test:any-date`: runs the date-sensitive test files (those that import
 * test/support/test-clock.ts) once for each of seven consecutive days
 * (`ANY_DATE_DAYS`: a weekend, a national holiday, a month end), with
 * `PUNCHLINE_TEST_TODAY` set to the day, and exits 1 when any run failed. A step of
 * .ci/run: the suite must pass on any date, not only on the day it runs.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ANY_DATE_DAYS, TEST_TODAY_VARIABLE, dateSensitiveFiles } from '../test/support/test-clock.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const files = dateSensitiveFiles(fileURLToPath(new URL('../test', import.meta.url)));
if (files.length === 0) {
  console.error(
    'no test file imports test/support/test-clock.ts: nothing is date-sensitive, or the search broke',
  );
  process.exit(1);
}
const failed: string[] = [];
for (const day of ANY_DATE_DAYS) {
  console.log(`\n-- ${TEST_TODAY_VARIABLE}=${day}: ${files.map((f) => f.slice(root.length)).join(' ')}`);
  // The default reporter only: the JSON report of the main run (.ci/run's closing line) stays as it is.
  const run = spawnSync('npx', ['vitest', 'run', '--reporter=default', ...files], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, [TEST_TODAY_VARIABLE]: day },
  });
  if (run.status !== 0) failed.push(day);
}
console.log(
  failed.length === 0
    ? `\nthe date-sensitive files passed on each of ${ANY_DATE_DAYS.join(', ')}`
    : `\nthe date-sensitive files failed on ${failed.join(', ')}`,
);
process.exit(failed.length === 0 ? 0 : 1);
