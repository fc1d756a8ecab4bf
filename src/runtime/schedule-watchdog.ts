/**
 * Schedules that come back by themselves. Job schedulers live only in Redis, and a worker
 * registers them when it starts; after Redis loses its data (a restart without persistence,
 * a failover, an operator's FLUSHDB) no tick would fire again while the workers keep
 * running, silently. So every worker that registers schedules also checks, every
 * `SCHEDULE_CHECK_MS`, that each still exists, and registers the missing ones again
 * (upserting by id, so several workers doing it at once is harmless).
 */
import type { Queue } from 'bullmq';
import type { Logger } from '../logger.js';
import { upsertScheduler, type SchedulerSpec } from './schedules.js';

/** A running watchdog. */
export type ScheduleWatchdog = { stop(): void };

/** Starts the periodic check of `specs` on the `schedules` queue (see the file comment). */
export function startScheduleWatchdog(options: {
  readonly queue: Pick<Queue, 'getJobSchedulers' | 'upsertJobScheduler'>;
  readonly specs: readonly SchedulerSpec[];
  readonly intervalMs: number;
  readonly logger: Pick<Logger, 'warn' | 'error'>;
}): ScheduleWatchdog {
  const { queue, specs, logger } = options;
  let running: Promise<void> | undefined;
  const once = async (): Promise<void> => {
    const present = new Set((await queue.getJobSchedulers(0, -1)).map((s) => s.key));
    const missing = specs.filter((s) => !present.has(s.id));
    for (const s of missing) await upsertScheduler(queue as Queue, s);
    if (missing.length > 0) {
      logger.warn(
        { schedules: missing.map((s) => s.id) },
        'schedules missing from Redis (its data was lost?): registered again',
      );
    }
  };
  const timer = setInterval(() => {
    running ??= once()
      .catch((err: unknown) => logger.error({ err }, 'schedule check failed; trying again at the next one'))
      .finally(() => {
        running = undefined;
      });
  }, options.intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
