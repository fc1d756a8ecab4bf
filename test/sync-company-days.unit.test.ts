import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { companiesByDay, planByCompanyDay } from '../src/plan/company-days.js';
import { planJobs, scheduleItems } from '../src/plan/planner.js';

const HQ = '11222333000181';
const ACRE = '11222333000262';
const connection = loadConfig({
  SERVICE_API_BASE_URL: 'http://x.example',
  SERVICE_API_TOKEN: 'tok-1234',
  COMPANY_TIMEZONES: `${ACRE}=America/Rio_Branco`,
}).connections[0]!;
// 00:30 in São Paulo, still 22:30 of the day before in Rio Branco.
const NEAR_MIDNIGHT = new Date('2026-10-21T03:30:00Z');

describe('today per company', () => {
  it('puts a company named in COMPANY_TIMEZONES on its own calendar day', () => {
    expect(companiesByDay(connection, [HQ, ACRE], NEAR_MIDNIGHT)).toEqual(
      new Map([
        ['2026-10-21', [HQ]],
        ['2026-10-20', [ACRE]],
      ]),
    );
    expect(companiesByDay(connection, [HQ, ACRE], new Date('2026-10-21T12:00:00Z'))).toEqual(
      new Map([['2026-10-21', [HQ, ACRE]]]),
    );
  });

  it("plans each company's schedule up to its own today, and the group walk once", () => {
    const plan = planByCompanyDay(connection, [HQ, ACRE], NEAR_MIDNIGHT, (today, companies) =>
      planJobs({
        connection: 'default',
        companies,
        scoped: true,
        items: [{ resource: 'companies' }, ...scheduleItems('punches', today)],
        followUps: [],
        force: false,
        origin: 'schedule',
      }),
    );
    expect(plan.jobs.map((j) => j.id)).toEqual([
      'companies.default',
      `punches.default.${HQ}.2026-10-15.2026-10-21`,
      `punches.default.${ACRE}.2026-10-14.2026-10-20`,
    ]);
  });
});
