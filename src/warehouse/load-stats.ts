/**
 * What a loader reports (docs/contracts.md `LoadStats`), and the transaction every
 * loader runs in: one window load is one transaction, so nothing half-written becomes
 * visible.
 */
import type pg from 'pg';
import type { BuiltQuery, StatementCounts } from './upsert-statement.js';

/** Rows a load wrote, for `sync_runs` and metrics. */
export interface LoadStats {
  /** Rows inserted. */
  inserted: number;
  /** Rows whose values changed (or that came back after deleted_at / inactive). */
  updated: number;
  /** Rows marked deleted_at, deactivated, or removed from a replaced list. */
  deleted: number;
  /** Rows received that were already as loaded (not rewritten). */
  unchanged: number;
  /** The same counts per table, when the load writes more than one. */
  byTable?: Record<string, LoadStats>;
}

/** Stats of one upsert statement's counts. */
export function statsOf(c: StatementCounts): LoadStats {
  return { inserted: c.inserted, updated: c.updated, deleted: c.deleted, unchanged: c.received - c.inserted - c.updated };
}

/** Sums per-table stats into one {@link LoadStats} that keeps the breakdown. */
export function sumStats(byTable: Record<string, LoadStats>): LoadStats {
  const total: LoadStats = { inserted: 0, updated: 0, deleted: 0, unchanged: 0 };
  for (const s of Object.values(byTable)) {
    total.inserted += s.inserted;
    total.updated += s.updated;
    total.deleted += s.deleted;
    total.unchanged += s.unchanged;
  }
  return { ...total, byTable };
}

/** The subset of pg's Pool that loaders need. */
export interface LoaderPool {
  connect(): Promise<pg.PoolClient>;
}

/** Runs `fn` in one transaction on a pooled client; rolls back on any error. */
export async function withTransaction<T>(pool: LoaderPool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  try {
    // The reconcile anti-joins compare a window's rows with the loaded set. Right after a
    // big load the table's statistics still say "empty", and the planner then picks a
    // nested loop that is quadratic in the window size; a hash join is right at any size.
    await client.query('BEGIN');
    await client.query('SET LOCAL enable_nestloop = off');
    const result = await fn(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {
      broken = true;
    });
    throw err;
  } finally {
    client.release(broken);
  }
}

/** Executes a built upsert and returns its counts. */
export async function runCounts(client: pg.PoolClient, query: BuiltQuery): Promise<StatementCounts> {
  const { rows } = await client.query<StatementCounts>(query.text, query.values);
  return rows[0]!;
}

/** Runs built upserts, in order, in one transaction; stats per table and summed. */
export async function runLoad(pool: LoaderPool, queries: Readonly<Record<string, BuiltQuery>>): Promise<LoadStats> {
  return withTransaction(pool, async (client) => {
    const byTable: Record<string, LoadStats> = {};
    for (const [table, query] of Object.entries(queries)) byTable[table] = statsOf(await runCounts(client, query));
    return sumStats(byTable);
  });
}
