import type pg from 'pg';
import { createWarehouse, type Warehouse } from '../warehouse/db.js';

/**
 * What a check's session needs. Statistics lag behind fresh loads: the planner takes a window's
 * rows for a handful and picks a nested loop quadratic in the window, or sorts (or incrementally
 * sorts, along an index) rows to group them where hashing costs a quarter to a third less (a sort
 * still runs where nothing else can: ORDER BY, window functions). A plan costed so crosses
 * `jit_above_cost`, and compiling it takes longer than the check. Three months of 10,000
 * collaborators' punch days (600,000 groups, 160 MB) hash in memory (`work_mem` times
 * `hash_mem_multiplier`, 2 by default) without spilling.
 */
export const CHECK_SETTINGS: Readonly<Record<string, string>> = {
  enable_nestloop: 'off',
  enable_incremental_sort: 'off',
  enable_sort: 'off',
  jit: 'off',
  work_mem: '128MB',
};

/** The part of a pg Pool the checks need. */
export type CheckPool = Pick<pg.Pool, 'connect' | 'query'>;

const opened = new WeakSet<object>();

/**
 * Opens a pool for the checks (`application_name` names it in pg_stat_activity). Its sessions start
 * with the checks' settings, so each check is one statement sent once (no BEGIN, SET and COMMIT around
 * it), and its size bounds the checks at once whatever the jobs, so verifying never crowds the loads.
 * On any other pool each check runs in a transaction that sets them first.
 */
export function openCheckPool(
  databaseUrl: string,
  schema: string,
  options: { readonly max: number; readonly applicationName: string },
): Warehouse {
  const w = createWarehouse(databaseUrl, schema, { ...options, settings: CHECK_SETTINGS });
  opened.add(w.pool);
  return w;
}

/** Whether `pool` was opened by {@link openCheckPool}, its sessions set up already. */
export function isCheckPool(pool: CheckPool): boolean {
  return opened.has(pool);
}
