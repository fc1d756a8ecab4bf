/**
 * The `calendar` mart: one row per date, whole calendar years from the first synced year
 * to a year after the last synced day, with ISO weeks, months, quarters, weekdays and
 * Brazil's national holidays (docs/warehouse.md "Marts"). Holidays are computed here
 * (pure, unit-tested); the rows are written by one set-based statement.
 */
import { quoteIdent } from '../warehouse/db.js';
import type { MergeClient } from '../warehouse/merge.js';

/** A national holiday: its date and official name. */
export interface Holiday {
  readonly date: string;
  readonly name: string;
}

const iso = (year: number, month: number, day: number): string =>
  `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;

/** Easter Sunday of `year` (Gregorian calendar; the anonymous algorithm of Meeus/Jones/Butcher). */
function easterSunday(year: number): string {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return iso(year, month, day);
}

/** Fixed national holidays (Lei 662/1949, 6.802/1980, 10.607/2002); 20 November from 2024 (Lei 14.759/2023). */
const FIXED: readonly { month: number; day: number; name: string; since?: number }[] = [
  { month: 1, day: 1, name: 'Confraternização Universal' },
  { month: 4, day: 21, name: 'Tiradentes' },
  { month: 5, day: 1, name: 'Dia do Trabalho' },
  { month: 9, day: 7, name: 'Independência do Brasil' },
  { month: 10, day: 12, name: 'Nossa Senhora Aparecida' },
  { month: 11, day: 2, name: 'Finados' },
  { month: 11, day: 15, name: 'Proclamação da República' },
  { month: 11, day: 20, name: 'Dia Nacional de Zumbi e da Consciência Negra', since: 2024 },
  { month: 12, day: 25, name: 'Natal' },
];

/** Brazil's national holidays of `year`, by date: the fixed ones and Good Friday (two days before Easter). */
export function nationalHolidays(year: number): Holiday[] {
  const easter = new Date(`${easterSunday(year)}T00:00:00Z`);
  const goodFriday = new Date(easter.getTime() - 2 * 86_400_000).toISOString().slice(0, 10);
  const fixed = FIXED.filter((h) => h.since === undefined || year >= h.since).map((h) => ({
    date: iso(year, h.month, h.day),
    name: h.name,
  }));
  return [...fixed, { date: goodFriday, name: 'Sexta-feira Santa' }].sort((x, y) =>
    x.date.localeCompare(y.date),
  );
}

/** The years the calendar must hold for the days `from`..`to`: theirs and the year after. */
function calendarYears(from: string, to: string): { first: number; last: number } {
  return { first: Number(from.slice(0, 4)), last: Number(to.slice(0, 4)) + 1 };
}

/** Inserts the missing dates of the years `first`..`last` (pure builder). */
function buildCalendarInsert(
  schema: string,
  first: number,
  last: number,
): { text: string; values: unknown[] } {
  const holidays: Holiday[] = [];
  for (let y = first; y <= last; y++) holidays.push(...nationalHolidays(y));
  return {
    text: `INSERT INTO ${quoteIdent(schema)}.calendar (calendar_date, year, quarter, month, month_start, month_name, day_of_month, day_of_year,
  iso_year, iso_week, week_start, iso_day_of_week, day_name, is_weekend, is_holiday, holiday_name, is_business_day)
SELECT d, extract(year FROM d)::int, extract(quarter FROM d)::int, extract(month FROM d)::int, date_trunc('month', d)::date,
       to_char(d, 'FMMonth'), extract(day FROM d)::int, extract(doy FROM d)::int,
       extract(isoyear FROM d)::int, extract(week FROM d)::int, date_trunc('week', d)::date, extract(isodow FROM d)::int,
       to_char(d, 'FMDay'), extract(isodow FROM d) >= 6, h.name IS NOT NULL, h.name,
       extract(isodow FROM d) < 6 AND h.name IS NULL
  FROM generate_series(make_date($1, 1, 1), make_date($2, 12, 31), interval '1 day') g
 CROSS JOIN LATERAL (SELECT g::date AS d) x
  LEFT JOIN unnest($3::date[], $4::text[]) h (day, name) ON h.day = x.d
ON CONFLICT (calendar_date) DO NOTHING`,
    values: [first, last, holidays.map((h) => h.date), holidays.map((h) => h.name)],
  };
}

/**
 * Makes the calendar hold every date of the years of `from`..`to` and of the year after;
 * a cheap count when it does already. Concurrent loads insert in date order, so they
 * cannot deadlock on the rows.
 */
export async function extendCalendar(
  client: MergeClient,
  schema: string,
  from: string,
  to: string,
): Promise<void> {
  const { first, last } = calendarYears(from, to);
  const { rows } = await client.query<{ whole: boolean }>(
    `SELECT count(*)::int = (make_date($2, 12, 31) - make_date($1, 1, 1) + 1) AS whole FROM ${quoteIdent(schema)}.calendar
      WHERE calendar_date BETWEEN make_date($1, 1, 1) AND make_date($2, 12, 31)`,
    [first, last],
  );
  if (rows[0]!.whole) return;
  const q = buildCalendarInsert(schema, first, last);
  await client.query(q.text, q.values);
}
