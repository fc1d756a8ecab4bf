/**
 * Punches and work days of one company and window (spec 2.12,
 * `point/getFromPeriod`): upserted by point_id and by (company, cpf, day), and the
 * window reconciled — punches and days of the company dated in the window that the API
 * no longer returns get deleted_at (DESIGN.md §4 "Deletions").
 */
import type { CollaboratorPoints } from '../api/schemas.js';
import { durationValueToSeconds } from '../util/duration.js';
import { createLocalTimeConverter } from './local-time.js';
import { runLoad, type LoadStats } from './load-stats.js';
import { ColumnBuffer } from './rows.js';
import { checkCompanies, checkScope, type WindowScope } from './scope.js';
import { buildUpsert, type BuiltQuery, type ColumnSpec } from './upsert-statement.js';
import type { WarehouseHandle } from './db.js';

const PUNCH_COLUMNS: readonly ColumnSpec[] = [
  { name: 'point_id', type: 'int8' },
  { name: 'company_cnpj', type: 'text' },
  { name: 'cpf', type: 'text' },
  { name: 'work_date', type: 'date' },
  { name: 'punched_at_local', type: 'timestamp' },
  { name: 'punched_at', type: 'timestamptz' },
  { name: 'hour_local', type: 'text' },
  { name: 'method', type: 'text' },
  { name: 'origin', type: 'text' },
  { name: 'is_adjusted', type: 'bool' },
  { name: 'adjustment_reason', type: 'text' },
  { name: 'adjusted_by', type: 'text' },
  { name: 'accuracy_meters', type: 'float8' },
  { name: 'latitude', type: 'float8' },
  { name: 'longitude', type: 'float8' },
  { name: 'address', type: 'text' },
  { name: 'has_audit_photo', type: 'bool' },
];

const WORK_DAY_COLUMNS: readonly ColumnSpec[] = [
  { name: 'company_cnpj', type: 'text' },
  { name: 'cpf', type: 'text' },
  { name: 'work_date', type: 'date' },
  { name: 'shift', type: 'text' },
  { name: 'worked_seconds', type: 'int4' },
];

/** The statements of a punches load (pure): `punches` and `work_days`. */
export function buildPunchLoad(schema: string, scope: WindowScope, data: readonly CollaboratorPoints[]): Record<string, BuiltQuery> {
  checkScope('punches', scope);
  checkCompanies('punches', scope.companyCnpj, data);
  const toUtc = createLocalTimeConverter(scope.timezone);
  const punches = new ColumnBuffer(PUNCH_COLUMNS);
  const days = new ColumnBuffer(WORK_DAY_COLUMNS);
  for (const c of data) {
    const cpf = c.national_registry;
    for (const d of c.days) {
      days.add(`${cpf}|${d.date}`, {
        company_cnpj: scope.companyCnpj,
        cpf,
        work_date: d.date,
        shift: d.shift,
        // spec 1.2: HH:MM:SS, or decimal hours with decimal_format=1
        worked_seconds: durationValueToSeconds(d.worked_time),
      });
      for (const p of d.points) {
        punches.add(p.point_id, {
          point_id: p.point_id,
          company_cnpj: scope.companyCnpj,
          cpf,
          work_date: d.date,
          punched_at_local: p.datetime,
          punched_at: toUtc(p.datetime),
          hour_local: p.hour,
          method: p.method,
          origin: p.origin,
          is_adjusted: p.is_adjusted,
          adjustment_reason: p.adjustment_reason,
          adjusted_by: p.adjusted_by,
          accuracy_meters: p.accuracy_meters,
          latitude: p.geolocation.lat,
          longitude: p.geolocation.lng,
          address: p.address,
          has_audit_photo: p.has_audit_photo,
        });
      }
    }
  }
  const inWindow = (column: string) => (param: (v: unknown) => string) =>
    `t.company_cnpj = ${param(scope.companyCnpj)} AND t.${column} BETWEEN ${param(scope.from)}::date AND ${param(scope.to)}::date`;
  return {
    punches: buildUpsert(
      {
        schema,
        table: 'punches',
        key: ['point_id'],
        columns: PUNCH_COLUMNS,
        softDelete: true,
        missing: { mode: 'soft-delete', where: inWindow('work_date') },
      },
      punches.data,
    ),
    work_days: buildUpsert(
      {
        schema,
        table: 'work_days',
        key: ['company_cnpj', 'cpf', 'work_date'],
        columns: WORK_DAY_COLUMNS,
        softDelete: true,
        missing: { mode: 'soft-delete', where: inWindow('work_date') },
      },
      days.data,
    ),
  };
}

/** Loads the punches and work days of one company's window, in one transaction. */
export async function loadPunches(w: WarehouseHandle, scope: WindowScope, data: readonly CollaboratorPoints[]): Promise<LoadStats> {
  return runLoad(w.pool, buildPunchLoad(w.schema, scope, data));
}
