import type { NotNull } from 'kysely';
import { warehouseDb, type SqlRunner } from '../warehouse/db.js';

/** Last successful sync of one company × resource. */
export interface FreshnessRow {
  /** CNPJ of the company, or null for group-level runs. */
  readonly companyCnpj: string | null;
  /** Resource name (`RESOURCES` of src/plan/resources.ts, as in `--resources`). */
  readonly resource: string;
  /** When the last successful run finished. */
  readonly lastSuccessAt: Date;
}

/** Postgres SQLSTATE of an undefined table or view, and of an undefined schema. */
const MISSING_RELATION = new Set(['42P01', '3F000']);

/** True when `err` says a table, view or schema does not exist (the warehouse is not migrated). */
export function isMissingRelation(err: unknown): boolean {
  return MISSING_RELATION.has((err as { code?: string } | null)?.code ?? '');
}

/** What `read` resolves to, or null when a relation it reads does not exist (not migrated). */
export async function unlessMissing<T>(read: Promise<T>): Promise<T | null> {
  try {
    return await read;
  } catch (err) {
    if (isMissingRelation(err)) return null;
    throw err;
  }
}

/**
 * Reads the last successful sync per company × resource from the `sync_freshness` view
 * (docs/architecture.md "Bookkeeping"): the same in every process, whichever worker ran the job; null
 * before the view exists.
 */
export function readFreshness(pool: SqlRunner, schema: string): Promise<FreshnessRow[] | null> {
  const query = warehouseDb(pool, schema)
    .selectFrom('sync_freshness')
    .select(['company_cnpj as companyCnpj', 'resource', 'last_success_at as lastSuccessAt'])
    .where('last_success_at', 'is not', null)
    .orderBy('company_cnpj', (o) => o.nullsFirst())
    .orderBy('resource')
    .$narrowType<{ resource: NotNull; lastSuccessAt: NotNull }>();
  return unlessMissing(query.execute());
}

/** Whole seconds from `at` to `now`, never negative (clocks of hosts differ a little). */
export function ageSeconds(at: Date, now: Date): number {
  return Math.max(0, Math.floor((now.getTime() - at.getTime()) / 1000));
}
