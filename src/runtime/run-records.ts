/**
 * Bookkeeping of the sync in the warehouse (docs/architecture.md "Bookkeeping"): one `sync_runs` row per
 * job run, and `sync_windows`, the windows completed outside the lookback horizon that
 * `backfill` skips. Plain parameterised SQL on the warehouse pool.
 */
import { hostname } from 'node:os';
import { quoteIdent } from '../warehouse/db.js';
import { windowKey } from '../plan/job-ids.js';

/** The subset of pg's Pool the bookkeeping needs. */
export interface Queryable {
  query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[]; rowCount?: number | null }>;
}

/** This process as `host:pid`, written in `sync_runs.worker`. */
export function workerName(): string {
  return `${hostname()}:${process.pid}`;
}

/** What is known when a run starts. */
export interface RunStart {
  /** BullMQ job id. */
  readonly jobId: string;
  /** Connection name. */
  readonly connection: string;
  /** Resource. */
  readonly resource: string;
  /** CNPJ, absent for group-level runs. */
  readonly company?: string;
  /** Window start. */
  readonly from?: string;
  /** Window end. */
  readonly to?: string;
  /** Attempt number, from 1. */
  readonly attempt: number;
  /** `host:pid`. */
  readonly worker: string;
}

/** How a run ended. */
export interface RunEnd {
  /** Final status. */
  readonly status: 'succeeded' | 'failed';
  /** HTTP attempts made. */
  readonly requests: number;
  /** Rows inserted. */
  readonly inserted: number;
  /** Rows updated. */
  readonly updated: number;
  /** Rows marked deleted. */
  readonly deleted: number;
  /** Records received but not stored (see rejected_records). */
  readonly rejected?: number;
  /** Wall time of the run. */
  readonly durationMs: number;
  /** Error message of a failed run (one line, no secrets). */
  readonly error?: string;
}

const q = (schema: string, table: string) => `${quoteIdent(schema)}.${quoteIdent(table)}`;

/**
 * Inserts a `running` row and returns its id. Rows of the same job still `running`
 * belong to a worker that died mid-run (its lock expired and the job came back): they
 * are closed as failed first, so `running` always means running.
 */
export async function startRun(db: Queryable, schema: string, r: RunStart): Promise<number> {
  await db.query(
    `update ${q(schema, 'sync_runs')}
        set status = 'failed', finished_at = now(),
            duration_ms = (extract(epoch from now() - started_at) * 1000)::int,
            error = 'abandoned: the worker stopped before finishing'
      where job_id = $1 and status = 'running'`,
    [r.jobId],
  );
  const res = await db.query(
    `insert into ${q(schema, 'sync_runs')}
       (job_id, connection, resource, company_cnpj, window_start, window_end, status, attempt,
        requests, rows_inserted, rows_updated, rows_deleted, started_at, worker)
     values ($1, $2, $3, $4, $5, $6, 'running', $7, 0, 0, 0, 0, now(), $8)
     returning id`,
    [r.jobId, r.connection, r.resource, r.company ?? null, r.from ?? null, r.to ?? null, r.attempt, r.worker],
  );
  return Number(res.rows[0]!.id);
}

/** Closes a run with its outcome. */
export async function finishRun(db: Queryable, schema: string, id: number, e: RunEnd): Promise<void> {
  await db.query(
    `update ${q(schema, 'sync_runs')}
        set status = $2, requests = $3, rows_inserted = $4, rows_updated = $5, rows_deleted = $6,
            finished_at = now(), duration_ms = $7, error = $8, rows_rejected = $9
      where id = $1`,
    [id, e.status, e.requests, e.inserted, e.updated, e.deleted, Math.round(e.durationMs), e.error ?? null, e.rejected ?? 0],
  );
}

/** A completed window. */
export interface CompletedWindow {
  readonly connection: string;
  readonly company: string;
  readonly resource: string;
  readonly from: string;
  readonly to: string;
  readonly runId: number;
}

/** Records a window as done (idempotent: a re-sync refreshes `completed_at`). */
export async function recordWindow(db: Queryable, schema: string, w: CompletedWindow): Promise<void> {
  await db.query(
    `insert into ${q(schema, 'sync_windows')}
       (connection, company_cnpj, resource, window_start, window_end, completed_at, run_id)
     values ($1, $2, $3, $4, $5, now(), $6)
     on conflict (connection, company_cnpj, resource, window_start, window_end)
     do update set completed_at = excluded.completed_at, run_id = excluded.run_id`,
    [w.connection, w.company, w.resource, w.from, w.to, w.runId],
  );
}

/** Keys ({@link windowKey}) of every window recorded as done for `connection`. */
export async function doneWindows(db: Queryable, schema: string, connection: string): Promise<Set<string>> {
  const res = await db.query(
    `select company_cnpj, resource, to_char(window_start, 'YYYY-MM-DD') as f, to_char(window_end, 'YYYY-MM-DD') as t
       from ${q(schema, 'sync_windows')} where connection = $1`,
    [connection],
  );
  return new Set(
    res.rows.map((r) =>
      windowKey({ resource: String(r.resource), company: String(r.company_cnpj), from: String(r.f), to: String(r.t) }),
    ),
  );
}
