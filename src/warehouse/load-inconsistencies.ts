/**
 * Inconsistencies of one company and window (spec 2.10, `inconsistency`). No id in the
 * API: the window's rows are replaced (DESIGN.md §4), each occurrence keyed by its
 * position among the collaborator's occurrences of the day.
 */
import type { CollaboratorInconsistencies } from '../api/schemas.js';
import { durationToSeconds } from '../util/duration.js';
import type { WarehouseHandle } from './db.js';
import { runLoad, type LoadStats } from './load-stats.js';
import { ColumnBuffer } from './rows.js';
import { checkCompanies, checkScope, type WindowScope } from './scope.js';
import { buildUpsert, type BuiltQuery, type ColumnSpec } from './upsert-statement.js';

const COLUMNS: readonly ColumnSpec[] = [
  { name: 'company_cnpj', type: 'text' },
  { name: 'cpf', type: 'text' },
  { name: 'occurrence_date', type: 'date' },
  { name: 'seq', type: 'int4' },
  { name: 'inconsistency_type', type: 'text' },
  { name: 'value_seconds', type: 'int4' },
  { name: 'justification', type: 'text' },
  { name: 'status', type: 'text' },
];

/** The statement of an inconsistencies load (pure). */
export function buildInconsistenciesLoad(schema: string, scope: WindowScope, data: readonly CollaboratorInconsistencies[]): Record<string, BuiltQuery> {
  checkScope('inconsistencies', scope);
  checkCompanies('inconsistencies', scope.companyCnpj, data);
  const seqs = new Map<string, number>();
  const rows = new ColumnBuffer(COLUMNS);
  for (const c of data) {
    const cpf = c.national_registry;
    for (const o of c.occurrences) {
      const day = `${cpf}|${o.date}`;
      const seq = (seqs.get(day) ?? 0) + 1;
      seqs.set(day, seq);
      rows.add(`${day}|${seq}`, {
        company_cnpj: scope.companyCnpj,
        cpf,
        occurrence_date: o.date,
        seq,
        inconsistency_type: o.type,
        // spec 2.10: signed duration, negative when short
        value_seconds: durationToSeconds(o.value),
        justification: o.justification,
        status: o.status,
      });
    }
  }
  return {
    inconsistencies: buildUpsert(
      {
        schema,
        table: 'inconsistencies',
        key: ['company_cnpj', 'cpf', 'occurrence_date', 'seq'],
        columns: COLUMNS,
        missing: {
          mode: 'delete',
          where: (p) =>
            `t.company_cnpj = ${p(scope.companyCnpj)} AND t.occurrence_date BETWEEN ${p(scope.from)}::date AND ${p(scope.to)}::date`,
        },
      },
      rows.data,
    ),
  };
}

/** Replaces the inconsistencies of one company's window, in one transaction. */
export async function loadInconsistencies(w: WarehouseHandle, scope: WindowScope, data: readonly CollaboratorInconsistencies[]): Promise<LoadStats> {
  return runLoad(w.pool, buildInconsistenciesLoad(w.schema, scope, data));
}
