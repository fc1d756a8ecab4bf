/**
 * src/backfill/ — `punchline backfill`: its arguments, the run that queues and follows the windows,
 * its progress.
 *
 * `backfill` (docs/operations.md "Backfill"): check the warehouse and every connection, plan the
 * windows of the range, skip those recorded as done (unless forced), queue the rest under
 * deterministic ids, work on them in this process while other running workers help, follow
 * every job (and the follow-ups they queue) to its end, then wait until the marts of its
 * companies have taken in every load (src/runtime/marts-job.ts).
 */
import type { Job } from 'bullmq';
import type { BackfillOptions } from './args.js';
import { enqueueJobs } from '../runtime/enqueue.js';
import { followedStates } from '../runtime/job-states.js';
import type { SyncJobResult } from '../plan/job-data.js';
import type { ProgressReporter } from './progress.js';
import type { QueueName } from '../plan/resources.js';
import { watchPauses } from '../runtime/queue-pauses.js';
import type { SyncRuntime } from '../runtime/runtime.js';
import { startWorkers } from '../runtime/workers.js';
import { planBackfill } from './plan.js';
import { quoteIdent } from '../warehouse/db.js';
import { AFTER_BACKFILL, analyzeWritten } from '../warehouse/analyze.js';
import { startMartsRefresh, type MartsJobData } from '../runtime/marts-job.js';

/** Outcome of a backfill. */
export interface BackfillSummary {
  /** Jobs followed (windows, directory jobs, follow-ups), those that succeeded and those failed for good. */
  total: number;
  succeeded: number;
  failed: number;
  /** Windows skipped as already done. */
  skipped: number;
  /** Rows inserted, updated and marked deleted. */
  inserted: number;
  updated: number;
  deleted: number;
  /** API requests made by the jobs (any process). */
  requests: number;
  durationMs: number;
  /** True when stopped by a signal before the end. */
  interrupted: boolean;
  /** Failed jobs and why (first ones). */
  failures: { id: string; error: string }[];
  /** Milliseconds from the end of the last window to the marts of every company being current. */
  martsCatchUpMs: number;
}

/** Options of {@link runBackfill}. */
interface BackfillRunOptions {
  readonly reporter?: ProgressReporter;
  /** Stops following (and working) when aborted; queued jobs stay for the workers. */
  readonly signal?: AbortSignal;
  /** Work on the jobs in this process (default true); false only queues and follows them (and takes the marts' follow-ups). */
  readonly work?: boolean;
  /** How often job states are read, ms (default 500). */
  readonly pollMs?: number;
  /** Told once everything is queued (tests). */
  readonly onQueued?: (ids: readonly string[]) => void;
}

const MAX_FAILURES_LISTED = 20;
/** The queues a backfill's jobs go to, and the marts' follow-ups of its companies. */
const QUEUES = ['sync', 'followups'] as const;
const WORKED = [...QUEUES, 'marts'] as const;

/** Runs a backfill; see the file comment. */
export async function runBackfill(
  rt: SyncRuntime,
  opts: BackfillOptions,
  run: BackfillRunOptions = {},
): Promise<BackfillSummary> {
  const started = Date.now();
  const plan = await planBackfill(rt, opts);
  // Every token works: a pause left by an earlier 401 must not hold this backfill's jobs.
  for (const connection of plan.connections) await rt.healing.pauses.resume(connection.name);
  await enqueueJobs(rt.queues, plan.jobs);
  const tracked = new Map<string, QueueName>(plan.jobs.map((j) => [j.id, j.queue]));
  const skipped = plan.skipped;
  const martsOf: MartsJobData[] = [...plan.companies];
  run.onQueued?.([...tracked.keys()]);

  const { workerConcurrency: concurrency, workerLockMs: lockDurationMs } = rt.config;
  const workers = { concurrency, lockDurationMs, queues: WORKED };
  // The marts' follow-ups need only Postgres: this process takes them even when it leaves the windows to other workers.
  const pool = startWorkers(rt, run.work === false ? { ...workers, queues: ['marts'] } : workers);
  // A job this process finished is read at once; those of other workers at the next poll.
  const wake = new Wake();
  for (const worker of pool?.workers ?? []) {
    worker.on('completed', () => wake.notify());
    worker.on('failed', () => wake.notify());
  }
  const zero = { succeeded: 0, failed: 0, inserted: 0, updated: 0, deleted: 0, requests: 0, durationMs: 0 };
  const failures: BackfillSummary['failures'] = [];
  const summary: BackfillSummary = {
    ...zero,
    total: tracked.size,
    skipped,
    interrupted: false,
    failures,
    martsCatchUpMs: 0,
  };
  /** Reads job states until every tracked job has finished (or the signal aborts). */
  const follow = async (): Promise<void> => {
    const open = new Map(tracked);
    const pollMs = run.pollMs ?? 500;
    let paused: string[] = [];
    const report = () =>
      run.reporter?.update({
        done: summary.succeeded + summary.failed,
        total: summary.total,
        failed: summary.failed,
        rows: summary.inserted + summary.updated + summary.deleted,
        requests: summary.requests,
        elapsedMs: Date.now() - started,
        ...(paused.length > 0 ? { paused } : {}),
      });
    report();
    while (open.size > 0) {
      // Only the queues this backfill still waits on matter.
      const waitedOn = new Set(open.values());
      paused = (await pauses.check()).filter((name) => waitedOn.has(name as QueueName));
      if (run.signal?.aborted) {
        summary.interrupted = true;
        return;
      }
      const byQueue = new Map<QueueName, string[]>();
      for (const [id, queueName] of open) {
        const ids = byQueue.get(queueName);
        if (ids) ids.push(id);
        else byQueue.set(queueName, [id]);
      }
      for (const [queueName, ids] of byQueue) {
        const queue = rt.queues.get(queueName);
        for (const [id, state] of await followedStates(rt.redis, queue, ids)) {
          if (state === 'pending') continue;
          open.delete(id);
          const job: Job | undefined = state === 'missing' ? undefined : await queue.getJob(id);
          if (state === 'completed' && job) {
            const r = job.returnvalue as SyncJobResult | null;
            summary.succeeded += 1;
            if (r) {
              for (const k of ['inserted', 'updated', 'deleted', 'requests'] as const) summary[k] += r[k];
              for (const f of r.followUps ?? []) {
                if (!tracked.has(f.id)) {
                  tracked.set(f.id, f.queue as QueueName);
                  open.set(f.id, f.queue as QueueName);
                  summary.total += 1;
                }
              }
            }
          } else {
            summary.failed += 1;
            if (summary.failures.length < MAX_FAILURES_LISTED) {
              const error = job?.failedReason ?? 'the job was removed from the queue before it finished';
              summary.failures.push({ id, error });
            }
          }
        }
      }
      report();
      if (open.size > 0) await wake.wait(pollMs);
    }
  };
  // A queue paused from the dashboard would hold every job without a word: say so.
  const pauses = watchPauses({ queues: QUEUES.map((n) => rt.queues.get(n)), logger: rt.logger });
  try {
    await follow();
    const windowsDone = Date.now();
    if (!summary.interrupted) {
      summary.interrupted = !(await waitForMarts(rt, martsOf, { wake, pollMs: run.pollMs ?? 500, ...run }));
      summary.martsCatchUpMs = Date.now() - windowsDone;
    }
    // The first query after a backfill is planned on real counts (docs/operations.md "Backfill").
    if (!summary.interrupted) {
      const analyzed = await analyzeWritten(rt.warehouse.pool, rt.warehouse.schema, AFTER_BACKFILL);
      rt.logger.info({ tables: analyzed.length }, 'statistics of the tables the backfill wrote refreshed');
    }
  } finally {
    await pool?.close(run.signal?.aborted ?? false);
    run.reporter?.stop();
  }
  summary.durationMs = Date.now() - started;
  return summary;
}

/**
 * Waits until no load of `companies` is pending for their marts; false when the signal
 * aborted first. The follow-ups still waiting out their delay start now: no window is left
 * to coalesce with.
 */
async function waitForMarts(
  rt: SyncRuntime,
  companies: readonly MartsJobData[],
  options: { wake: Wake; pollMs: number; signal?: AbortSignal },
): Promise<boolean> {
  const { pool, schema } = rt.warehouse;
  for (;;) {
    if (options.signal?.aborted) return false;
    const { rows } = await pool.query<{ company_cnpj: string }>(
      `SELECT DISTINCT company_cnpj FROM ${quoteIdent(schema)}.pending_changes WHERE company_cnpj = ANY($1)`,
      [companies.map((c) => c.company)],
    );
    if (rows.length === 0) return true;
    const pending = new Set(rows.map((r) => r.company_cnpj));
    for (const data of companies.filter((c) => pending.has(c.company)))
      await startMartsRefresh(rt.queues, data);
    await options.wake.wait(options.pollMs);
  }
}

/** Ends a wait between two polls early: when a job of this process has finished. */
class Wake {
  #notified = false;
  #wakeUp: (() => void) | undefined;

  notify(): void {
    this.#notified = true;
    this.#wakeUp?.();
  }

  /** Resolves after `ms`, or as soon as {@link Wake.notify} is called (at once if it was since the last wait). */
  async wait(ms: number): Promise<void> {
    if (!this.#notified) {
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        this.#wakeUp = resolve;
        timer = setTimeout(resolve, ms);
      });
      clearTimeout(timer);
      this.#wakeUp = undefined;
    }
    this.#notified = false;
  }
}
