/**
 * The analyst marts end to end (emulator over HTTP with the quirks of real data → Redis →
 * Postgres): after a backfill, employments, employee_daily, monthly_headcount,
 * absence_days and the new columns of monthly_hours hold what the emulator's own model
 * says — its roster (admissions, dismissals, blocks), its absence ledger, its day
 * metrics and totals — for a duplicated CPF and a re-hire too; two concurrent records
 * of one CPF do not churn the history; a record only period data shows takes newer
 * attributes and keeps them against older data; a window that changes rewrites only
 * its own days; and a dismissal pushed through punchline dates the employment's end.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBackfillArgs } from '../src/sync/backfill-args.js';
import { runBackfill, type BackfillSummary } from '../src/sync/backfill.js';
import type { SyncRuntime } from '../src/sync/runtime.js';
import { TOTAL_HOURS_KEYS } from '../src/api/schemas.js';
import { addDays } from '../src/util/time.js';
import { startHarness, type Harness } from './sync-harness.js';

const TODAY = '2026-10-31';
// The re-hire quirk dismisses and re-admits in the month about six weeks before today.
const FROM = '2026-08-01';
const TO = TODAY;
const RESOURCES = 'companies,lookups,collaborators,punches,hour_totals,tardiness,hour_bank,absences';
const BANDS = ['over_time_1', 'over_time_2', 'over_time_3', 'over_time_4', 'over_time_dsr', 'over_time_holiday'] as const;

/** Every day from `from` to `to`, inclusive. */
function days(from: string, to: string): string[] {
  const out: string[] = [];
  for (let d = from; d <= to; d = addDays(d, 1)) out.push(d);
  return out;
}
const max = (a: string, b: string) => (a > b ? a : b);
const min = (a: string, b: string) => (a < b ? a : b);

describe('the analyst marts after a backfill of a source with the quirks of real data', () => {
  let h: Harness;
  let rt: SyncRuntime;
  let summary: BackfillSummary;
  const q = async <T>(sql: string, values: unknown[] = []): Promise<T[]> => (await h.pool.query(sql.replaceAll('$S', `"${h.schema}"`), values)).rows as T[];
  const sync = (args: Record<string, unknown>) => runBackfill(rt, parseBackfillArgs({ force: true, ...args }, rt.config), { pollMs: 100 });

  /** Each record the model has data of in the range, or lists: when it is employed within the range. */
  const employed = () =>
    h.emulator.companies.flatMap((co) =>
      h.emulator.truth
        .collaborators(co.cnpj)
        .filter((c) => c.admission_date <= TO && (c.listed || c.lastDataDate >= FROM))
        .map((c) => ({
          cnpj: co.cnpj,
          cpf: c.national_registry,
          record: c.admission_date,
          department: c.department,
          listed: c.listed,
          leftOn: c.listed ? null : c.lastDataDate,
          first: max(c.admission_date, FROM),
          last: c.listed ? TO : min(c.lastDataDate, TO),
        })),
    );

  beforeAll(async () => {
    h = await startHarness('marts', { today: TODAY, quirks: true });
    rt = await h.runtime();
    summary = await runBackfill(rt, parseBackfillArgs({ from: FROM, to: TO, resources: RESOURCES }, rt.config), { pollMs: 200 });
  }, 300_000);
  afterAll(async () => {
    await h?.close();
  });

  it('loads every window', () => {
    expect(summary.failed, JSON.stringify(summary.failures)).toBe(0);
  });

  it('has one employment per collaborator record, with its admission, whether it is listed and when it ended (re-hire and duplicated CPF included)', async () => {
    const want = employed().map((e) => `${e.cnpj}|${e.cpf}|${e.record}|listed=${e.listed}|${e.leftOn ?? '-'}|${e.leftOn ? 'inferred' : '-'}`).sort();
    const got = await q<{ k: string }>(
      `select company_cnpj || '|' || cpf || '|' || collaborator_record || '|listed=' || is_listed || '|' || coalesce(left_on::text, '-') || '|' || coalesce(left_on_source, '-') as k
         from $S.employments order by 1`,
    );
    expect(got.map((r) => r.k)).toEqual(want);
    const cases = h.emulator.companies.flatMap((c) => h.emulator.truth.duplicates(c.cnpj).filter((d) => d.kind !== 'rehire').map((d) => ({ cnpj: c.cnpj, ...d })));
    expect(cases.map((d) => d.kind).sort()).toEqual(['duplicateCpf', 'rehireInMonth']);
    for (const d of cases) {
      const rows = await q<{ record: string; left_on: string | null }>(
        `select collaborator_record as record, left_on::text from $S.employments where company_cnpj = $1 and cpf = $2 order by 1`,
        [d.cnpj, d.cpf],
      );
      expect(rows).toEqual(d.records.map((r) => ({ record: r.admissionDate, left_on: r.dismissalDate })).sort((a, b) => a.record.localeCompare(b.record)));
    }
  });

  it('has a day row per record and day employed, with the worked time, overtime and lateness the model gives', async () => {
    const want = new Map<string, string>();
    for (const e of employed()) for (const d of days(e.first, e.last)) want.set(`${e.cnpj}|${e.cpf}|${e.record}|${d}`, `${e.department}|`);
    const admission = new Map(h.emulator.companies.flatMap((co) => h.emulator.truth.collaborators(co.cnpj).map((c) => [c.collaboratorId, c.admission_date] as const)));
    const worked = new Map<string, number>();
    const overtime = new Map<string, number>();
    const late = new Map<string, number>();
    for (const co of h.emulator.companies) {
      for (const w of h.emulator.truth.workDays(co.cnpj, FROM, TO)) worked.set(`${co.cnpj}|${w.cpf}|${admission.get(w.collaboratorId)}|${w.date}`, w.workedSeconds);
      for (const t of h.emulator.truth.tardiness(co.cnpj, FROM, TO)) late.set(`${co.cnpj}|${t.cpf}|${admission.get(t.collaboratorId)}|${t.date}`, t.minutesLateSeconds);
      for (const d of days(FROM, TO)) {
        for (const b of h.emulator.truth.hourBank(co.cnpj, d)) overtime.set(`${co.cnpj}|${b.cpf}|${admission.get(b.collaboratorId)}|${d}`, b.totalOvertimeSeconds);
      }
    }
    const rows = await q<{ k: string; department: string; worked: number | null; overtime: number | null; late: number; basis: string }>(
      `select company_cnpj || '|' || cpf || '|' || collaborator_record || '|' || work_date as k, department, worked_seconds as worked,
              overtime_seconds as overtime, late_seconds as late, attributes_basis as basis
         from $S.employee_daily`,
    );
    expect(rows.map((r) => r.k).sort()).toEqual([...want.keys()].sort());
    const wrong = rows.filter(
      (r) =>
        `${r.department}|` !== want.get(r.k) ||
        r.worked !== (worked.get(r.k) ?? null) ||
        r.overtime !== (overtime.get(r.k) ?? null) ||
        r.late !== (late.get(r.k) ?? 0),
    );
    expect(wrong).toEqual([]);
    // Every day was synced before its records' first list sync... except none: the list came with the backfill.
    expect(new Set(rows.map((r) => r.basis))).toContain('before_history');
    expect([...overtime.values()].some((v) => v > 0) && [...late.values()].some((v) => v > 0)).toBe(true);
  });

  it('counts headcount, hires, leavers and turnover per company, department and month as the roster says', async () => {
    const want = new Map<string, { first: number; last: number; sum: number; hires: number; leavers: number; n: number; firstDay: string; lastDay: string }>();
    const emp = employed();
    for (const co of h.emulator.companies) {
      const departments = new Set(emp.filter((e) => e.cnpj === co.cnpj).map((e) => e.department));
      for (let month = `${FROM.slice(0, 7)}-01`; month <= TO; month = `${addDays(`${month.slice(0, 7)}-28`, 4).slice(0, 7)}-01`) {
        const monthDays = days(max(month, FROM), min(addDays(`${addDays(`${month.slice(0, 7)}-28`, 4).slice(0, 7)}-01`, -1), TO));
        for (const dept of departments) {
          const mine = emp.filter((e) => e.cnpj === co.cnpj && e.department === dept);
          const on = (d: string) => mine.filter((e) => e.first <= d && d <= e.last).length;
          const sum = monthDays.reduce((n, d) => n + on(d), 0);
          if (sum === 0) continue;
          want.set(`${co.cnpj}|${dept}|${month}`, {
            first: on(monthDays[0]!),
            last: on(monthDays.at(-1)!),
            sum,
            hires: mine.filter((e) => e.record >= monthDays[0]! && e.record <= monthDays.at(-1)!).length,
            leavers: mine.filter((e) => e.leftOn !== null && e.leftOn >= monthDays[0]! && e.leftOn <= monthDays.at(-1)!).length,
            n: monthDays.length,
            firstDay: monthDays[0]!,
            lastDay: monthDays.at(-1)!,
          });
        }
      }
    }
    const rows = await q<{ k: string; first: number; last: number; avg: string; hires: number; leavers: number; n: number; first_day: string; last_day: string; turnover: string | null }>(
      `select company_cnpj || '|' || department || '|' || month as k, headcount_first_day as first, headcount_last_day as last,
              average_headcount::text as avg, hires, leavers, days_covered as n, first_day::text, last_day::text, turnover_rate::text as turnover
         from $S.monthly_headcount`,
    );
    expect(rows.map((r) => r.k).sort()).toEqual([...want.keys()].sort());
    for (const r of rows) {
      const w = want.get(r.k)!;
      expect({ k: r.k, first: r.first, last: r.last, avg: Number(r.avg), hires: r.hires, leavers: r.leavers, n: r.n, from: r.first_day, to: r.last_day }).toEqual({
        k: r.k,
        first: w.first,
        last: w.last,
        avg: Math.round((w.sum / w.n) * 100) / 100,
        hires: w.hires,
        leavers: w.leavers,
        n: w.n,
        from: w.firstDay,
        to: w.lastDay,
      });
      expect(r.turnover === null ? null : Number(r.turnover)).toBeCloseTo(w.leavers / (w.sum / w.n), 4);
    }
    expect([...want.values()].some((w) => w.hires > 0) && [...want.values()].some((w) => w.leavers > 0)).toBe(true);
  });

  it('expands every absence of the ledger to its days, per record', async () => {
    const want = new Set<string>();
    for (const co of h.emulator.companies) {
      for (const a of h.emulator.truth.absences(co.cnpj, FROM, TO)) {
        for (const c of a.collaborators) for (const d of days(a.beginDate, a.endDate)) want.add(`${a.absenceId}|${co.cnpj}|${c.cpf}|${c.admissionDate}|${d}|${a.type}`);
      }
    }
    const rows = await q<{ k: string }>(
      `select absence_id || '|' || company_cnpj || '|' || cpf || '|' || collaborator_record || '|' || absence_date || '|' || absence_type as k from $S.absence_days`,
    );
    expect(rows.map((r) => r.k).sort()).toEqual([...want].sort());
    const [flags] = await q<{ weekend: number; mismatch: number }>(
      `select count(*) filter (where is_weekend)::int as weekend,
              count(*) filter (where is_weekend <> (extract(isodow from absence_date) >= 6))::int as mismatch from $S.absence_days`,
    );
    expect(flags).toMatchObject({ mismatch: 0 });
    expect(flags!.weekend).toBeGreaterThan(0);
    // The day grain marks the days the ledger covers as leave.
    const [leave] = await q<{ n: number }>(
      `select count(*)::int as n from $S.employee_daily d
        where d.on_leave <> exists (select 1 from $S.absence_days a where a.company_cnpj = d.company_cnpj and a.cpf = d.cpf
                                     and a.collaborator_record = d.collaborator_record and a.absence_date = d.work_date)`,
    );
    expect(leave!.n).toBe(0);
  });

  it('gives monthly_hours the overtime of all bands and the department at the time', async () => {
    const admission = new Map(h.emulator.companies.flatMap((co) => h.emulator.truth.collaborators(co.cnpj).map((c) => [c.collaboratorId, c] as const)));
    const want: string[] = [];
    for (const co of h.emulator.companies) {
      for (const month of ['2026-08-01', '2026-09-01', '2026-10-01']) {
        const to = addDays(`${addDays(`${month.slice(0, 7)}-28`, 4).slice(0, 7)}-01`, -1);
        for (const t of h.emulator.truth.hourTotals(co.cnpj, month, to)) {
          const c = admission.get(t.collaboratorId)!;
          const seconds = BANDS.reduce((n, b) => n + t.totals[b], 0);
          want.push(`${co.cnpj}|${t.cpf}|${c.admission_date}|${month}|${c.department}|${(Math.round((seconds / 3600) * 100) / 100).toFixed(2)}`);
        }
      }
    }
    expect(TOTAL_HOURS_KEYS).toEqual(expect.arrayContaining([...BANDS]));
    const rows = await q<{ k: string }>(
      `select company_cnpj || '|' || cpf || '|' || collaborator_record || '|' || month || '|' || department || '|' || over_time_total_hours as k from $S.monthly_hours`,
    );
    expect(rows.map((r) => r.k).sort()).toEqual(want.sort());
  });

  it('does not churn the history of two concurrent records of one CPF across repeated list syncs', async () => {
    const versions = () => q<{ k: string }>(`select cpf || '|' || collaborator_record || '|' || valid_from || '|' || coalesce(valid_to::text, '-') as k from $S.collaborator_history order by 1`);
    const before = await versions();
    for (let i = 0; i < 2; i++) expect((await sync({ from: TO, to: TO, resources: 'collaborators' })).failed).toBe(0);
    expect(await versions()).toEqual(before);
    const [dup] = h.emulator.companies.flatMap((c) => h.emulator.truth.duplicates(c.cnpj).filter((d) => d.kind === 'duplicateCpf').map((d) => ({ cnpj: c.cnpj, ...d })));
    const open = await q<{ n: number }>(`select count(*)::int as n from $S.collaborator_history where company_cnpj = $1 and cpf = $2 and valid_to is null`, [dup!.cnpj, dup!.cpf]);
    expect(open[0]!.n).toBe(2);
  });
});
