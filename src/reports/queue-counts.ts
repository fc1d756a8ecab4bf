/**
 * The job states we report, in display order. BullMQ 6 has no `paused` state: the jobs of a
 * paused queue stay `waiting` (the queue itself reports the pause, src/runtime/queue-pauses.ts).
 */
export const QUEUE_STATES = [
  'waiting',
  'active',
  'delayed',
  'prioritized',
  'waiting-children',
  'failed',
  'completed',
] as const;
/** One of {@link QUEUE_STATES}. */
export type QueueState = (typeof QUEUE_STATES)[number];

/** The subset of a BullMQ Queue that counting needs. */
export interface CountableQueue {
  /** Queue name (without the prefix). */
  readonly name: string;
  getJobCounts(...types: QueueState[]): Promise<Record<string, number>>;
}

/** Counts of one queue: its jobs per state (0 when none). */
export type QueueCounts = { readonly queue: string; readonly counts: Readonly<Record<QueueState, number>> };

/** Reads the counts of every queue, in the order given, when asked: right whichever process ran the jobs. */
export async function readQueueCounts(queues: readonly CountableQueue[]): Promise<QueueCounts[]> {
  return Promise.all(
    queues.map(async (q) => {
      const raw = await q.getJobCounts(...QUEUE_STATES);
      const counts = Object.fromEntries(QUEUE_STATES.map((s) => [s, raw[s] ?? 0])) as Record<
        QueueState,
        number
      >;
      return { queue: q.name, counts };
    }),
  );
}

/** The subset of a BullMQ Queue that reading the oldest waiting job needs. */
export interface WaitingQueue {
  readonly name: string;
  /** Oldest first. */
  getWaiting(
    start?: number,
    end?: number,
  ): Promise<readonly ({ timestamp: number; delay?: number } | undefined)[]>;
}

/**
 * Seconds the oldest waiting job of each queue has waited, 0 for an empty queue: how far
 * behind the workers are, which a depth alone does not say. A delayed job counts from
 * the end of its delay (schedule ticks are queued ahead of time).
 */
export async function readOldestWaiting(queues: readonly WaitingQueue[], now: Date) {
  return Promise.all(
    queues.map(async (q) => {
      const [oldest] = await q.getWaiting(0, 0);
      const since = oldest ? oldest.timestamp + (oldest.delay ?? 0) : now.getTime();
      return { queue: q.name, seconds: Math.max(0, (now.getTime() - since) / 1000) };
    }),
  );
}
