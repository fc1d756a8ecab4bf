/**
 * Freshness of the warehouse: the last successful sync per company × resource, read
 * from the `sync_freshness` view (docs/architecture.md "Bookkeeping") so every process sees the same figure,
 * whichever worker ran the job.
 */
import { quoteIdent } from '../warehouse/db.js';

/** The subset of a pg Pool that freshness reads need. */
export interface QueryablePool {
  query(sql: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
}

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

/** The query that reads the freshness view of `schema`. */
function buildFreshnessQuery(schema: string): string {
  return (
    `select company_cnpj, resource, last_success_at from ${quoteIdent(schema)}.sync_freshness ` +
    'where last_success_at is not null order by company_cnpj nulls first, resource'
  );
}

/**
 * Reads every company × resource of the `sync_freshness` view, or returns null when the
 * view does not exist yet (warehouse not migrated).
 */
export async function readFreshness(pool: QueryablePool, schema: string): Promise<FreshnessRow[] | null> {
  try {
    const { rows } = await pool.query(buildFreshnessQuery(schema));
    return (rows as { company_cnpj: string | null; resource: string; last_success_at: Date | string }[]).map((r) => ({
      companyCnpj: r.company_cnpj,
      resource: r.resource,
      lastSuccessAt: r.last_success_at instanceof Date ? r.last_success_at : new Date(r.last_success_at),
    }));
  } catch (err) {
    if (isMissingRelation(err)) return null;
    throw err;
  }
}

/** Whole seconds from `at` to `now`, never negative (clocks of hosts differ a little). */
export function ageSeconds(at: Date, now: Date): number {
  return Math.max(0, Math.floor((now.getTime() - at.getTime()) / 1000));
}
