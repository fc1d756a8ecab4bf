/**
 * Makes real BullMQ jobs fail, for tests of what `punchline status` and its page report:
 * a worker whose processor throws the way a sync job's does takes the queue's jobs until
 * `n` of them have failed once each.
 */
import { Worker, type Queue } from 'bullmq';
import type { Redis } from 'ioredis';

/** Runs a throwing processor over `queue` (of BullMQ prefix `prefix`) until `n` jobs have failed once each. */
export async function failJobs(redis: Redis, queue: Queue, prefix: string, n: number): Promise<void> {
  const connection = redis.duplicate({ maxRetriesPerRequest: null });
  let failures = 0;
  let done!: () => void;
  const all = new Promise<void>((r) => (done = r));
  const worker = new Worker(
    queue.name,
    async (job) => {
      throw new Error(
        `ServerError: the API answered 500 for ${String((job.data as { resource?: unknown }).resource)}`,
      );
    },
    { connection, prefix },
  );
  worker.on('failed', () => {
    if (++failures === n) done();
  });
  await all;
  await worker.close();
  connection.disconnect();
}
