/**
 * Runs one sync job around its processor: validates the data, records the run in
 * `sync_runs`, counts requests and rows, records a settled window as done, queues the
 * company's marts follow-up (which also runs the checks after the load: marts-job.ts), and
 * maps failures for BullMQ:
 * - 429 not waited out, and 401 → rethrown: job-guard.ts puts the job back to wait
 *   without using an attempt (a 401 pauses the connection until its token works again);
 * - 404 `company_not_found` → a new group walk is queued, the job fails;
 * - other permanent errors (4xx, invalid response, company mismatch) → UnrecoverableError;
 * - transient errors → rethrown, so BullMQ retries with backoff.
 */
import { UnrecoverableError, type Job } from 'bullmq';
import { apiErrorHas, isApiError, isPermanent } from '../api/errors.js';
import { companyTimezone } from '../config.js';
import { scrubPersonal, scrubSecrets, withoutPersonalData } from '../logger.js';
import { recordJob, recordRowsLoaded, recordSyncSuccess } from '../telemetry/metrics.js';
import { MARTS_DELAY_MS, queueMartsRefresh } from './marts-job.js';
import { todayIn } from '../util/time.js';
import { enqueueJobs } from './enqueue.js';
import { InvalidJobError, PermanentSyncError, SuspiciousAnswerError } from '../load/errors.js';
import type { CallOptions } from '../api/client.js';
import type { JobContext } from './job-context.js';
import { syncJobData, type SyncJobData, type SyncJobResult } from '../plan/job-data.js';
import { jobIdFor } from '../plan/job-ids.js';
import { jobLogger } from './job-log.js';
import { planJobs } from '../plan/planner.js';
import { GROUP_WALK, isWindowed } from '../plan/resources.js';
import { finishRun, recordWindow, startRun } from './run-records.js';
import type { SyncRuntime } from './runtime.js';
import { isSettled, windowDays, type DateWindow } from '../plan/windows.js';

/** Attempts per call on multi-day windows: a window that keeps failing is split or retried as a job instead. */
const WINDOW_CALL_ATTEMPTS = 3;

/** An error as one line for `sync_runs.error`, tokens and anything shaped like a CPF scrubbed. */
function oneLine(err: unknown): string {
  const text = (err instanceof Error ? withoutPersonalData(err).message : String(err))
    .replace(/\s+/g, ' ')
    .trim();
  return scrubPersonal(scrubSecrets(text)).slice(0, 2000);
}

/** Runs `job` (sync or follow-up queue) and returns its result for `backfill`; `now` replaces the runtime's clock. */
export async function runSyncJob(
  rt: SyncRuntime,
  job: Job,
  options: { signal?: AbortSignal; now?: () => Date } = {},
): Promise<SyncJobResult> {
  const started = Date.now();
  const queueName = job.queueName;
  const parsed = syncJobData.safeParse(job.data);
  if (!parsed.success) {
    // A foreign or corrupted job fails permanently.
    const issue = parsed.error.issues[0]!;
    throw new InvalidJobError(`${issue.path.join('.') || '(data)'}: ${issue.message}`);
  }
  const data = parsed.data;
  const { connection, api } = rt.client(data.connection);
  // spec 1.2: the company's date-times are in its local time (COMPANY_TIMEZONES).
  const zone = companyTimezone(connection, data.company);
  const { pool, schema } = rt.warehouse;
  const logger = jobLogger(rt.logger, job);
  const now = options.now ?? rt.now;
  const window: DateWindow | undefined = data.from && data.to ? { from: data.from, to: data.to } : undefined;
  if (isWindowed(data.resource) && (!window || !data.company)) {
    throw new InvalidJobError(`${data.resource} needs a company and a window`);
  }

  const totals = { inserted: 0, updated: 0, deleted: 0, rejected: 0, emptied: false };
  const followUps: SyncJobResult['followUps'] = [];
  const attempt = job.attemptsMade + 1;
  const runId = await startRun(pool, schema, { ...data, jobId: job.id ?? jobIdFor(data), attempt });

  // The connection's client is shared by the jobs of the process: each call tells this run of its attempts.
  const counters = { requests: 0 };
  const call = (w?: DateWindow, signal: AbortSignal | undefined = options.signal): CallOptions => ({
    onAttempt: () => void (counters.requests += 1),
    ...(signal ? { signal } : {}),
    ...(w && windowDays(w) > 1
      ? { maxAttempts: Math.min(WINDOW_CALL_ATTEMPTS, rt.config.apiMaxAttempts) }
      : {}),
  });
  const { storeBinaries, pseudonymKey } = rt.config;
  const callsAtOnce = Math.max(1, connection.rateLimit.concurrency);
  const ctx: JobContext = {
    data,
    runId,
    connection,
    engine: {
      api,
      pool,
      schema,
      logger,
      callsAtOnce,
      call,
      storeBinaries,
      pseudonymKey,
      now,
      memory: rt.memory,
    },
    signal: options.signal,
    scope: data.scoped && data.company ? { companyNationalRegistry: data.company } : undefined,
    window: isWindowed(data.resource) ? window : undefined,
    timezone: zone,
    count: (tables, rejected = 0) => {
      totals.rejected += rejected;
      for (const [table, s] of Object.entries(tables)) {
        if (s.received === 0 && s.deleted > 0) totals.emptied = true;
        for (const action of ['inserted', 'updated', 'deleted'] as const) {
          totals[action] += s[action];
          recordRowsLoaded({ table, action, count: s[action] });
        }
      }
    },
    // Windowed jobs, the only ones with follow-ups, were checked above to name a company.
    queueFollowUp: async (resource, w) => {
      const plan = planJobs({
        connection: data.connection,
        companies: [data.company!],
        scoped: data.scoped ?? false,
        items: [{ resource, window: w }],
        followUps: [],
        force: data.force ?? false,
        origin: 'followup',
      });
      await enqueueJobs(rt.queues, plan.jobs);
      followUps.push(...plan.jobs.map((j) => ({ queue: j.queue, id: j.id })));
    },
  };

  try {
    await rt.processors.sync(ctx);
  } catch (err) {
    const durationMs = Date.now() - started;
    const mapped = await classify(rt, data, err);
    // The next attempt applies these removals only if its answer agrees (src/load/load-resource.ts).
    if (err instanceof SuspiciousAnswerError)
      await job.updateData({ ...(job.data as object), seenRemovals: err.refused }).catch(() => undefined);
    const [requests, error] = [counters.requests, oneLine(mapped)];
    await finishRun(pool, schema, runId, { status: 'failed', requests, ...totals, durationMs, error }).catch(
      (e: unknown) => logger.error({ err: e }, 'could not record the failed run'),
    );
    recordJob({ queue: queueName, state: 'failed', durationMs });
    throw mapped;
  }

  const durationMs = Date.now() - started;
  await finishRun(pool, schema, runId, {
    status: 'succeeded',
    requests: counters.requests,
    ...totals,
    durationMs,
  });
  let recorded = false;
  // A window whose answer emptied a table is not taken as done: a later backfill reads it
  // again, in case the source only looked empty.
  if (
    window &&
    data.company &&
    !totals.emptied &&
    isSettled(window, todayIn(zone, now()), rt.config.syncLookbackDays)
  ) {
    await recordWindow(pool, schema, { ...data, company: data.company, ...window, runId });
    recorded = true;
  }
  // The load recorded what the marts must take in; its company's follow-up rewrites them and runs the checks.
  if (data.company) {
    const delay = data.origin === 'backfill' ? MARTS_DELAY_MS.backfill : MARTS_DELAY_MS.window;
    await queueMartsRefresh(rt.queues, { connection: data.connection, company: data.company }, delay);
  }
  recordJob({ queue: queueName, state: 'completed', durationMs });
  recordSyncSuccess({ company: data.company ?? 'group', resource: data.resource, at: now() });
  return {
    requests: counters.requests,
    inserted: totals.inserted,
    updated: totals.updated,
    deleted: totals.deleted,
    followUps,
    recorded,
  };
}

/** Maps a processor failure onto what BullMQ should do (see the file comment). */
async function classify(rt: SyncRuntime, data: SyncJobData, err: unknown): Promise<Error> {
  // Handled by job-guard.ts: the job waits, delayed, without using an attempt.
  if (isApiError(err, 'rate_limited') || apiErrorHas(err, 'pauses')) return err;
  if (isApiError(err, 'company_not_found')) {
    // spec 1.4: the company left the group; walk it again so plans stop asking for it.
    const walk = planJobs({
      connection: data.connection,
      companies: [],
      scoped: false,
      items: [{ resource: GROUP_WALK }],
      followUps: [],
      force: false,
      origin: 'walk',
    });
    await enqueueJobs(rt.queues, walk.jobs).catch(() => undefined);
    return new PermanentSyncError('company_not_found', `${oneLine(err)}; a new group walk was queued`, {
      cause: err,
    });
  }
  if (err instanceof UnrecoverableError) return err;
  if (isApiError(err) && isPermanent(err))
    return new PermanentSyncError(err.code, oneLine(err), { cause: err });
  return err instanceof Error ? err : new Error(String(err));
}
