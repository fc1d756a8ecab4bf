/**
 * Punch-adjustment requests of one company and window (spec 2.9, `adjustment`). The API
 * gives them no id, so the window's rows are replaced (DESIGN.md §4); each request is
 * keyed by its position among the collaborator's requests of the day, so a reload of
 * the same data rewrites nothing.
 */
import type { CollaboratorAdjustments } from '../api/schemas.js';
import type { WarehouseHandle } from './db.js';
import { createLocalTimeConverter } from './local-time.js';
import { runLoad, type LoadStats } from './load-stats.js';
import { ColumnBuffer } from './rows.js';
import { checkCompanies, checkScope, type WindowScope } from './scope.js';
import { buildUpsert, type BuiltQuery, type ColumnSpec } from './upsert-statement.js';

const COLUMNS: readonly ColumnSpec[] = [
  { name: 'company_cnpj', type: 'text' },
  { name: 'cpf', type: 'text' },
  { name: 'request_date', type: 'date' },
  { name: 'seq', type: 'int4' },
  { name: 'requests_in_day', type: 'int4' },
  { name: 'adjustment_type', type: 'text' },
  { name: 'status', type: 'text' },
  { name: 'collaborator_reason', type: 'text' },
  { name: 'manager_observation', type: 'text' },
  { name: 'approved_by', type: 'text' },
  { name: 'created_at_local', type: 'timestamp' },
  { name: 'created_at', type: 'timestamptz' },
  { name: 'updated_at_local', type: 'timestamp' },
  { name: 'updated_at', type: 'timestamptz' },
];

/** The statement of an adjustments load (pure). */
export function buildAdjustmentsLoad(schema: string, scope: WindowScope, data: readonly CollaboratorAdjustments[]): Record<string, BuiltQuery> {
  checkScope('adjustment_requests', scope);
  checkCompanies('adjustment_requests', scope.companyCnpj, data);
  const toUtc = createLocalTimeConverter(scope.timezone);
  const seqs = new Map<string, number>();
  const rows = new ColumnBuffer(COLUMNS);
  for (const c of data) {
    const cpf = c.national_registry;
    for (const a of c.adjustments) {
      const day = `${cpf}|${a.date}`;
      const seq = (seqs.get(day) ?? 0) + 1;
      seqs.set(day, seq);
      rows.add(`${day}|${seq}`, {
        company_cnpj: scope.companyCnpj,
        cpf,
        request_date: a.date,
        seq,
        requests_in_day: a.requests_in_day,
        adjustment_type: a.type,
        status: a.status,
        collaborator_reason: a.collaborator_reason,
        manager_observation: a.manager_observation,
        approved_by: a.approved_by,
        created_at_local: a.created_at,
        created_at: toUtc(a.created_at),
        updated_at_local: a.updated_at,
        updated_at: toUtc(a.updated_at),
      });
    }
  }
  return {
    adjustment_requests: buildUpsert(
      {
        schema,
        table: 'adjustment_requests',
        key: ['company_cnpj', 'cpf', 'request_date', 'seq'],
        columns: COLUMNS,
        missing: {
          mode: 'delete',
          where: (p) => `t.company_cnpj = ${p(scope.companyCnpj)} AND t.request_date BETWEEN ${p(scope.from)}::date AND ${p(scope.to)}::date`,
        },
      },
      rows.data,
    ),
  };
}

/** Replaces the adjustment requests of one company's window, in one transaction. */
export async function loadAdjustments(w: WarehouseHandle, scope: WindowScope, data: readonly CollaboratorAdjustments[]): Promise<LoadStats> {
  return runLoad(w.pool, buildAdjustmentsLoad(w.schema, scope, data));
}
