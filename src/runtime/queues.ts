/**
 * The BullMQ queues of the sync and their default job options. `sync` holds the window and
 * directory jobs, `followups` the per-item fetches found by a window (absence attachments, audit
 * photos) so thousands of small jobs never hold back the windows, `schedules` the planning jobs
 * fired by the incremental job schedulers, and `marts` each company's follow-up that brings its marts
 * up to date after its loads (marts-job.ts).
 */
import { Queue, type DefaultJobOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { QUEUE_NAMES, type QueueName } from '../plan/resources.js';
import { isConnectionError } from './redis.js';

/**
 * Default options of every sync job: 5 attempts for transient errors (permanent ones fail at once)
 * with exponential backoff and jitter; finished jobs kept for a while so the dashboard shows them
 * (one is replaced when its window is queued again, see enqueue.ts).
 */
const DEFAULT_JOB_OPTIONS: DefaultJobOptions = Object.freeze({
  attempts: 5,
  backoff: { type: 'exponential', delay: 2_000, jitter: 0.5 },
  removeOnComplete: { age: 24 * 3600, count: 20_000 },
  removeOnFail: { age: 14 * 24 * 3600, count: 20_000 },
});

/** The open queues of one deployment (one `QUEUE_PREFIX`), by name; `all` in {@link QUEUE_NAMES} order. */
export interface SyncQueues extends Readonly<Record<QueueName, Queue>> {
  readonly all: readonly Queue[];
  get(name: QueueName): Queue;
  close(): Promise<void>;
}

/**
 * Opens every queue of `config.queuePrefix` on `connection`, whose owner reports its errors
 * (redis.ts). A queue passes its connection's errors on as its own `error` event, and BullMQ
 * prints an `error` nobody listens to on stderr, stack and all: each queue listens, leaves a
 * lost connection to the connection's owner, and logs anything else.
 */
export function openQueues(
  config: Pick<Config, 'queuePrefix'>,
  connection: Redis,
  logger?: Pick<Logger, 'error'>,
): SyncQueues {
  const make = (name: QueueName) => {
    const queue = new Queue(name, {
      connection,
      prefix: config.queuePrefix,
      defaultJobOptions: DEFAULT_JOB_OPTIONS,
    });
    queue.on('error', (err) => {
      if (!isConnectionError(err)) logger?.error({ queue: name, err }, 'queue error');
    });
    return queue;
  };
  const byName = {
    sync: make('sync'),
    followups: make('followups'),
    schedules: make('schedules'),
    marts: make('marts'),
  };
  return {
    ...byName,
    all: QUEUE_NAMES.map((n) => byName[n]),
    get: (name) => byName[name],
    async close() {
      await Promise.all(QUEUE_NAMES.map((n) => byName[n].close()));
    },
  };
}
