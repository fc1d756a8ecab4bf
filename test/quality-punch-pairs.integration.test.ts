/**
 * `day_vs_punches` and `punch_without_day` on days of every shape, loaded by the real
 * engine into a migrated warehouse: one to six punches, times with seconds, two punches
 * at the same second, a night shift past midnight. The check pairs days of up to four
 * punches from order-free aggregates and sorts only longer ones (src/quality/day-punches.ts),
 * so each shape must pair to exactly what the day states.
 */
import { describe, expect, it } from 'vitest';
import type { CollaboratorPoints } from '../src/api/schemas.js';
import { runQualityChecks } from '../src/quality/run-checks.js';
import { block, CNPJ_A, CPF_1, loadWith, point, useMigratedWarehouse } from './warehouse-fixtures.js';

const MARCH = { from: '2025-03-01', to: '2025-03-31' };

/** A day: its stated worked time and its punches' date-times (point ids follow). */
const DAYS: Record<string, { worked: string; at: string[] }> = {
  '2025-03-03': { worked: '00:00:00', at: ['2025-03-03 08:00:00'] },
  '2025-03-04': { worked: '04:30:00', at: ['2025-03-04 08:00:00', '2025-03-04 12:30:00'] },
  '2025-03-05': {
    worked: '04:00:00',
    at: ['2025-03-05 08:00:00', '2025-03-05 12:00:00', '2025-03-05 13:00:00'],
  },
  '2025-03-06': {
    worked: '08:03:05',
    at: ['2025-03-06 17:03:59', '2025-03-06 08:00:07', '2025-03-06 13:02:00', '2025-03-06 12:01:13'],
  },
  '2025-03-07': {
    worked: '04:30:00',
    at: [
      '2025-03-07 07:00:00',
      '2025-03-07 09:00:00',
      '2025-03-07 09:30:00',
      '2025-03-07 12:00:00',
      '2025-03-07 13:00:00',
    ],
  },
  '2025-03-10': {
    worked: '07:45:00',
    at: [
      '2025-03-10 08:00:00',
      '2025-03-10 10:00:00',
      '2025-03-10 10:15:00',
      '2025-03-10 12:00:00',
      '2025-03-10 13:00:00',
      '2025-03-10 17:00:00',
    ],
  },
  // Stated one hour above its punches: the one finding.
  '2025-03-11': {
    worked: '09:00:00',
    at: ['2025-03-11 08:00:00', '2025-03-11 12:00:00', '2025-03-11 13:00:00', '2025-03-11 17:00:00'],
  },
  '2025-03-12': { worked: '00:00:00', at: ['2025-03-12 08:00:00', '2025-03-12 08:00:00'] },
  '2025-03-13': { worked: '08:00:00', at: ['2025-03-13 22:00:00', '2025-03-14 06:00:00'] },
  '2025-03-15': { worked: '00:00:00', at: [] },
};

function answer(): CollaboratorPoints {
  let id = 1000;
  return {
    ...block(CPF_1),
    days: Object.entries(DAYS).map(([date, d]) => ({
      date,
      shift: '08:00-17:00',
      worked_time: d.worked,
      points: d.at.map((at) => point(id++, at)),
    })),
  };
}

describe('a day against its punches', () => {
  const t = useMigratedWarehouse('quality_pairs');
  const check = async () =>
    (
      await runQualityChecks(t.admin, t.schema, {
        company: CNPJ_A,
        checks: ['day_vs_punches', 'punch_without_day'],
      })
    ).findings;

  it('pairs every shape of day to what it states, and names the one day that states more', async () => {
    await loadWith(t, 'punches', { window: MARCH }, { 'point/getFromPeriod': [answer()] });
    const findings = await check();
    expect(findings.filter((f) => f.check === 'day_vs_punches' && f.scope !== 'all')).toEqual([
      expect.objectContaining({
        part: '2025-03',
        scope: 'day 2025-03-11 record 2020-01-15',
        cpf: CPF_1,
        expected: 8 * 3600,
        actual: 9 * 3600,
        difference: 3600,
        status: 'warn',
      }),
    ]);
    expect(findings.find((f) => f.check === 'day_vs_punches' && f.scope === 'all')).toMatchObject({
      status: 'warn',
      detail: '1 of 10 days differ from their punch pairs',
    });
    expect(findings.find((f) => f.check === 'punch_without_day')).toMatchObject({
      part: '2025-03',
      actual: 0,
      status: 'ok',
    });
  });

  it('counts the punches of a work day that is gone', async () => {
    await t.admin.query(`delete from "${t.schema}".work_days where work_date = '2025-03-05'`);
    const orphans = (await check()).find((f) => f.check === 'punch_without_day');
    expect(orphans).toMatchObject({
      part: '2025-03',
      scope: 'punches',
      expected: 0,
      actual: 3,
      difference: 3,
      status: 'fail',
    });
    expect(orphans!.detail).toBe('3 live punch(es) without a live work day, e.g. point 1003');
  });
});
