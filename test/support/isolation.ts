/**
 * Per-file isolation for integration tests: a unique warehouse schema and queue prefix,
 * connection settings for the run's Postgres database and Redis, and a helpful failure
 * when a service went away.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { Redis } from 'ioredis';
import { inject } from 'vitest';

/**
 * Postgres database of this test run: created (and dropped at the end) by
 * global-setup.ts, or TEST_DATABASE_URL when set. Subprocesses get it as DATABASE_URL.
 */
export const TEST_DATABASE_URL = inject('testDatabaseUrl');
/** Redis used by the tests (TEST_REDIS_URL, default the local one). */
export const TEST_REDIS_URL = inject('testRedisUrl');

/** A unique lower-case name for this test file's schema or queue prefix. */
export function uniqueName(prefix: string): string {
  return `${prefix}_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
}

/** Connects to the test Postgres, or fails saying what to start. */
export async function connectPostgres(): Promise<pg.Pool> {
  const pool = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 4 });
  try {
    await pool.query('select 1');
  } catch (err) {
    await pool.end();
    throw new Error(
      `Postgres is not reachable at ${TEST_DATABASE_URL} (${(err as Error).message}); start it with ` +
        '`pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start`',
      { cause: err },
    );
  }
  return pool;
}

/** Connects to the test Redis, or fails saying what to start. */
export async function connectRedis(): Promise<Redis> {
  const redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1, lazyConnect: true });
  try {
    await redis.connect();
    await redis.ping();
  } catch (err) {
    redis.disconnect();
    throw new Error(
      `Redis is not reachable at ${TEST_REDIS_URL} (${(err as Error).message}); start it with ` +
        '`redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no`',
      { cause: err },
    );
  }
  return redis;
}

/** Drops a test schema and everything in it, with the analyst schema migrate made beside it. */
export async function dropSchema(pool: pg.Pool, schema: string): Promise<void> {
  await pool.query(`drop schema if exists "${schema}_analyst" cascade`);
  await pool.query(`drop schema if exists "${schema}" cascade`);
}

/** Deletes every Redis key under a BullMQ prefix. */
export async function dropQueuePrefix(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
}
