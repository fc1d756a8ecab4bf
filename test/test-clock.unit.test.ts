/**
 * The tests' today (test/support/test-clock.ts): never the wall clock, settable for a run,
 * and the seven days `npm run test:any-date` runs the date-sensitive files for still hold a
 * weekend, a national holiday and a month end, one after the other.
 */
import { fileURLToPath } from 'node:url';
import { basename } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dayOf, isHoliday, weekday } from '../src/emulator/calendar.js';
import { addDays, utcToLocal } from '../src/util/time.js';
import {
  ANY_DATE_DAYS,
  DEFAULT_TEST_TODAY,
  clockAt,
  dateSensitiveFiles,
  testToday,
} from './support/test-clock.js';

describe('the tests’ today', () => {
  it('is PUNCHLINE_TEST_TODAY when set, else a fixed day, and a bad value is one line', () => {
    expect(testToday({})).toBe(DEFAULT_TEST_TODAY);
    expect(testToday({ PUNCHLINE_TEST_TODAY: ' 2026-11-02 ' })).toBe('2026-11-02');
    expect(() => testToday({ PUNCHLINE_TEST_TODAY: '2026-02-30' })).toThrow(
      /^PUNCHLINE_TEST_TODAY must be a date YYYY-MM-DD, got "2026-02-30"$/,
    );
  });

  it('gives clocks pinned to a local time of that day', () => {
    const now = clockAt('2026-11-02', '10:30:00', 'America/Sao_Paulo');
    expect(now().toISOString()).toBe('2026-11-02T13:30:00.000Z');
    expect(utcToLocal(now(), 'America/Manaus')).toBe('2026-11-02 09:30:00');
  });

  it('runs on seven consecutive days with a weekend, a national holiday and a month end', () => {
    expect(ANY_DATE_DAYS).toHaveLength(7);
    ANY_DATE_DAYS.slice(1).forEach((d, i) => expect(d).toBe(addDays(ANY_DATE_DAYS[i]!, 1)));
    expect(ANY_DATE_DAYS.filter((d) => [0, 6].includes(weekday(dayOf(d))))).toHaveLength(2);
    expect(ANY_DATE_DAYS.some((d) => isHoliday(dayOf(d)) && ![0, 6].includes(weekday(dayOf(d))))).toBe(true);
    expect(ANY_DATE_DAYS.some((d) => addDays(d, 1).slice(5, 7) !== d.slice(5, 7))).toBe(true);
  });

  it('finds the date-sensitive files by their import of the test clock', () => {
    const files = dateSensitiveFiles(fileURLToPath(new URL('.', import.meta.url))).map((f) => basename(f));
    expect(files).toContain('marts-today.e2e.test.ts');
    expect(files).not.toContain('marts.e2e.test.ts');
  });
});
