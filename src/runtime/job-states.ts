/**
 * Where many jobs stand, in one Redis round trip: a backfill follows thousands of jobs, and asking
 * BullMQ for each job's state separately would cost one script call per job per poll. A finished
 * job sits in the queue's `completed` or `failed` sorted set; a job whose hash is gone was removed.
 */
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';

/** A followed job's standing. */
export type FollowedState = 'completed' | 'failed' | 'pending' | 'missing';

/** The state of each of `ids` in `queue`. */
export async function followedStates(
  redis: Redis,
  queue: Queue,
  ids: readonly string[],
): Promise<Map<string, FollowedState>> {
  const out = new Map<string, FollowedState>();
  if (ids.length === 0) return out;
  const pipeline = redis.pipeline();
  for (const id of ids) {
    pipeline.zscore(queue.keys.completed!, id);
    pipeline.zscore(queue.keys.failed!, id);
    pipeline.exists(queue.toKey(id));
  }
  const replies = (await pipeline.exec()) ?? [];
  ids.forEach((id, i) => {
    const [completed, failed, exists] = replies.slice(i * 3, i * 3 + 3).map((r) => {
      if (r[0]) throw r[0];
      return r[1];
    });
    out.set(
      id,
      completed !== null ? 'completed' : failed !== null ? 'failed' : exists === 1 ? 'pending' : 'missing',
    );
  });
  return out;
}
