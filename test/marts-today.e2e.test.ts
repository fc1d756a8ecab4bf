/**
 * A day that has not ended yet in the company's time zone, on whichever day the run takes
 * as today (test/support/test-clock.ts: never the wall clock; `npm run test:any-date` runs
 * this file for seven days in a row). The emulator's today is pinned to that day and the
 * sync's clock to its morning; daily_attendance is read as of the same moment (session
 * setting `punchline.now`). Today is never counted absent, and every earlier day counts
 * exactly the absences the emulator's own model has: none on a weekend or a holiday, the
 * scheduled days without a punch or a leave otherwise.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBackfillArgs } from '../src/backfill/args.js';
import { runBackfill } from '../src/backfill/run.js';
import { addDays } from '../src/util/time.js';
import { startHarness, type Harness } from './sync-harness.js';
import { clockAt, testToday } from './support/test-clock.js';

const TODAY = testToday();
const ZONE = 'America/Sao_Paulo';
/** Mid-morning of today: the day has begun, not ended. */
const NOW = clockAt(TODAY, '10:30:00', ZONE);
const FROM = addDays(TODAY, -6);

/** Sorted `cnpj|cpf|day` keys. */
const keys = (rows: readonly { cnpj: string; cpf: string; day: string }[]) =>
  rows.map((r) => `${r.cnpj}|${r.cpf}|${r.day}`).sort();

describe(`a day that has not ended yet in the company’s time zone (today ${TODAY})`, () => {
  let h: Harness;
  /** Reads the warehouse as of {@link NOW}: the views take today from `punchline.now`. */
  const q = async <T>(sql: string, values: unknown[] = []): Promise<T[]> => {
    const client = await h.pool.connect();
    try {
      await client.query('begin');
      await client.query(`select set_config('punchline.now', $1, true)`, [NOW().toISOString()]);
      const r = await client.query(sql.replaceAll('$S', `"${h.schema}"`), values);
      await client.query('commit');
      return r.rows as T[];
    } finally {
      client.release();
    }
  };
  /** What the emulator's model says of each day before today: the unjustified absences. */
  const truthAbsent = () =>
    keys(
      h.emulator.companies.flatMap((co) =>
        h.emulator.truth
          .absentDays(co.cnpj, FROM, addDays(TODAY, -1))
          .map((a) => ({ cnpj: co.cnpj, cpf: a.cpf, day: a.date })),
      ),
    );

  beforeAll(async () => {
    h = await startHarness('marts_today', { today: TODAY });
    const rt = await h.runtime({ API_TIMEZONE: ZONE }, { now: NOW });
    const summary = await runBackfill(
      rt,
      parseBackfillArgs(
        { from: FROM, to: TODAY, resources: 'companies,collaborators,punches,absences' },
        rt.config,
      ),
      { pollMs: 100 },
    );
    expect(summary.failed, JSON.stringify(summary.failures)).toBe(0);
  }, 120_000);
  afterAll(async () => {
    await h?.close();
  });

  it('daily_attendance says today is not known yet, and each earlier day holds the model’s absences', async () => {
    const days = await q<{ day: string; over: boolean; unknown: number; absent: number; rows: number }>(
      `select work_date::text as day, bool_and(is_day_over) as over, count(*) filter (where is_absent is null)::int as unknown,
              count(*) filter (where is_absent)::int as absent, count(*)::int as rows
         from $S.daily_attendance group by 1 order by 1`,
    );
    expect(days.map((d) => d.day)).toEqual(Array.from({ length: 7 }, (_, i) => addDays(FROM, i)));
    const todays = days.find((d) => d.day === TODAY)!;
    expect(todays.rows).toBeGreaterThan(0);
    expect(todays).toMatchObject({ over: false, absent: 0, unknown: todays.rows });
    expect(days.filter((d) => d.day < TODAY).every((d) => d.over && d.unknown === 0)).toBe(true);
    const absent = await q<{ cnpj: string; cpf: string; day: string }>(
      `select company_cnpj as cnpj, cpf, work_date::text as day from $S.daily_attendance where is_absent`,
    );
    expect(keys(absent)).toEqual(truthAbsent());
  });

  it('employee_daily, written by the sync’s clock, agrees: today unknown, earlier days as the model says', async () => {
    const [today] = await q<{ rows: number; unknown: number; over: number }>(
      `select count(*)::int as rows, count(*) filter (where is_absent is null)::int as unknown, count(*) filter (where is_day_over)::int as over
         from $S.employee_daily where work_date = $1`,
      [TODAY],
    );
    expect(today!.rows).toBeGreaterThan(0);
    expect(today).toMatchObject({ unknown: today!.rows, over: 0 });
    const [earlier] = await q<{ rows: number; unknown: number }>(
      `select count(*)::int as rows, count(*) filter (where is_absent is null or not is_day_over)::int as unknown
         from $S.employee_daily where work_date < $1`,
      [TODAY],
    );
    expect(earlier!.rows).toBeGreaterThan(0);
    expect(earlier!.unknown).toBe(0);
    const absent = await q<{ cnpj: string; cpf: string; day: string }>(
      `select company_cnpj as cnpj, cpf, work_date::text as day from $S.employee_daily where is_absent`,
    );
    expect(keys(absent)).toEqual(truthAbsent());
  });
});
