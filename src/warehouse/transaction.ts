/**
 * The transaction a load runs in: one window is one transaction, so nothing
 * half-written ever becomes visible.
 */
import type pg from 'pg';

/** The subset of pg's Pool that transactions need. */
export interface TransactionPool {
  connect(): Promise<pg.PoolClient>;
}

/** Runs `fn` in one transaction on a pooled client; rolls back on any error. */
export async function withTransaction<T>(pool: TransactionPool, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  try {
    // Reconciliation anti-joins compare a window's rows with the staged answer. Right
    // after a big load the statistics still say "empty", and the planner then picks a
    // nested loop that is quadratic in the window size; a hash join is right at any size.
    // That setting makes any plan that still needs a nested loop look enormously costly,
    // and Postgres would then JIT-compile (and optimise, and inline) the statements of
    // every load: hundreds of milliseconds of CPU each, for statements that run in a few.
    // One round trip: each costs the worker and the server a wake-up, and a backfill opens hundreds.
    await client.query('BEGIN; SET LOCAL enable_nestloop = off; SET LOCAL jit = off');
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
