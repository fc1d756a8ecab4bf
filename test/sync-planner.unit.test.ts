import { describe, expect, it } from 'vitest';
import { backfillItems, planJobs, scheduleItems } from '../src/plan/planner.js';
import {
  daysOf,
  dateTimeBounds,
  halveWindow,
  isSettled,
  monthWindows,
  windowDays,
} from '../src/plan/windows.js';
import { defaultResources, parseResources, RESOURCES } from '../src/plan/resources.js';
import { jobIdFor, windowKey } from '../src/plan/job-ids.js';

describe('monthWindows', () => {
  it('cuts a range at month ends, both ends inclusive, never above 31 days', () => {
    const w = monthWindows('2024-01-15', '2024-04-02');
    expect(w).toEqual([
      { from: '2024-01-15', to: '2024-01-31' },
      { from: '2024-02-01', to: '2024-02-29' },
      { from: '2024-03-01', to: '2024-03-31' },
      { from: '2024-04-01', to: '2024-04-02' },
    ]);
    for (const x of monthWindows('2020-01-01', '2025-12-31')) expect(windowDays(x)).toBeLessThanOrEqual(31);
  });

  it('covers every day of the range exactly once', () => {
    const days = monthWindows('2023-11-20', '2024-03-05').flatMap(daysOf);
    expect(days[0]).toBe('2023-11-20');
    expect(days.at(-1)).toBe('2024-03-05');
    expect(new Set(days).size).toBe(days.length);
    expect(days.length).toBe(107);
  });

  it('gives one window for a single day and rejects a reversed range', () => {
    expect(monthWindows('2024-05-05', '2024-05-05')).toEqual([{ from: '2024-05-05', to: '2024-05-05' }]);
    expect(() => monthWindows('2024-05-06', '2024-05-05')).toThrow(/after/);
  });
});

describe('halveWindow', () => {
  it('splits into two adjacent halves down to a single day', () => {
    expect(halveWindow({ from: '2024-01-01', to: '2024-01-31' })).toEqual([
      { from: '2024-01-01', to: '2024-01-16' },
      { from: '2024-01-17', to: '2024-01-31' },
    ]);
    expect(halveWindow({ from: '2024-01-01', to: '2024-01-02' })).toEqual([
      { from: '2024-01-01', to: '2024-01-01' },
      { from: '2024-01-02', to: '2024-01-02' },
    ]);
    expect(halveWindow({ from: '2024-01-01', to: '2024-01-01' })).toBeUndefined();
  });
});

describe('date-time bounds and the lookback horizon', () => {
  it('reads absences from the first to the last second of the window', () => {
    expect(dateTimeBounds({ from: '2024-02-01', to: '2024-02-29' })).toEqual({
      beginDate: '2024-02-01 00:00:00',
      endDate: '2024-02-29 23:59:59',
    });
  });
  it('settles only windows that end before the last 35 days', () => {
    expect(isSettled({ from: '2024-01-01', to: '2024-01-31' }, '2024-03-07')).toBe(true);
    expect(isSettled({ from: '2024-01-01', to: '2024-01-31' }, '2024-03-06')).toBe(false);
    expect(isSettled({ from: '2024-06-01', to: '2024-06-30' }, '2024-03-05')).toBe(false);
  });
});

describe('resources', () => {
  it('parses a list in canonical order and names an unknown resource', () => {
    expect(parseResources('absences, punches,punches')).toEqual(['punches', 'absences']);
    expect(() => parseResources('punches,overtime')).toThrow(/unknown resource "overtime"/);
    expect(() => parseResources(' , ')).toThrow(/empty/);
  });
  it('leaves audit photos out unless opted in', () => {
    expect(defaultResources({ syncAuditPhotos: false })).not.toContain('audit_photos');
    expect(defaultResources({ syncAuditPhotos: true })).toEqual([...RESOURCES]);
  });
});

describe('job ids', () => {
  it('are deterministic, colon-free and never integers', () => {
    const key = {
      resource: 'punches' as const,
      connection: 'default',
      company: '11222333000181',
      from: '2024-01-01',
      to: '2024-01-31',
    };
    expect(jobIdFor(key)).toBe('punches.default.11222333000181.2024-01-01.2024-01-31');
    expect(jobIdFor({ resource: 'companies', connection: 'x' })).toBe('companies.x');
    expect(jobIdFor(key)).not.toContain(':');
  });
});

describe('planJobs for a backfill', () => {
  const companies = ['11222333000181', '44555666000190'];
  const items = backfillItems(
    defaultResources({ syncAuditPhotos: false }),
    '2024-01-10',
    '2024-03-20',
    '2024-03-10',
  );

  it('plans the group walk once, directory resources per company and every window per company', () => {
    const plan = planJobs({
      connection: 'default',
      companies,
      scoped: true,
      items,
      followUps: ['absence_attachments'],
      force: false,
      origin: 'backfill',
    });
    const ids = plan.jobs.map((j) => j.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(plan.jobs[0]!.id).toBe('companies.default');
    expect(plan.jobs.filter((j) => j.name === 'lookups')).toHaveLength(2);
    // 3 month windows × 2 companies for each period resource.
    expect(plan.jobs.filter((j) => j.name === 'punches')).toHaveLength(6);
    // the hour bank stops at today
    const hb = plan.jobs.filter((j) => j.name === 'hour_bank').map((j) => j.data.to);
    expect(hb).toContain('2024-03-10');
    expect(hb.every((d) => d! <= '2024-03-10')).toBe(true);
    // attachments are queued by the absence jobs, not planned separately
    expect(plan.jobs.some((j) => j.name === 'absence_attachments')).toBe(false);
    expect(plan.jobs.filter((j) => j.name === 'absences').every((j) => j.data.followUp)).toBe(true);
    expect(plan.jobs.filter((j) => j.name === 'punches').every((j) => !j.data.followUp)).toBe(true);
    expect(plan.jobs.every((j) => j.data.connection === 'default' && !('token' in j.data))).toBe(true);
    expect(plan.jobs.find((j) => j.name === 'absence_attachments')?.queue).toBeUndefined();
    expect(plan.jobs.find((j) => j.name === 'punches')!.queue).toBe('sync');
  });

  it('skips windows recorded as done unless forced', () => {
    const done = new Set([
      windowKey({ resource: 'punches', company: companies[0]!, from: '2024-01-10', to: '2024-01-31' }),
      windowKey({ resource: 'absences', company: companies[0]!, from: '2024-02-01', to: '2024-02-29' }),
    ]);
    const base = {
      connection: 'default',
      companies,
      scoped: true,
      items,
      followUps: ['absence_attachments' as const],
      origin: 'backfill' as const,
    };
    const plan = planJobs({ ...base, force: false, done });
    expect(plan.skipped).toBe(2);
    expect(plan.jobs.some((j) => j.id === 'punches.default.11222333000181.2024-01-10.2024-01-31')).toBe(
      false,
    );
    // the attachments of a skipped absence window are planned on their own when not done
    expect(plan.jobs.map((j) => j.id)).toContain(
      'absence_attachments.default.11222333000181.2024-02-01.2024-02-29',
    );
    const forced = planJobs({ ...base, force: true, done });
    expect(forced.skipped).toBe(0);
    expect(forced.jobs.length).toBe(plan.jobs.length + 1);
    expect(forced.jobs.every((j) => j.data.force)).toBe(true);
  });

  it('plans follow-ups directly when only they are asked for', () => {
    const plan = planJobs({
      connection: 'c',
      companies: [companies[0]!],
      scoped: false,
      items: backfillItems(['audit_photos'], '2024-01-01', '2024-02-15', '2024-06-01'),
      followUps: ['audit_photos'],
      force: false,
      origin: 'backfill',
    });
    expect(plan.jobs.map((j) => [j.id, j.queue])).toEqual([
      ['audit_photos.c.11222333000181.2024-01-01.2024-01-31', 'followups'],
      ['audit_photos.c.11222333000181.2024-02-01.2024-02-15', 'followups'],
    ]);
  });
});

describe('scheduleItems', () => {
  it('reads punches of the last 7 days, cut at the month end', () => {
    expect(scheduleItems('punches', '2024-03-03')).toEqual([
      { resource: 'punches', window: { from: '2024-02-26', to: '2024-02-29' } },
      { resource: 'punches', window: { from: '2024-03-01', to: '2024-03-03' } },
    ]);
  });

  it('reads the nightly set of docs/operations.md "Schedules"', () => {
    const items = scheduleItems('nightly', '2024-03-10');
    const of = (r: string) => items.filter((i) => i.resource === r).map((i) => i.window);
    expect(of('hour_totals')).toEqual([
      { from: '2024-02-01', to: '2024-02-29' },
      { from: '2024-03-01', to: '2024-03-31' },
    ]);
    expect(of('tardiness')).toEqual([
      { from: '2024-02-04', to: '2024-02-29' },
      { from: '2024-03-01', to: '2024-03-10' },
    ]);
    // The whole lookback horizon: a balance accumulates every correction made before it.
    expect(of('hour_bank')).toEqual([
      { from: '2024-02-04', to: '2024-02-29' },
      { from: '2024-03-01', to: '2024-03-10' },
    ]);
    // Punches of the horizon the 15-minute schedule does not read (it reads 03-04..03-10).
    expect(of('punches')).toEqual([
      { from: '2024-02-04', to: '2024-02-29' },
      { from: '2024-03-01', to: '2024-03-03' },
    ]);
    const absences = of('absences');
    expect(absences[0]!.from).toBe('2024-02-04');
    expect(absences.at(-1)!.to).toBe('2024-07-08');
    expect(items.every((i) => !i.window || windowDays(i.window) <= 31)).toBe(true);
  });

  it('re-reads the horizon SYNC_LOOKBACK_DAYS sets, every day of it read by one schedule or the other, none settled', () => {
    const today = '2024-03-10';
    const nightly = scheduleItems('nightly', today, 60);
    const days = (items: typeof nightly, r: string) =>
      items.filter((i) => i.resource === r).flatMap((i) => daysOf(i.window!));
    const punchDays = [
      ...days(nightly, 'punches'),
      ...days(scheduleItems('punches', today), 'punches'),
    ].sort();
    expect(punchDays).toEqual(daysOf({ from: '2024-01-10', to: today }));
    expect(new Set(punchDays).size).toBe(punchDays.length);
    expect(days(nightly, 'hour_bank')).toEqual(daysOf({ from: '2024-01-10', to: today }));
    expect(nightly.every((i) => !i.window || !isSettled(i.window, today, 60))).toBe(true);
    // The shortest horizon leaves the nightly one day of punches before the 15-minute schedule's week.
    expect(
      scheduleItems('nightly', today, 7)
        .filter((i) => i.resource === 'punches')
        .map((i) => i.window),
    ).toEqual([{ from: '2024-03-03', to: '2024-03-03' }]);
  });

  it('refreshes the directory hourly', () => {
    expect(scheduleItems('directory', '2024-03-10').map((i) => i.resource)).toEqual([
      'companies',
      'lookups',
      'collaborators',
    ]);
  });

  it('handles January (previous month in the previous year)', () => {
    const items = scheduleItems('nightly', '2024-01-05');
    expect(items.filter((i) => i.resource === 'hour_totals')[0]!.window).toEqual({
      from: '2023-12-01',
      to: '2023-12-31',
    });
  });
});
