/**
 * Tardiness (spec 2.8, `tardiness`): one row per collaborator record and day, the window's rows
 * replaced — a late arrival the API no longer lists is removed.
 */
import { hourMinuteToSeconds } from '../util/duration.js';
import { inWindow, type TableSpec } from '../warehouse/table-spec.js';
import { collaboratorRecord } from './collaborators.js';
import { person, PERSON_COLUMNS } from './column-classes.js';
import { defineResource, HORIZON_FACTS, declareRead, windowQuery } from './declaration.js';

/** spec 2.8: journey_in, punch_in and all_points are times of one day (`25:00` is not). */
function clockTime(field: string, value: string): string {
  if (hourMinuteToSeconds(value) >= 24 * 3600)
    throw new RangeError(`${field} ${JSON.stringify(value)} is not a time of day (spec 2.8)`);
  return value;
}

const tables = {
  tardiness: {
    table: 'tardiness',
    key: ['company_cnpj', 'cpf', 'collaborator_record', 'work_date'],
    columns: {
      ...PERSON_COLUMNS,
      work_date: 'date',
      journey_in: 'time',
      punch_in: 'time',
      late_seconds: 'int4',
      all_points: 'time[]',
    },
    missing: { mode: 'delete', where: inWindow('work_date') },
  },
} as const satisfies Record<string, TableSpec>;

/** `tardiness`: late arrivals of one month window per job. */
export const tardiness = defineResource({
  read: 'month',
  tables,
  ...HORIZON_FACTS,
  privacy: { tardiness: { columns: person() } },
  marts: { measure: 'lateness' },
  reads: [
    declareRead('month', tables, {
      endpoint: 'tardiness',
      query: windowQuery,
      people: (c) => [c],
      rows(c, out, x) {
        const record = collaboratorRecord(c);
        for (const t of c.tardiness) {
          out.tardiness({
            company_cnpj: x.company,
            cpf: c.national_registry,
            collaborator_record: record,
            work_date: t.date,
            // spec 2.8: clock times HH:MM of the day, company local time
            journey_in: clockTime('journey_in', t.journey_in),
            punch_in: clockTime('punch_in', t.punch_in),
            late_seconds: hourMinuteToSeconds(t.minutes_late),
            all_points: t.all_points.map((p) => clockTime('all_points', p)),
          });
        }
      },
    }),
  ],
});
