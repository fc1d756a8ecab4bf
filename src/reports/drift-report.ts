import { warehouseDb, type SqlRunner } from '../warehouse/db.js';
import { unlessMissing } from './freshness.js';

/**
 * One piece of schema drift the sync recorded (src/load/drift-log.ts): a value of a source-owned list
 * not seen before, or a field no schema names. It never stops the sync; `punchline status` lists it
 * so someone decides whether the warehouse or the reports should know it.
 */
export interface DriftEntry {
  /**
   * `new_value`, `unknown_field`, `cleaned_value` (values of a column stored without a NUL character),
   * or `too_many` (more values of the field, or unknown fields of the endpoint, than are kept).
   */
  readonly kind: 'new_value' | 'unknown_field' | 'cleaned_value' | 'too_many';
  /** Endpoint of an unknown field (empty for a new value: a list's values are shared by its endpoints). */
  readonly endpoint: string;
  /** The field, e.g. `point.origin` or `days[].points[].selfie_url`; the warehouse column of a cleaned value. */
  readonly field: string;
  /** The new value (empty for an unknown field). */
  readonly value: string;
  /** When the sync first and last saw it (ISO 8601). */
  readonly firstSeenAt: string;
  readonly lastSeenAt: string;
}

/** Reads every recorded drift, new values first; null when the warehouse has no `schema_drift` yet. */
export async function readSchemaDrift(pool: SqlRunner, schema: string): Promise<DriftEntry[] | null> {
  const query = warehouseDb(pool, schema)
    .selectFrom('schema_drift')
    .select(['kind', 'endpoint', 'field', 'value', 'first_seen_at', 'last_seen_at'])
    .orderBy('kind')
    .orderBy('field')
    .orderBy('value')
    .orderBy('endpoint')
    .$narrowType<{ kind: DriftEntry['kind'] }>();
  const rows = await unlessMissing(query.execute());
  return (
    rows &&
    rows.map(({ first_seen_at: first, last_seen_at: last, ...r }) => ({
      ...r,
      firstSeenAt: first.toISOString(),
      lastSeenAt: last.toISOString(),
    }))
  );
}
