/**
 * BullMQ workers of one process: the `sync` and `followups` queues run sync jobs
 * (run-job.ts), the `schedules` queue runs schedule ticks, the `marts` queue the marts'
 * follow-ups (marts-job.ts). Each worker has its own
 * Redis connection. No BullMQ limiter: a 429 delays only that connection's jobs
 * (job-guard.ts), and the request budget is src/connections/request-budget.ts.
 */
import { UnrecoverableError, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { withoutPersonalData } from '../logger.js';
import type { QueueName } from '../plan/resources.js';
import { createRedis, isConnectionError } from './redis.js';
import { guardJob } from './job-guard.js';
import { jobLogger } from './job-log.js';
import { runSyncJob } from './run-job.js';
import { runMartsJob } from './marts-job.js';
import { traceJob } from './job-span.js';
import { startConnectionRecheck } from './token-recheck.js';
import type { SyncRuntime } from './runtime.js';

/** Running workers. */
export interface WorkerPool {
  readonly workers: readonly Worker[];
  /** Stops taking jobs and waits for the active ones (`force` abandons them to the stalled check). */
  close(force?: boolean): Promise<void>;
}

/**
 * Starts the workers of this process: `concurrency` jobs at once per queue (WORKER_CONCURRENCY), on
 * `queues` (default all); a worker that dies loses its jobs after `lockDurationMs` (retried elsewhere).
 */
export function startWorkers(
  rt: SyncRuntime,
  options: { concurrency: number; lockDurationMs?: number; queues?: readonly QueueName[] },
): WorkerPool {
  const { config, logger } = rt;
  const names = options.queues ?? (['sync', 'followups', 'schedules', 'marts'] as const);
  const lockDuration = options.lockDurationMs ?? 30_000;
  const connections: Redis[] = [];
  const workers = names.map((name) => {
    const connection = createRedis(config.redisUrl, `punchline-worker-${name}`, logger);
    connections.push(connection);
    const processor = async (job: Job, token?: string, signal?: AbortSignal) => {
      // A follow-up of the marts calls no API: no connection pause or rate limit holds it.
      if (name === 'marts') return traceJob(job, () => runMartsJob(rt, job));
      const schedule = name === 'schedules';
      const run = schedule
        ? () => rt.processors.schedule(rt, job.data, { logger: jobLogger(logger, job) })
        : () => runSyncJob(rt, job, { signal });
      // job-guard.ts puts a job back to wait on a paused connection, a long Retry-After or a
      // warehouse outage; each job is a span when tracing is on (job-span.ts).
      try {
        return await traceJob(job, () => guardJob(rt, job, token, run, { skipWhenPaused: schedule }));
      } catch (err) {
        // BullMQ keeps a failure's message and stack in Redis for 14 days: never with personal data.
        throw err instanceof Error ? withoutPersonalData(err) : err;
      }
    };
    const worker = new Worker(name, processor, {
      connection,
      prefix: config.queuePrefix,
      concurrency: concurrencyOf(name, options.concurrency),
      lockDuration,
      stalledInterval: lockDuration,
      maxStalledCount: 3,
      autorun: true,
    });
    worker.on('failed', (job, err) => {
      const final =
        err instanceof UnrecoverableError ||
        (job !== undefined && job.attemptsMade >= (job.opts.attempts ?? 1));
      (job ? jobLogger(logger, job) : logger.child({ queue: name }))[final ? 'error' : 'warn'](
        { attempt: job?.attemptsMade, err },
        final ? 'job failed' : 'job attempt failed',
      );
      if (final) rt.events.jobFailedForGood(name, job, err);
    });
    // A lost connection is reported by the connection itself (redis.ts); other errors are the worker's.
    worker.on('error', (err) => {
      if (isConnectionError(err)) return;
      logger.error({ queue: name, err }, 'worker error');
    });
    return worker;
  });
  const recheck = startConnectionRecheck(rt);
  return {
    workers,
    async close(force = false) {
      recheck.stop();
      await Promise.all(workers.map((w) => w.close(force)));
      await Promise.all(connections.map((c) => c.quit().catch(() => c.disconnect())));
    },
  };
}

/** Jobs at once of a queue's worker: one schedule tick; the marts' follow-ups on at most two cores, beside the loads. */
function concurrencyOf(name: QueueName, concurrency: number): number {
  if (name === 'schedules') return 1;
  return name === 'marts' ? Math.min(2, concurrency) : concurrency;
}
