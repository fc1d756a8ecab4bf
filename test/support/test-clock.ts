/**
 * Which day the date-sensitive tests take as today, and clocks pinned to it. Never the
 * wall clock: a test that read it passed or failed by the calendar (on 2026-11-28 nobody
 * of the small group happened to be absent in the six days before, and the marts test
 * that expected someone failed on a fresh clone). A file that imports this module is
 * date-sensitive: `npm run test:any-date` (scripts/test-any-date.ts, a step of .ci/run)
 * runs each such file once for every day of {@link ANY_DATE_DAYS}, with
 * `PUNCHLINE_TEST_TODAY` set to it; a plain `npm test` uses {@link DEFAULT_TEST_TODAY}.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isCalendarDate, localToUtc } from '../../src/util/time.js';

/** The variable that sets the tests' today (`YYYY-MM-DD`). */
export const TEST_TODAY_VARIABLE = 'PUNCHLINE_TEST_TODAY';

/** Today of a run that sets none: a Saturday, the day the wall clock broke the suite. */
export const DEFAULT_TEST_TODAY = '2026-11-28';

/**
 * Seven consecutive days the date-sensitive files are run for: a month end on a Saturday
 * (2026-10-31), a weekend, and a national holiday on a Monday (Finados, 2026-11-02);
 * test/test-clock.unit.test.ts checks that the list still holds each of them.
 */
export const ANY_DATE_DAYS = [
  '2026-10-29',
  '2026-10-30',
  '2026-10-31',
  '2026-11-01',
  '2026-11-02',
  '2026-11-03',
  '2026-11-04',
] as const;

/** The tests' today: `PUNCHLINE_TEST_TODAY`, else {@link DEFAULT_TEST_TODAY}; a bad value throws one line. */
export function testToday(env: NodeJS.ProcessEnv = process.env): string {
  const value = env[TEST_TODAY_VARIABLE]?.trim();
  if (value === undefined || value === '') return DEFAULT_TEST_TODAY;
  if (!isCalendarDate(value))
    throw new Error(`${TEST_TODAY_VARIABLE} must be a date YYYY-MM-DD, got ${JSON.stringify(value)}`);
  return value;
}

/** A clock that always says `time` (`HH:MM:SS`) of `day`, local time of `zone`. */
export function clockAt(day: string, time: string, zone: string): () => Date {
  const instant = localToUtc(`${day} ${time}`, zone);
  return () => new Date(instant);
}

/** The date-sensitive test files under `testDir` (those that import this module), sorted. */
export function dateSensitiveFiles(testDir: string): string[] {
  return readdirSync(testDir)
    .filter((f) => f.endsWith('.test.ts'))
    .filter((f) => /from '\.\/support\/test-clock\.js'/.test(readFileSync(join(testDir, f), 'utf8')))
    .sort()
    .map((f) => join(testDir, f));
}
