/**
 * Schedules that come back by themselves. Job schedulers live only in Redis, and a
 * worker registers them when it starts; after Redis loses its data (a restart without
 * persistence, a failover, an operator's FLUSHDB) no tick would ever fire again while
 * the workers keep running, silently. So every worker that registers schedules also
 * checks, every `SCHEDULE_CHECK_MS`, that each of them still exists, and registers the
 * missing ones again (upserting by id, so several workers doing it at once is harmless).
 */
import type { Queue } from 'bullmq';
import type { Logger } from '../logger.js';
import { upsertScheduler, type SchedulerSpec } from './schedules.js';

/** Options of {@link startScheduleWatchdog}. */
export interface ScheduleWatchdogOptions {
  /** The `schedules` queue. */
  readonly queue: Pick<Queue, 'getJobSchedulers' | 'upsertJobScheduler'>;
  /** The schedulers the configuration asks for. */
  readonly specs: readonly SchedulerSpec[];
  /** Check period, ms. */
  readonly intervalMs: number;
  /** Where a re-registration is logged. */
  readonly logger: Pick<Logger, 'warn' | 'error'>;
}

/** A running watchdog. */
export interface ScheduleWatchdog {
  /** One check now; resolves with the ids registered again. */
  check(): Promise<string[]>;
  /** Stops the timer. */
  stop(): void;
}

/** Starts the periodic check (see the file comment). */
export function startScheduleWatchdog(options: ScheduleWatchdogOptions): ScheduleWatchdog {
  const { queue, specs, logger } = options;
  let running: Promise<string[]> | undefined;
  const once = async (): Promise<string[]> => {
    const present = new Set((await queue.getJobSchedulers(0, -1)).map((s) => s.key));
    const missing = specs.filter((s) => !present.has(s.id));
    for (const s of missing) await upsertScheduler(queue as Queue, s);
    if (missing.length > 0) {
      logger.warn({ schedules: missing.map((s) => s.id) }, 'schedules missing from Redis (its data was lost?): registered again');
    }
    return missing.map((s) => s.id);
  };
  const check = (): Promise<string[]> => {
    running ??= once().finally(() => {
      running = undefined;
    });
    return running;
  };
  const timer = setInterval(() => {
    check().catch((err: unknown) => logger.error({ err }, 'schedule check failed; trying again at the next one'));
  }, options.intervalMs);
  timer.unref();
  return { check, stop: () => clearInterval(timer) };
}
