/**
 * Redis connections of the sync: BullMQ needs `maxRetriesPerRequest: null` on every
 * connection it blocks on, and the request budget uses a plain one.
 */
import { Redis } from 'ioredis';

/** Opens an ioredis connection to `url` suitable for BullMQ queues and workers. */
export function createRedis(url: string, name = 'punchline'): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true, connectionName: name });
}
