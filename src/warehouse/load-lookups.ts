/**
 * Lookup lists of one company (spec 2.4): upserted by (company, id); records no longer
 * listed get `active = false` (the API lists only active ones) and come back active if
 * listed again.
 */
import type { AbsenceType, DescribedLookup, NamedLookup } from '../api/schemas.js';
import type { WarehouseHandle } from './db.js';
import { LoadError } from './errors.js';
import { runLoad, type LoadStats } from './load-stats.js';
import { columnsOf, type RowValues } from './rows.js';
import { checkCnpj } from './scope.js';
import { buildUpsert, type BuiltQuery, type ColumnSpec } from './upsert-statement.js';

import { LOOKUP_KINDS, type LookupKind } from './lookup-tables.js';

export { LOOKUP_KINDS, type LookupKind };

/** Lookups listed with `name` (spec 2.4); the others have `description`. */
const NAMED = new Set<LookupKind>(['cost_centers', 'units', 'digital_fences', 'dismissal_types']);
const ABSENCE_TYPE_FLAGS = ['paid_leave', 'comp_time', 'compensation', 'can_request_app'] as const;

/** The record type of a lookup kind. */
export type LookupRecord<K extends LookupKind> = K extends 'absence_types'
  ? AbsenceType
  : K extends 'cost_centers' | 'units' | 'digital_fences' | 'dismissal_types'
    ? NamedLookup
    : DescribedLookup;

/** True when `kind` names a lookup table. */
export function isLookupKind(kind: string): kind is LookupKind {
  return (LOOKUP_KINDS as readonly string[]).includes(kind);
}

function lookupColumns(kind: LookupKind): ColumnSpec[] {
  const label = NAMED.has(kind) ? 'name' : 'description';
  return [
    { name: 'company_cnpj', type: 'text' },
    { name: 'id', type: 'int4' },
    { name: label, type: 'text' },
    ...(kind === 'absence_types' ? ABSENCE_TYPE_FLAGS.map((f) => ({ name: f, type: 'bool' as const })) : []),
  ];
}

/** The statement of a lookup load (pure); records are checked for the fields of their kind. */
export function buildLookupLoad<K extends LookupKind>(schema: string, companyCnpj: string, kind: K, records: readonly LookupRecord<K>[]): Record<string, BuiltQuery> {
  if (!isLookupKind(kind)) {
    throw new LoadError('invalid_scope', String(kind), `unknown lookup kind ${JSON.stringify(kind)} (one of ${LOOKUP_KINDS.join(', ')})`);
  }
  checkCnpj(kind, companyCnpj);
  const columns = lookupColumns(kind);
  const rows = records.map((record, i) => {
    const r = record as unknown as Record<string, unknown>;
    const row: RowValues = { company_cnpj: companyCnpj };
    for (const c of columns.slice(1)) {
      const v = r[c.name];
      const ok = c.type === 'int4' ? Number.isSafeInteger(v) : c.type === 'bool' ? typeof v === 'boolean' : typeof v === 'string';
      if (!ok) {
        throw new LoadError('invalid_record', kind, `${kind}: record ${i} has no valid ${c.name} (spec 2.4): ${JSON.stringify(v)}`);
      }
      row[c.name] = v as RowValues[string];
    }
    return row;
  });
  return {
    [kind]: buildUpsert(
      {
        schema,
        table: kind,
        key: ['company_cnpj', 'id'],
        columns,
        fixed: { active: 'true' },
        missing: { mode: 'deactivate', where: (p) => `t.company_cnpj = ${p(companyCnpj)}` },
      },
      columnsOf(columns, rows, (r) => r.id as number),
    ),
  };
}

/** Loads one lookup list of one company, in one transaction. */
export async function loadLookups<K extends LookupKind>(w: WarehouseHandle, companyCnpj: string, kind: K, records: readonly LookupRecord<K>[]): Promise<LoadStats> {
  return runLoad(w.pool, buildLookupLoad(w.schema, companyCnpj, kind, records));
}
