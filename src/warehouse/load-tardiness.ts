/**
 * Tardiness of one company and window (spec 2.8, `tardiness`): one row per collaborator
 * and day, the window's rows replaced (rows the API no longer returns are removed,
 * DESIGN.md §4), unchanged rows left as they are.
 */
import type { CollaboratorTardiness } from '../api/schemas.js';
import { hourMinuteToSeconds } from '../util/duration.js';
import type { WarehouseHandle } from './db.js';
import { LoadError } from './errors.js';
import { runLoad, type LoadStats } from './load-stats.js';
import { toPgArray } from './pg-array.js';
import { ColumnBuffer } from './rows.js';
import { checkCompanies, checkScope, type WindowScope } from './scope.js';
import { buildUpsert, type BuiltQuery, type ColumnSpec } from './upsert-statement.js';

const COLUMNS: readonly ColumnSpec[] = [
  { name: 'company_cnpj', type: 'text' },
  { name: 'cpf', type: 'text' },
  { name: 'work_date', type: 'date' },
  { name: 'journey_in', type: 'time' },
  { name: 'punch_in', type: 'time' },
  { name: 'late_seconds', type: 'int4' },
  { name: 'all_points', type: 'time[]' },
];

/** spec 2.8: journey_in, punch_in and all_points are clock times HH:MM of one day. */
function clockTime(value: string, what: string, cpf: string, date: string): string {
  if (hourMinuteToSeconds(value) >= 24 * 3600) {
    throw new LoadError('invalid_record', 'tardiness', `tardiness of collaborator ${cpf} on ${date}: ${what} ${JSON.stringify(value)} is not a time of day (spec 2.8)`);
  }
  return value;
}

/** The statement of a tardiness load (pure). */
export function buildTardinessLoad(schema: string, scope: WindowScope, data: readonly CollaboratorTardiness[]): Record<string, BuiltQuery> {
  checkScope('tardiness', scope);
  checkCompanies('tardiness', scope.companyCnpj, data);
  const rows = new ColumnBuffer(COLUMNS);
  for (const c of data) {
    const cpf = c.national_registry;
    for (const t of c.tardiness) {
      rows.add(`${cpf}|${t.date}`, {
        company_cnpj: scope.companyCnpj,
        cpf,
        work_date: t.date,
        journey_in: clockTime(t.journey_in, 'journey_in', cpf, t.date),
        punch_in: clockTime(t.punch_in, 'punch_in', cpf, t.date),
        late_seconds: hourMinuteToSeconds(t.minutes_late),
        all_points: toPgArray(t.all_points.map((p) => clockTime(p, 'all_points', cpf, t.date))),
      });
    }
  }
  return {
    tardiness: buildUpsert(
      {
        schema,
        table: 'tardiness',
        key: ['company_cnpj', 'cpf', 'work_date'],
        columns: COLUMNS,
        missing: {
          mode: 'delete',
          where: (p) => `t.company_cnpj = ${p(scope.companyCnpj)} AND t.work_date BETWEEN ${p(scope.from)}::date AND ${p(scope.to)}::date`,
        },
      },
      rows.data,
    ),
  };
}

/** Replaces the tardiness of one company's window, in one transaction. */
export async function loadTardiness(w: WarehouseHandle, scope: WindowScope, data: readonly CollaboratorTardiness[]): Promise<LoadStats> {
  return runLoad(w.pool, buildTardinessLoad(w.schema, scope, data));
}
