/**
 * The holidays of a company's calendar (src/marts/company-calendar.ts): the state of a
 * postal code, the state's fixed-date holidays and the national ones they sit beside.
 */
import { describe, expect, it } from 'vitest';
import { nationalHolidays } from '../src/marts/calendar.js';
import { stateHolidays, stateOfCep } from '../src/marts/company-calendar.js';

describe('a company calendar', () => {
  it('finds the state of a postal code, as its time zone is found', () => {
    expect(stateOfCep('01310100')).toBe('SP');
    expect(stateOfCep('20040002')).toBe('RJ');
    expect(stateOfCep('69005000')).toBe('AM');
    expect(stateOfCep('53990000')).toBe('PE');
    expect(stateOfCep('')).toBeUndefined();
  });

  it("gives each year a state's holidays, and none to a state without a fixed-date one", () => {
    expect(stateHolidays('SP', 2025, 2026)).toEqual([
      { date: '2025-07-09', name: 'Revolução Constitucionalista' },
      { date: '2026-07-09', name: 'Revolução Constitucionalista' },
    ]);
    expect(stateHolidays('RS', 2026, 2026).map((h) => h.date)).toEqual(['2026-09-20']);
    expect(stateHolidays('MG', 2026, 2026)).toEqual([]);
    expect(stateHolidays(undefined, 2026, 2026)).toEqual([]);
  });

  it('keeps Good Friday and 20 November national (the latter from 2024)', () => {
    const dates = (y: number) => nationalHolidays(y).map((h) => h.date);
    expect(dates(2026)).toContain('2026-04-03');
    expect(dates(2023)).not.toContain('2023-11-20');
    expect(dates(2024)).toContain('2024-11-20');
  });
});
