/**
 * Invariants of the generated data, read over HTTP from a small emulator: valid
 * registry numbers, the awkward cases, inactive lookups filtered, and the consistency
 * between punches, worked time, totals, tardiness, adjustments, inconsistencies,
 * balances and absences.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  Absence,
  CollaboratorAdjustments,
  CollaboratorBlock,
  CollaboratorPoints,
  CollaboratorTardiness,
  CollaboratorTotalHours,
  OvertimeBalance,
} from '../src/api/schemas.js';
import { durationToSeconds, hourMinuteToSeconds } from '../src/util/duration.js';
import { isValidCnpj, isValidCpf } from '../src/util/national-registry.js';
import { addDays } from '../src/util/time.js';
import { makePis } from '../src/emulator/roster-generator.js';
import { startEmulator, type RunningEmulator } from '../src/emulator/index.js';

const TODAY = '2025-03-15';
let emu: RunningEmulator;

/** GET with the headquarters token across the whole group; returns `data`. */
async function get<T>(path: string, params: Record<string, string> = {}): Promise<T> {
  const q = new URLSearchParams({ include_branches: '1', ...params });
  const res = await fetch(`${emu.url}/customer/v2/${path}?${q}`, {
    headers: { apiServiceToken: emu.headquartersToken },
  });
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { data: T }).data;
}

const secsOf = (dt: string): number => hourMinuteToSeconds(dt.slice(11, 16)) + Number(dt.slice(17, 19));
const key = (c: CollaboratorBlock): string =>
  `${c.company.national_registry}|${c.national_registry}|${c.admission_date}`;

beforeAll(async () => {
  emu = await startEmulator({ seed: 'data', scale: 'small', today: TODAY });
});
afterAll(async () => {
  await emu?.close();
});

describe('people and companies', () => {
  it('has valid CPF, CNPJ and PIS check digits and realistic names', () => {
    for (const c of emu.companies) expect(isValidCnpj(c.cnpj)).toBe(true);
    expect(isValidCnpj(emu.inactiveCompany.cnpj)).toBe(true);
    const hqRoot = emu.companies[0]!.cnpj.slice(0, 8);
    expect(emu.companies.every((c) => c.cnpj.startsWith(hqRoot))).toBe(true);
    for (const co of emu.companies) {
      for (const p of emu.truth.collaborators(co.cnpj)) {
        expect(isValidCpf(p.national_registry)).toBe(true);
        expect(makePis(p.pis!.slice(0, 10))).toBe(p.pis);
        expect(p.name!.split(' ').length).toBeGreaterThanOrEqual(3);
        expect(p.email).toMatch(/^[a-z0-9.]+@[a-z0-9]+\.com\.br$/);
      }
    }
  });

  it('holds the awkward cases: a dismissed collaborator with history, one CPF in two companies, one CPF twice in a company', async () => {
    const [hq, b1, b2] = emu.companies.map((c) => emu.truth.collaborators(c.cnpj)) as [
      ReturnType<typeof emu.truth.collaborators>,
      ReturnType<typeof emu.truth.collaborators>,
      ReturnType<typeof emu.truth.collaborators>,
    ];
    const dismissed = hq.find(
      (c) => c.dismissed && hq.filter((o) => o.national_registry === c.national_registry).length === 1,
    )!;
    const from = addDays(dismissed.dismissalDate!, -20);
    const to = addDays(dismissed.dismissalDate!, 10);
    const days = (
      await get<CollaboratorPoints[]>('point/getFromPeriod', {
        begin_date: from,
        end_date: to,
        'national_registry_list[]': dismissed.national_registry,
      })
    )[0]!.days;
    expect(days.some((d) => d.points.length > 0)).toBe(true);
    expect(days[days.length - 1]!.date).toBe(dismissed.dismissalDate);

    const twice = hq.filter(
      (c) => hq.filter((o) => o.national_registry === c.national_registry).length === 2,
    );
    expect(twice.map((c) => c.listed).sort()).toEqual([false, true]);
    expect(twice.find((c) => !c.listed)!.dismissed).toBe(true);

    expect(hq.some((h) => b1.some((b) => b.national_registry === h.national_registry))).toBe(true);
    expect(b2.some((c) => !c.listed && !c.dismissed)).toBe(true);
  });

  it('lists only active lookup records, with the default unit first', async () => {
    const journeys = await get<{ description: string }[]>('journey');
    const units = await get<{ name: string }[]>('unit', { include_branches: '0' });
    const fences = await get<{ name: string }[]>('barrier');
    const occupations = await get<{ description: string }[]>('occupation', { include_branches: '0' });
    expect(journeys.some((j) => j.description.includes('desativada'))).toBe(false);
    expect(units.some((u) => u.name.includes('desativada'))).toBe(false);
    expect(units[0]!.name).toMatch(/^Matriz /);
    expect(fences.some((f) => f.name.includes('encerrada'))).toBe(false);
    expect(occupations.length).toBe(10);
  });
});

describe('one month of punches', () => {
  const B = '2025-01-01';
  const E = '2025-01-31';
  let points: CollaboratorPoints[];
  let totals: CollaboratorTotalHours[];
  let tardiness: CollaboratorTardiness[];
  let adjustments: CollaboratorAdjustments[];

  beforeAll(async () => {
    const q = { begin_date: B, end_date: E };
    [points, totals, tardiness, adjustments] = await Promise.all([
      get<CollaboratorPoints[]>('point/getFromPeriod', q),
      get<CollaboratorTotalHours[]>('collaborator/totalHours', q),
      get<CollaboratorTardiness[]>('tardiness', q),
      get<CollaboratorAdjustments[]>('adjustment', q),
    ]);
  });

  it('uses unique point ids, stamps each punch on its day, and sums worked time over complete pairs', () => {
    const ids = points.flatMap((c) => c.days.flatMap((d) => d.points.map((p) => p.point_id)));
    expect(new Set(ids).size).toBe(ids.length);
    for (const c of points) {
      for (const d of c.days) {
        const secs = d.points.map((p) => secsOf(p.datetime));
        expect([...secs].sort((a, b) => a - b)).toEqual(secs);
        let pairs = 0;
        for (let i = 0; i + 1 < secs.length; i += 2) pairs += secs[i + 1]! - secs[i]!;
        expect(durationToSeconds(d.worked_time as string)).toBe(pairs);
      }
    }
  });

  it('derives totals from the same days: actual worked time and night time', () => {
    for (const t of totals) {
      const p = points.find((x) => key(x) === key(t))!;
      const worked = p.days.reduce((s, d) => s + durationToSeconds(d.worked_time as string), 0);
      expect(durationToSeconds(t.total_hours.worked_actual_time as string)).toBe(worked);
      let night = 0;
      for (const d of p.days) {
        const secs = d.points.map((x) => secsOf(x.datetime));
        for (let i = 0; i + 1 < secs.length; i += 2) {
          night +=
            Math.max(0, Math.min(secs[i + 1]!, 5 * 3600) - secs[i]!) +
            Math.max(0, secs[i + 1]! - Math.max(secs[i]!, 22 * 3600));
        }
      }
      expect(durationToSeconds(t.total_hours.night_time as string)).toBe(night);
    }
    expect(totals.some((t) => durationToSeconds(t.total_hours.night_time as string) > 0)).toBe(true);
  });

  it('reports a tardiness exactly when the first punch is after start + tolerance and before two hours (spec 2.8)', () => {
    let late = 0;
    for (const c of points) {
      const entries = tardiness.find((x) => key(x) === key(c))!.tardiness;
      for (const d of c.days) {
        const start = /^(\d\d:\d\d)-/.exec(d.shift!)?.[1];
        const t = entries.find((e) => e.date === d.date);
        if (!start || d.points.length === 0) {
          expect(t).toBeUndefined();
          continue;
        }
        const diff = secsOf(d.points[0]!.datetime) - hourMinuteToSeconds(start);
        if (diff > 10 * 60 && diff < 7200) expect(t).toBeDefined();
        if (diff <= 5 * 60 || diff >= 7200) expect(t).toBeUndefined();
        if (t) {
          late++;
          expect(t.journey_in).toBe(start);
          expect(t.punch_in).toBe(d.points[0]!.hour);
          expect(hourMinuteToSeconds(t.minutes_late)).toBe(Math.floor(diff / 60) * 60);
          expect(t.all_points).toEqual(d.points.map((p) => p.hour));
        }
      }
    }
    expect(late).toBeGreaterThan(0);
  });

  it('pairs adjusted punches with approved requests and forgotten punches with pending ones', () => {
    for (const c of points) {
      const reqs = adjustments.find((x) => key(x) === key(c))!.adjustments;
      for (const d of c.days) {
        const adjusted = d.points.filter((p) => p.is_adjusted);
        for (const p of adjusted) {
          expect(p.adjustment_reason).toBeTruthy();
          expect(p.adjusted_by).toBeTruthy();
          expect(p.origin).toBe('Manual');
        }
        const day = reqs.filter((r) => r.date === d.date);
        expect(day.filter((r) => r.status === 'Aprovado').length).toBe(adjusted.length);
        if (d.points.length % 2 === 1) expect(day.some((r) => r.status === 'Pendente')).toBe(true);
        for (const r of day) expect(r.requests_in_day).toBe(day.length);
      }
    }
  });
});

describe('hour bank', () => {
  it('moves the accumulated balance by the day balance from one day to the next', async () => {
    const days = ['2025-02-10', '2025-02-11', '2025-02-12', '2025-02-13'];
    const all = await Promise.all(days.map((date) => get<OvertimeBalance[]>('overtime', { date })));
    for (let i = 1; i < days.length; i++) {
      for (const b of all[i]!) {
        const prev = all[i - 1]!.find((x) => key(x) === key(b));
        if (!prev) continue;
        const s = durationToSeconds;
        expect(s(b.accumulated_balance) - s(prev.accumulated_balance)).toBe(s(b.day_balance));
        expect(s(b.credit) - s(prev.credit) - (s(b.debt) - s(prev.debt))).toBe(s(b.day_balance));
      }
    }
    const he = all[0]!.filter((b) => b.regime === 'HE');
    expect(he.length).toBeGreaterThan(0);
    expect(
      he.every((b) => b.credit === '00:00:00' && b.debt === '00:00:00' && b.day_balance === '00:00:00'),
    ).toBe(true);
  });

  it('agrees with the totals of the same days (bank_time_factored = credit - debt)', async () => {
    const totals = await get<CollaboratorTotalHours[]>('collaborator/totalHours', {
      begin_date: '2025-01-01',
      end_date: '2025-01-31',
    });
    const [end, start] = await Promise.all([
      get<OvertimeBalance[]>('overtime', { date: '2025-01-31' }),
      get<OvertimeBalance[]>('overtime', { date: '2024-12-31' }),
    ]);
    for (const t of totals) {
      const b = end.find((x) => key(x) === key(t));
      const a = start.find((x) => key(x) === key(t));
      if (!a || !b || b.regime === 'Híbrido (HE)') continue;
      expect(durationToSeconds(b.accumulated_balance) - durationToSeconds(a.accumulated_balance)).toBe(
        durationToSeconds(t.total_hours.bank_time_factored as string),
      );
    }
  });
});

describe('absences', () => {
  let absences: Absence[];

  beforeAll(async () => {
    const months: string[] = [];
    for (let m = 0; m < 20; m++)
      months.push(`${2023 + Math.floor((m + 3) / 12)}-${String(((m + 3) % 12) + 1).padStart(2, '0')}`);
    const lists = await Promise.all(
      months.map((m) =>
        get<Absence[]>('absence/getFromPeriod', {
          begin_date: `${m}-01 00:00:00`,
          end_date: `${m}-28 23:59:59`,
        }),
      ),
    );
    const byId = new Map<number, Absence>();
    for (const a of lists.flat()) byId.set(a.absence_id, a);
    absences = [...byId.values()];
  });

  it('includes vacations spanning months, absences of several collaborators, attachments and partial days', () => {
    expect(absences.some((a) => a.begin_date.slice(0, 7) !== a.end_date.slice(0, 7))).toBe(true);
    expect(absences.some((a) => a.collaborators.length > 1)).toBe(true);
    expect(absences.some((a) => a.has_attachment)).toBe(true);
    expect(absences.some((a) => !a.full_day)).toBe(true);
    expect(absences.some((a) => a.cid!.length > 0 && a.cr_register !== '')).toBe(true);
    for (const a of absences) {
      expect(a.days).toBe(
        Math.round(
          (Date.parse(a.end_date.slice(0, 10)) - Date.parse(a.begin_date.slice(0, 10))) / 86_400_000,
        ) + 1,
      );
      expect(
        a.collaborators.every(
          (c) => c.company.national_registry === a.collaborators[0]!.company.national_registry,
        ),
      ).toBe(true);
    }
  });

  it('leaves no punches on the days of a full-day absence', async () => {
    const vacation = absences.find((a) => a.type === 'Férias' && a.end_date < `${TODAY} 00:00:00`)!;
    const cpf = vacation.collaborators[0]!.national_registry;
    const from = vacation.begin_date.slice(0, 10);
    const to = addDays(from, Math.min(vacation.days, 31) - 1);
    const rows = await get<CollaboratorPoints[]>('point/getFromPeriod', {
      begin_date: from,
      end_date: to,
      company_national_registry: vacation.collaborators[0]!.company.national_registry,
      'national_registry_list[]': cpf,
    });
    const days = rows.find((r) => r.admission_date === vacation.collaborators[0]!.admission_date)!.days;
    expect(days.length).toBeGreaterThan(0);
    expect(days.every((d) => d.points.length === 0)).toBe(true);
  });
});
