/**
 * A dedicated Redis connection for `/healthz`: it fails fast while Redis is down (no endless
 * offline queue) and reports the connection error, not ioredis' generic "max retries" text.
 */
import { Redis } from 'ioredis';
import type { PingableRedis } from './health.js';

/** A Redis connection that can be pinged and closed. */
export interface RedisProbe extends PingableRedis {
  /** Closes the connection. */
  close(): Promise<void>;
}

/** Opens a probe connection to `redisUrl` (it keeps reconnecting in the background). */
export function createRedisProbe(redisUrl: string): RedisProbe {
  let lastError: string | undefined;
  const client = new Redis(redisUrl, {
    // A queued PING fails at the first failed connection attempt instead of waiting.
    maxRetriesPerRequest: 0,
    connectTimeout: 1000,
    retryStrategy: (times) => Math.min(times * 200, 2000),
  });
  client.on('error', (err: Error) => {
    lastError = err.message || (err as NodeJS.ErrnoException).code || String(err);
  });
  client.on('ready', () => (lastError = undefined));
  return {
    async ping() {
      try {
        return await client.ping();
      } catch (err) {
        throw new Error(lastError ?? (err as Error).message, { cause: err });
      }
    },
    async close() {
      client.disconnect();
    },
  };
}
