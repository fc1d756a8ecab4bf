/**
 * Rows of resources without a database (`rowsOf`, test/support/rows-of.ts): each element as
 * the API sends it (spec 2), its rows per table as the declaration writes them. What the merge
 * does with them (keys, reconciliation, history) is tested against Postgres elsewhere.
 */
import { describe, expect, it } from 'vitest';
import { CATALOG } from '../src/resources/index.js';
import { rowsOf } from './support/rows-of.js';

const COMPANY = '11222333000181';
const company = { name: 'Acme', trading_name: 'Acme', national_registry: COMPANY };
const person = {
  national_registry: '01234567890',
  registration_number: 'R-7',
  name: 'Ana',
  admission_date: '2024-02-01',
  company,
};

describe('punches: spec 2.12 points of a collaborator', () => {
  const element = {
    ...person,
    days: [
      {
        date: '2025-03-10',
        shift: '08:00-17:00',
        worked_time: '08:30:00',
        points: [
          {
            point_id: 41,
            datetime: '2025-03-10 08:01:00',
            hour: '08:01',
            method: 'facial',
            origin: 'App Mobile',
            is_adjusted: false,
            accuracy_meters: 12.5,
            geolocation: { lat: -23.5, lng: -46.6 },
            address: 'Rua A, 1',
            has_audit_photo: true,
          },
          // A punch of a physical clock: no GPS, no address.
          {
            point_id: 42,
            datetime: '2025-03-10 17:31:00',
            hour: '17:31',
            origin: 'REP',
            is_adjusted: true,
            adjustment_reason: 'forgot',
            adjusted_by: 'Bia',
            has_audit_photo: false,
          },
        ],
      },
      { date: '2025-03-11', shift: null, worked_time: 7.5, points: [] },
    ],
  };
  const rows = rowsOf(CATALOG.punches, element, {
    company: COMPANY,
    target: { window: { from: '2025-03-01', to: '2025-03-31' } },
  });

  it('writes one work day per day, worked time in seconds whether sent as HH:MM:SS or decimal hours', () => {
    expect(rows.work_days).toEqual([
      {
        company_cnpj: COMPANY,
        cpf: '01234567890',
        collaborator_record: '2024-02-01',
        work_date: '2025-03-10',
        shift: '08:00-17:00',
        worked_seconds: 30_600,
      },
      {
        company_cnpj: COMPANY,
        cpf: '01234567890',
        collaborator_record: '2024-02-01',
        work_date: '2025-03-11',
        shift: null,
        worked_seconds: 27_000,
      },
    ]);
  });

  it('writes one punch per point, its local time as sent and with the offset of the company zone', () => {
    expect(rows.punches!.map((p) => [p.point_id, p.punched_at_local, p.punched_at])).toEqual([
      [41, '2025-03-10 08:01:00', '2025-03-10 08:01:00-03:00'],
      [42, '2025-03-10 17:31:00', '2025-03-10 17:31:00-03:00'],
    ]);
    expect(rows.punches![0]).toMatchObject({
      latitude: -23.5,
      longitude: -46.6,
      has_audit_photo: true,
      is_adjusted: false,
    });
    expect(rows.punches![1]).toMatchObject({
      latitude: undefined,
      longitude: undefined,
      address: undefined,
      adjusted_by: 'Bia',
    });
  });

  it('reads the time of a company in another zone in that zone', () => {
    const manaus = rowsOf(CATALOG.punches, element, { company: COMPANY, timezone: 'America/Manaus' });
    expect(manaus.punches![0]!.punched_at).toBe('2025-03-10 08:01:00-04:00');
  });

  it('refuses an element that breaks the spec, as the engine would reject it', () => {
    expect(() =>
      rowsOf(CATALOG.punches, { ...element, days: [{ date: 'monday' }] }, { company: COMPANY }),
    ).toThrow();
  });
});

describe('hour_bank: spec 2.11 day balances', () => {
  const balance = {
    ...person,
    regime: 'BH',
    total_overtime: '01:30:00',
    missing_hours: '00:00:00',
    interval_hours: '01:00:00',
    normal_hours: '08:00:00',
    day_balance: '-00:15:00',
    accumulated_balance: '12:45:00',
    credit: '13:00:00',
    debt: '00:15:00',
  };

  it('writes one balance row for the day asked, every duration in seconds, negative ones kept', () => {
    const rows = rowsOf(CATALOG.hour_bank, balance, { company: COMPANY, target: { date: '2025-03-10' } });
    expect(rows.hour_bank_balances).toEqual([
      {
        company_cnpj: COMPANY,
        cpf: '01234567890',
        collaborator_record: '2024-02-01',
        balance_date: '2025-03-10',
        regime: 'BH',
        total_overtime_seconds: 5_400,
        missing_hours_seconds: 0,
        interval_hours_seconds: 3_600,
        normal_hours_seconds: 28_800,
        day_balance_seconds: -900,
        accumulated_balance_seconds: 45_900,
        credit_seconds: 46_800,
        debt_seconds: 900,
      },
    ]);
  });
});
