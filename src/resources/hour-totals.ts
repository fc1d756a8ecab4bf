/**
 * Hour totals (spec 2.7, `collaborator/totalHours`): one row per collaborator and period read,
 * every key of `total_hours` as signed integer seconds. The company's current rows of any period
 * overlapping the window that the answer lacks get `deleted_at`, so current rows never overlap (a
 * month read whole replaces the halves it was once read in, and the other way round).
 */
import { TOTAL_HOURS_KEYS, type TotalHoursKey } from '../api/schemas.js';
import { durationValueToSeconds } from '../util/duration.js';
import { overlapping, type SqlType, type TableSpec } from '../warehouse/table-spec.js';
import { collaboratorRecord } from './collaborators.js';
import { person, PERSON_COLUMNS, shown } from './column-classes.js';
import { defineResource, declareRead, windowQuery } from './declaration.js';

type TotalColumns = { readonly [K in `${TotalHoursKey}_seconds`]: 'int4' };
const totalColumns = Object.fromEntries(
  TOTAL_HOURS_KEYS.map((k) => [`${k}_seconds`, 'int4' satisfies SqlType]),
) as TotalColumns;

const tables = {
  hour_totals: {
    table: 'hour_totals',
    key: ['company_cnpj', 'cpf', 'period_start', 'period_end', 'collaborator_record'],
    columns: { ...PERSON_COLUMNS, period_start: 'date', period_end: 'date', ...totalColumns },
    softDelete: true,
    missing: { mode: 'soft-delete', where: overlapping('period_start', 'period_end') },
  },
} as const satisfies Record<string, TableSpec>;

/** `hour_totals`: the totals of one month window per job. */
export const hourTotals = defineResource({
  read: 'month',
  tables,
  // The totals of the previous and the current month.
  schedule: { nightly: { months: [-1, 0] } },
  checks: ['window_completeness', 'totals_vs_days', 'rule_vs_days', 'unknown_collaborator'],
  roles: { totals: 'hour_totals' },
  privacy: {
    hour_totals: {
      columns: {
        ...person(),
        medical_certificate_time_seconds: shown(
          'health',
          'hours covered by medical certificates, without diagnosis',
        ),
      },
    },
  },
  reads: [
    declareRead('month', tables, {
      endpoint: 'collaborator/totalHours',
      query: windowQuery,
      people: (c) => [c],
      rows(c, out, x) {
        const row: Record<string, string | number> = {
          company_cnpj: x.company,
          cpf: c.national_registry,
          collaborator_record: collaboratorRecord(c),
          period_start: x.window.from,
          period_end: x.window.to,
        };
        // spec 1.2 / 2.7: HH:MM:SS (hours may exceed 99, signed) or decimal hours
        for (const k of TOTAL_HOURS_KEYS) row[`${k}_seconds`] = durationValueToSeconds(c.total_hours[k]);
        out.hour_totals(row as Parameters<typeof out.hour_totals>[0]);
      },
    }),
  ],
});
