/**
 * The labour-law marts end to end (emulator over HTTP with its scripted labour-law cases → Redis →
 * Postgres): after a backfill, every row and flag of clt_daily, every count of clt_monthly and the
 * 90-day view hold what the emulator's own model says (truth `labourLaw`, computed apart from the
 * SQL), the scripted cases land on their known days, and the reconciliation with the source's
 * inconsistencies lists exactly the differences the model planted, with their reasons.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBackfillArgs } from '../src/backfill/args.js';
import { runBackfill, type BackfillSummary } from '../src/backfill/run.js';
import type { TruthLabourLaw } from '../src/emulator/truth.js';
import { runQualityChecks } from '../src/quality/run-checks.js';
import { startHarness, type Harness } from './sync-harness.js';

const TODAY = '2025-07-01';
// April is synced for the look-back of May's first days; days are compared from May on. The
// compared range holds no Good Friday nor 20 November (the emulator's calendar lacks them; the warehouse's
// has them).
const SYNC_FROM = '2025-04-01';
const FROM = '2025-05-01';
const TO = '2025-06-30';
const RESOURCES = 'companies,lookups,collaborators,punches,inconsistencies';

type TruthDay = TruthLabourLaw['days'][number];

/** A clt_daily row as a line: every column a test compares. */
const LINE = `company_cnpj || '|' || cpf || '|' || collaborator_record || '|' || work_date || '|' || department
  || '|' || to_char(first_punch_local, 'YYYY-MM-DD HH24:MI:SS') || '|' || to_char(last_punch_local, 'YYYY-MM-DD HH24:MI:SS')
  || '|' || punch_count || '|' || worked_seconds || '|' || coalesce(scheduled_seconds::text, '-')
  || '|' || coalesce(rest_before_seconds::text, '-') || '|' || short_rest
  || '|' || longest_break_seconds || '|' || break_required_seconds || '|' || short_break || '|' || break_not_punched
  || '|' || coalesce(overtime_seconds::text, '-') || '|' || overtime_over_2h || '|' || day_over_10h
  || '|' || night_seconds || '|' || night_reduced_seconds || '|' || consecutive_days_worked || '|' || seventh_day_worked
  || '|' || worked_on_holiday || '|' || manual_punches || '|' || adjusted_punches`;

const lineOf = (cnpj: string, d: TruthDay): string =>
  [
    cnpj,
    d.cpf,
    d.admissionDate,
    d.date,
    d.department,
    d.firstPunchLocal,
    d.lastPunchLocal,
    d.punchCount,
    d.workedSeconds,
    d.scheduledSeconds,
    d.restBeforeSeconds ?? '-',
    d.shortRest,
    d.longestBreakSeconds,
    d.breakRequiredSeconds,
    d.shortBreak,
    d.breakNotPunched,
    d.overtimeSeconds,
    d.overtimeOver2h,
    d.dayOver10h,
    d.nightSeconds,
    d.nightReducedSeconds,
    d.consecutiveDaysWorked,
    d.seventhDayWorked,
    d.workedOnHoliday,
    d.manualPunches,
    d.adjustedPunches,
  ].join('|');

describe('the labour-law marts after a backfill of a source with scripted labour-law cases', () => {
  let h: Harness;
  let summary: BackfillSummary;
  const q = async <T>(sql: string, values: unknown[] = []): Promise<T[]> =>
    (await h.pool.query(sql.replaceAll('$S', `"${h.schema}"`), values)).rows as T[];
  const truth = (cnpj: string) => h.emulator.truth.labourLaw(cnpj, FROM, TO);
  const allDays = () =>
    h.emulator.companies.flatMap((co) => truth(co.cnpj).days.map((d) => ({ cnpj: co.cnpj, ...d })));

  beforeAll(async () => {
    // A seed whose headquarters has two records to script (small scales hold few steady ones).
    h = await startHarness('clt_marts', {
      seed: 'labour-law',
      today: TODAY,
      from: '2025-03-01',
      labourLaw: true,
    });
    const rt = await h.runtime();
    summary = await runBackfill(
      rt,
      parseBackfillArgs({ from: SYNC_FROM, to: TO, resources: RESOURCES }, rt.config),
      { pollMs: 200 },
    );
  }, 300_000);
  afterAll(async () => {
    await h?.close();
  });

  it('loads every window', () => {
    expect(summary.failed, JSON.stringify(summary.failures)).toBe(0);
  });

  it('holds one clt_daily row per record day with punches, every column as the model computes it', async () => {
    const want = allDays()
      .map((d) => lineOf(d.cnpj, d))
      .sort();
    const got = await q<{ k: string }>(
      `select ${LINE} as k from $S.clt_daily where work_date between $1 and $2 order by 1`,
      [FROM, TO],
    );
    expect(want.length).toBeGreaterThan(300);
    expect(got.map((r) => r.k)).toEqual(want);
  });

  it('puts each scripted case on its known day (May 2025: the first Monday is the 5th)', async () => {
    const cnpj = h.emulator.companies[0]!.cnpj;
    const { cast } = truth(cnpj);
    expect(cast.day).not.toBeNull();
    expect(cast.night).not.toBeNull();
    type Row = Record<string, unknown>;
    const day = async (cpf: string, date: string) =>
      (
        await q<Row>(
          `select *, work_date::text as date, to_char(last_punch_local, 'YYYY-MM-DD HH24:MI:SS') as last_local
             from $S.clt_daily where company_cnpj = $1 and cpf = $2 and work_date = $3`,
          [cnpj, cpf, date],
        )
      )[0]!;
    expect(await day(cast.day!, '2025-05-01')).toMatchObject({ worked_on_holiday: true, findings: 1 });
    expect(await day(cast.day!, '2025-05-05')).toMatchObject({ overtime_over_2h: true, day_over_10h: true });
    expect(await day(cast.day!, '2025-05-06')).toMatchObject({
      short_rest: true,
      rest_before_seconds: 8.5 * 3600,
      manual_punches: 1,
      adjusted_punches: 1,
    });
    expect(await day(cast.day!, '2025-05-07')).toMatchObject({
      short_break: true,
      longest_break_seconds: 1800,
    });
    expect(await day(cast.day!, '2025-05-08')).toMatchObject({
      break_not_punched: true,
      short_break: false,
      findings: 0,
    });
    expect(await day(cast.day!, '2025-05-09')).toMatchObject({
      overtime_seconds: 2 * 3600 + 240,
      overtime_over_2h: false,
    });
    expect(await day(cast.day!, '2025-05-11')).toMatchObject({
      consecutive_days_worked: 7,
      seventh_day_worked: true,
    });
    expect(await day(cast.day!, '2025-05-12')).toMatchObject({ overtime_seconds: 0 });
    expect(await day(cast.night!, '2025-05-09')).toMatchObject({
      last_local: '2025-05-10 06:00:00',
      worked_seconds: 7 * 3600,
      night_seconds: 6 * 3600,
      night_reduced_seconds: 24686,
    });
    const saturday = await q(`select 1 from $S.clt_daily where cpf = $1 and work_date = '2025-05-10'`, [
      cast.night,
    ]);
    expect(saturday).toEqual([]);
  });

  /** Per company, department and month, each kind's days, people and rate, from the model's days. */
  const KINDS = {
    short_rest: (d: TruthDay) => d.shortRest,
    short_break: (d: TruthDay) => d.shortBreak,
    break_not_punched: (d: TruthDay) => d.breakNotPunched,
    overtime_over_2h: (d: TruthDay) => d.overtimeOver2h,
    day_over_10h: (d: TruthDay) => d.dayOver10h,
    night_work: (d: TruthDay) => d.nightSeconds > 0,
    seventh_day: (d: TruthDay) => d.seventhDayWorked,
    holiday_work: (d: TruthDay) => d.workedOnHoliday,
  } as const;
  /** 100 * part / whole rounded half up to two decimals, exactly, as numeric(8, 2) text. */
  const rate = (part: number, whole: number) => {
    const hundredths = Math.floor((20000 * part + whole) / (2 * whole));
    return `${Math.floor(hundredths / 100)}.${String(hundredths % 100).padStart(2, '0')}`;
  };
  const person = (d: TruthDay) => `${d.cpf}|${d.admissionDate}`;

  it('counts in clt_monthly, per company, department and month, every kind as the model does', async () => {
    const groups = new Map<string, (TruthDay & { cnpj: string })[]>();
    for (const d of allDays()) {
      const key = `${d.cnpj}|${d.department}|${d.date.slice(0, 7)}-01`;
      groups.set(key, [...(groups.get(key) ?? []), d]);
    }
    const want = [...groups]
      .map(([key, days]) => {
        const cells = [key, days.length, new Set(days.map(person)).size];
        for (const test of Object.values(KINDS)) {
          const hit = days.filter(test);
          cells.push(hit.length, new Set(hit.map(person)).size, rate(hit.length, days.length));
        }
        return cells.join('|');
      })
      .sort();
    const columns = Object.keys(KINDS).flatMap((k) => [`${k}_days`, `${k}_people`, `${k}_rate`]);
    const got = await q<{ k: string }>(
      `select concat_ws('|', company_cnpj, department, month, worked_days, people, ${columns.join(', ')}) as k
         from $S.clt_monthly where month between $1 and $2 order by 1`,
      [FROM, TO],
    );
    expect(want.length).toBeGreaterThan(5);
    expect(got.map((r) => r.k)).toEqual(want);
  });

  it('ranks in clt_people_90d the records with findings in the 90 days to the pinned today', async () => {
    // 90 days ending 2025-07-29 start on 2025-05-01: the compared range, and July holds no data.
    const findings = (d: TruthDay) =>
      [
        d.shortRest,
        d.shortBreak,
        d.overtimeOver2h,
        d.dayOver10h,
        d.seventhDayWorked,
        d.workedOnHoliday,
      ].filter(Boolean).length;
    const people = new Map<string, { cnpj: string; days: TruthDay[] }>();
    for (const d of allDays()) {
      const key = `${d.cnpj}|${person(d)}`;
      people.set(key, { cnpj: d.cnpj, days: [...(people.get(key)?.days ?? []), d] });
    }
    const totals = [...people].map(([key, p]) => ({
      key,
      cnpj: p.cnpj,
      days: p.days,
      findings: p.days.reduce((n, d) => n + findings(d), 0),
    }));
    const want = totals
      .filter((p) => p.findings > 0)
      .map((p) => {
        const rank = 1 + totals.filter((o) => o.cnpj === p.cnpj && o.findings > p.findings).length;
        const count = (test: (d: TruthDay) => boolean) => p.days.filter(test).length;
        return [
          p.key,
          p.days.length,
          p.findings,
          count(KINDS.short_rest),
          count(KINDS.short_break),
          count(KINDS.overtime_over_2h),
          count(KINDS.day_over_10h),
          count(KINDS.seventh_day),
          count(KINDS.holiday_work),
          rank,
        ].join('|');
      })
      .sort();
    const client = await h.pool.connect();
    try {
      await client.query(`set punchline.now = '2025-07-29 12:00:00-03'`);
      const { rows } = await client.query<{ k: string; start: string }>(
        `select concat_ws('|', company_cnpj, cpf, collaborator_record, worked_days, findings, short_rest_days,
                short_break_days, overtime_over_2h_days, day_over_10h_days, seventh_day_days, holiday_work_days,
                findings_rank) as k, period_start::text as start
           from "${h.schema}".clt_people_90d order by 1`,
      );
      expect(want.length).toBeGreaterThan(2);
      expect(rows.map((r) => r.k)).toEqual(want);
      expect(new Set(rows.map((r) => r.start))).toEqual(new Set([FROM]));
    } finally {
      await client.query('reset punchline.now');
      client.release();
    }
  });

  it('sets the source’s inconsistencies beside clt_daily per month and lists exactly the planted differences, with their reasons', async () => {
    // The source's types (spec 2.10) as the emulator sends them, by the clt_daily flag they speak of.
    const TYPES: Record<string, 'short_rest' | 'short_break' | 'overtime_over_2h'> = {
      'Interjornada inferior a 11 horas': 'short_rest',
      'Intervalo intrajornada inferior a 1 hora': 'short_break',
      'Horas extras acima do limite diário': 'overtime_over_2h',
    };
    const FLAGS = {
      short_rest: (d: TruthDay) => d.shortRest,
      short_break: (d: TruthDay) => d.shortBreak,
      overtime_over_2h: (d: TruthDay) => d.overtimeOver2h,
    } as const;
    const want: string[] = [];
    const planted: string[] = [];
    for (const co of h.emulator.companies) {
      const days = truth(co.cnpj).days;
      const byKey = new Map(days.map((d) => [`${d.collaboratorId}|${d.date}`, d]));
      const listed = new Set(
        h.emulator.truth
          .dayEntries('inconsistency', co.cnpj, FROM, TO)
          .map((e) => `${TYPES[String(e.entry.type)]}|${e.collaboratorId}|${String(e.entry.date)}`),
      );
      for (const month of ['2025-05', '2025-06'])
        for (const [kind, flag] of Object.entries(FLAGS)) {
          const inMonth = (key: string) => key.split('|')[2]!.startsWith(month);
          const source = [...listed].filter((k) => k.startsWith(`${kind}|`) && inMonth(k));
          const found = days
            .filter((d) => d.date.startsWith(month) && flag(d))
            .map((d) => `${kind}|${d.collaboratorId}|${d.date}`);
          const sourceOnly = source
            .filter((k) => !found.includes(k))
            .map((k) => byKey.get(k.slice(kind.length + 1)));
          const pre = sourceOnly.filter((d) => kind === 'short_break' && d?.breakNotPunched).length;
          const tolerance = sourceOnly.filter(
            (d) => kind === 'overtime_over_2h' && d && d.overtimeSeconds > 7200 && d.overtimeSeconds <= 7500,
          ).length;
          const other = sourceOnly.length - pre - tolerance;
          const warehouseOnly = found.filter((k) => !listed.has(k)).length;
          const status = pre + tolerance + other + warehouseOnly === 0 ? 'ok' : 'warn';
          want.push(
            [
              co.cnpj,
              month,
              kind,
              source.length,
              found.length,
              status,
              pre,
              tolerance,
              other,
              warehouseOnly,
            ].join('|'),
          );
          if (status === 'warn')
            planted.push(`${co.cnpj}|${month}|${kind}|${pre}|${tolerance}|${other}|${warehouseOnly}`);
        }
    }
    const { findings } = await runQualityChecks(
      h.pool,
      h.schema,
      { from: FROM, to: TO, checks: ['clt_vs_source'] },
      { now: new Date('2025-07-01T12:00:00-03:00') },
    );
    const reason = (detail: string | null, words: string) =>
      Number(new RegExp(`(\\d+) ${words}`).exec(detail ?? '')?.[1] ?? 0);
    const got = findings.map((f) =>
      [
        f.company,
        f.part,
        f.scope,
        f.expected,
        f.actual,
        f.status,
        reason(f.detail, 'listed as a short break'),
        reason(f.detail, 'listed above 2 h'),
        reason(f.detail, 'listed by the source only'),
        reason(f.detail, 'found by clt_daily only'),
      ].join('|'),
    );
    expect(got.sort()).toEqual(want.sort());
    // What differs is exactly what the emulator planted: each month of the headquarters, the
    // pre-recorded break the source lists as short and the 2 h 04 of overtime it lists above the limit.
    const hq = h.emulator.companies[0]!.cnpj;
    expect(planted.sort()).toEqual([
      `${hq}|2025-05|overtime_over_2h|0|1|0|0`,
      `${hq}|2025-05|short_break|1|0|0|0`,
      `${hq}|2025-06|overtime_over_2h|0|1|0|0`,
      `${hq}|2025-06|short_break|1|0|0|0`,
    ]);
    const stored = await q<{ n: number }>(
      `select count(*)::int as n from $S.quality_status where check_name = 'clt_vs_source' and status = 'warn' and part in ('2025-05', '2025-06')`,
    );
    expect(stored[0]!.n).toBe(planted.length);
  });
});
