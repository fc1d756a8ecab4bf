/**
 * Paused queues. A BullMQ queue paused from the dashboard (or by a script) starts no job
 * of any worker until it is resumed, and nothing else says so: a backfill waits at
 * "0/4 windows" and a worker idles. Whoever waits on a queue asks here, and says it.
 */
import type { Queue } from 'bullmq';
import type { Logger } from '../logger.js';

/** How an operator resumes a paused queue. */
const HOW_TO_RESUME = 'the Resume button of the dashboard, signed in with OPS_DASHBOARD_TOKEN';

/** The names of the queues among `queues` that are paused, in the order given. */
async function pausedQueues(queues: readonly Pick<Queue, 'name' | 'isPaused'>[]): Promise<string[]> {
  const paused = await Promise.all(queues.map((q) => q.isPaused()));
  return queues.filter((_, i) => paused[i]).map((q) => q.name);
}

/** One line telling that `names` are paused and how to resume them (pure). */
export function pausedQueueNote(names: readonly string[]): string {
  const list = names.map((n) => `"${n}"`).join(', ');
  return names.length === 1
    ? `queue ${list} is paused: none of its jobs starts until it is resumed (${HOW_TO_RESUME})`
    : `queues ${list} are paused: none of their jobs starts until they are resumed (${HOW_TO_RESUME})`;
}

/** Options of {@link watchPauses}. */
export interface PauseWatchOptions {
  /** The queues this process waits on. */
  readonly queues: readonly Pick<Queue, 'name' | 'isPaused'>[];
  /** Where a pause and its end are told. */
  readonly logger: Pick<Logger, 'warn' | 'info' | 'error'>;
  /** Check period in ms, from now on; without it the caller checks when it likes. */
  readonly intervalMs?: number;
}

/** A pause watch. */
export interface PauseWatch {
  /** One check now; resolves with the names of the paused queues. */
  check(): Promise<string[]>;
  /** Stops the timer. */
  stop(): void;
}

/**
 * Watches the queues for pauses: each check logs a queue newly found paused as a
 * warning (once per pause) and one resumed since as information. With `intervalMs`,
 * checks at once and then periodically.
 */
export function watchPauses(options: PauseWatchOptions): PauseWatch {
  const { queues, logger } = options;
  let known = new Set<string>();
  let running: Promise<string[]> | undefined;
  const once = async (): Promise<string[]> => {
    const paused = await pausedQueues(queues);
    const started = paused.filter((n) => !known.has(n));
    const ended = [...known].filter((n) => !paused.includes(n));
    if (started.length > 0) logger.warn({ queues: started }, pausedQueueNote(started));
    if (ended.length > 0) logger.info({ queues: ended }, 'queue resumed: its jobs start again');
    known = new Set(paused);
    return paused;
  };
  const check = (): Promise<string[]> => {
    running ??= once().finally(() => {
      running = undefined;
    });
    return running;
  };
  if (options.intervalMs === undefined) return { check, stop: () => undefined };
  const tick = () =>
    void check().catch((err: unknown) =>
      logger.error({ err }, 'could not read whether the queues are paused'),
    );
  tick();
  const timer = setInterval(tick, options.intervalMs);
  timer.unref();
  return { check, stop: () => clearInterval(timer) };
}
