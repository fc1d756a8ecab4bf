/** The transaction a load runs in: one window is one transaction, so nothing half-written is ever visible. */
import type pg from 'pg';

/** The subset of pg's Pool that transactions need. */
export interface TransactionPool {
  connect(): Promise<pg.PoolClient>;
}

/** Runs `fn` in one transaction on a pooled client; rolls back on any error. */
export async function withTransaction<T>(
  pool: TransactionPool,
  fn: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  try {
    // Right after a big load the statistics still say "empty", and the planner would pick
    // a nested loop for reconciliation's anti-joins, quadratic in the window; a hash join is
    // right at any size. Plans that still need a nested loop then look so costly that
    // Postgres would JIT-compile every load's statements: hundreds of ms of CPU each.
    // One round trip: a backfill opens hundreds of transactions.
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

/** Runs `fn` in a transaction that is always rolled back: what it would change, counted, nothing kept (dry runs). */
export async function rolledBack<T>(
  pool: TransactionPool,
  fn: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query('BEGIN');
    return await fn(client);
  } finally {
    await client.query('ROLLBACK').catch(() => {
      broken = true;
    });
    client.release(broken);
  }
}
