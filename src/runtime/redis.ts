/**
 * Redis connections of the sync: BullMQ needs `maxRetriesPerRequest: null` on every
 * connection it blocks on, and the request budget uses a plain one. Every connection
 * reports its errors through the process logger (secrets scrubbed, one line per outage
 * rather than one per reconnect attempt): without a listener ioredis prints them to the
 * console itself, past the logger, and BullMQ drops those of its queues without a word.
 */
import { Redis } from 'ioredis';
import type { Logger } from '../logger.js';

/** How often an outage that goes on is logged again, per connection. */
const REPEAT_MS = 30_000;

/** Node's codes for a connection that could not be made or was dropped. */
export const NETWORK_CODES: ReadonlySet<string> = new Set(
  'ECONNREFUSED ECONNRESET ETIMEDOUT EPIPE ENOTFOUND EHOSTUNREACH ENETUNREACH EAI_AGAIN'.split(' '),
);

/** True when `err` only says that the connection to Redis is down (its connection reports it). */
export function isConnectionError(err: unknown): boolean {
  const e = err as NodeJS.ErrnoException;
  return (
    (e?.code !== undefined && NETWORK_CODES.has(e.code)) || /^Connection is closed\.?$/.test(e?.message ?? '')
  );
}

/**
 * Opens an ioredis connection to `url` suitable for BullMQ queues and workers. The first
 * error of an outage is logged at once, then at most one line every 30 s with the count
 * since; the `ready` event logs the end of the outage.
 */
export function createRedis(url: string, name: string, logger: Pick<Logger, 'warn' | 'info'>): Redis {
  const redis = new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true, connectionName: name });
  let since: number | undefined;
  let lastLogged = 0;
  let unlogged = 0;
  redis.on('error', (err: unknown) => {
    const t = Date.now();
    since ??= t;
    if (lastLogged !== 0 && t - lastLogged < REPEAT_MS) {
      unlogged += 1;
      return;
    }
    logger.warn(
      { connection: name, err, ...(unlogged > 0 ? { repeated: unlogged } : {}) },
      'Redis connection error (reconnecting)',
    );
    lastLogged = t;
    unlogged = 0;
  });
  redis.on('ready', () => {
    if (since === undefined) return;
    logger.info({ connection: name, downMs: Date.now() - since }, 'Redis connection restored');
    since = undefined;
    lastLogged = 0;
    unlogged = 0;
  });
  return redis;
}
