/**
 * Bookkeeping of the sync in the warehouse (docs/architecture.md "Bookkeeping"): one `sync_runs`
 * row per job run, and `sync_windows`, the windows completed outside the lookback horizon that
 * `backfill` skips.
 */
import { hostname } from 'node:os';
import { sql } from 'kysely';
import { warehouseDb, type SqlRunner } from '../warehouse/db.js';
import { windowKey } from '../plan/job-ids.js';
import type { SyncJobData } from '../plan/job-data.js';

/** This process as `host:pid`, written in `sync_runs.worker`. */
export const workerName = (): string => `${hostname()}:${process.pid}`;

/** What is known when a run starts (no company nor window for group-level runs); `attempt` counts from 1. */
type RunStart = Pick<SyncJobData, 'connection' | 'resource' | 'company' | 'from' | 'to'> & {
  jobId: string;
  attempt: number;
};

/** How a run ended: `rejected` records were not stored; `error` is one line without secrets. */
type RunEnd = Readonly<{
  status: 'succeeded' | 'failed';
  requests: number;
  inserted: number;
  updated: number;
  deleted: number;
  rejected?: number;
  durationMs: number;
  error?: string;
}>;

/**
 * Inserts a `running` row and returns its id. Rows of the same job still `running` belong to a
 * worker that died mid-run (its lock expired, the job came back): they are closed as failed first,
 * so `running` always means running.
 */
export async function startRun(db: SqlRunner, schema: string, r: RunStart): Promise<number> {
  const runs = warehouseDb(db, schema);
  await runs
    .updateTable('sync_runs')
    .set({
      status: 'failed',
      finished_at: sql`now()`,
      duration_ms: sql`(extract(epoch from now() - started_at) * 1000)::int`,
      error: 'abandoned: the worker stopped before finishing',
    })
    .where('job_id', '=', r.jobId)
    .where('status', '=', 'running')
    .execute();
  const { id } = await runs
    .insertInto('sync_runs')
    .values({
      job_id: r.jobId,
      connection: r.connection,
      resource: r.resource,
      company_cnpj: r.company ?? null,
      window_start: r.from ?? null,
      window_end: r.to ?? null,
      status: 'running',
      attempt: r.attempt,
      requests: 0,
      rows_inserted: 0,
      rows_updated: 0,
      rows_deleted: 0,
      started_at: sql`now()`,
      worker: workerName(),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return id;
}

/** Closes a run with its outcome. */
export async function finishRun(db: SqlRunner, schema: string, id: number, e: RunEnd): Promise<void> {
  await warehouseDb(db, schema)
    .updateTable('sync_runs')
    .set({
      status: e.status,
      requests: e.requests,
      rows_inserted: e.inserted,
      rows_updated: e.updated,
      rows_deleted: e.deleted,
      finished_at: sql`now()`,
      duration_ms: Math.round(e.durationMs),
      error: e.error ?? null,
      rows_rejected: e.rejected ?? 0,
    })
    .where('id', '=', id)
    .execute();
}

/** Records a window as done (idempotent: a re-sync refreshes `completed_at`). */
export async function recordWindow(
  db: SqlRunner,
  schema: string,
  w: { connection: string; company: string; resource: string; from: string; to: string; runId: number },
): Promise<void> {
  await warehouseDb(db, schema)
    .insertInto('sync_windows')
    .values({
      connection: w.connection,
      company_cnpj: w.company,
      resource: w.resource,
      window_start: w.from,
      window_end: w.to,
      completed_at: sql`now()`,
      run_id: w.runId,
    })
    .onConflict((oc) =>
      oc
        .columns(['connection', 'company_cnpj', 'resource', 'window_start', 'window_end'])
        .doUpdateSet((eb) => ({
          completed_at: eb.ref('excluded.completed_at'),
          run_id: eb.ref('excluded.run_id'),
        })),
    )
    .execute();
}

/** Keys ({@link windowKey}) of every window recorded as done for `connection`. */
export async function doneWindows(db: SqlRunner, schema: string, connection: string): Promise<Set<string>> {
  const rows = await warehouseDb(db, schema)
    .selectFrom('sync_windows')
    .select([
      'company_cnpj as company',
      'resource',
      sql<string>`to_char(window_start, 'YYYY-MM-DD')`.as('from'),
      sql<string>`to_char(window_end, 'YYYY-MM-DD')`.as('to'),
    ])
    .where('connection', '=', connection)
    .execute();
  return new Set(rows.map(windowKey));
}
