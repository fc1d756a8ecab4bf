/**
 * Hour totals of one company and period (spec 2.7, `collaborator/totalHours`): one row
 * per collaborator and period with every key as signed integer seconds. Reconciles the
 * company's current rows of any period overlapping the window, so current rows never
 * overlap (a re-read month replaces the halves it was once split into, and vice versa).
 */
import { TOTAL_HOURS_KEYS, type CollaboratorTotalHours } from '../api/schemas.js';
import { durationValueToSeconds } from '../util/duration.js';
import type { WarehouseHandle } from './db.js';
import { runLoad, type LoadStats } from './load-stats.js';
import { columnsOf, type RowValues } from './rows.js';
import { checkCompanies, checkScope, type WindowScope } from './scope.js';
import { buildUpsert, type BuiltQuery, type ColumnSpec } from './upsert-statement.js';

const COLUMNS: readonly ColumnSpec[] = [
  { name: 'company_cnpj', type: 'text' },
  { name: 'cpf', type: 'text' },
  { name: 'period_start', type: 'date' },
  { name: 'period_end', type: 'date' },
  ...TOTAL_HOURS_KEYS.map((k) => ({ name: `${k}_seconds`, type: 'int4' as const })),
];

/** The statement of an hour-totals load (pure). */
export function buildHourTotalsLoad(schema: string, scope: WindowScope, data: readonly CollaboratorTotalHours[]): Record<string, BuiltQuery> {
  checkScope('hour_totals', scope);
  checkCompanies('hour_totals', scope.companyCnpj, data);
  const rows = data.map((c) => {
    const row: RowValues = {
      company_cnpj: scope.companyCnpj,
      cpf: c.national_registry,
      period_start: scope.from,
      period_end: scope.to,
    };
    // spec 1.2 / 2.7: HH:MM:SS (hours may exceed 99, signed) or decimal hours
    for (const k of TOTAL_HOURS_KEYS) row[`${k}_seconds`] = durationValueToSeconds(c.total_hours[k]);
    return row;
  });
  return {
    hour_totals: buildUpsert(
      {
        schema,
        table: 'hour_totals',
        key: ['company_cnpj', 'cpf', 'period_start', 'period_end'],
        columns: COLUMNS,
        softDelete: true,
        missing: {
          mode: 'soft-delete',
          where: (p) =>
            `t.company_cnpj = ${p(scope.companyCnpj)} AND t.period_start <= ${p(scope.to)}::date AND t.period_end >= ${p(scope.from)}::date`,
        },
      },
      columnsOf(COLUMNS, rows, (r) => r.cpf as string),
    ),
  };
}

/** Loads the hour totals of one company's period, in one transaction. */
export async function loadHourTotals(w: WarehouseHandle, scope: WindowScope, data: readonly CollaboratorTotalHours[]): Promise<LoadStats> {
  return runLoad(w.pool, buildHourTotalsLoad(w.schema, scope, data));
}
