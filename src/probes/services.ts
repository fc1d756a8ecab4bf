/**
 * src/probes/ — whether Redis, Postgres and the API connections answer, with a short
 * deadline: before a command works, and for `/healthz`.
 *
 * Redis and Postgres, which every command needs, are checked up front so a command that
 * cannot work says at once which one is missing and how to start it, instead of hanging.
 */
import pg from 'pg';
import { createRedisProbe } from './redis-probe.js';
import { withTimeout } from '../util/timeout.js';
import { redactUrl } from '../util/database-url.js';
import { PunchlineError } from '../util/errors.js';

/** A required service is not reachable; the message says what to start. */
export class ServiceUnavailableError extends PunchlineError<'service_unavailable'> {
  override readonly name = 'ServiceUnavailableError';
  constructor(
    readonly service: 'postgres' | 'redis',
    message: string,
    options?: { cause?: unknown },
  ) {
    super('service_unavailable', message, options);
  }
}

export { redactUrl };

/** How to start Redis, for error messages (the compose override docker-compose.host.yml publishes its Redis on 56379). */
export const START_REDIS_HINT =
  'start it with `redis-server --daemonize yes` (Debian: apt-get install redis-server), ' +
  'or `docker compose -f docker-compose.yml -f docker-compose.host.yml up -d redis` and set REDIS_URL=redis://localhost:56379, or set REDIS_URL';

/** How to start Postgres, for error messages (the compose override docker-compose.host.yml publishes its Postgres on 55432). */
export const START_POSTGRES_HINT =
  'start it with `pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start` (Debian: apt-get install postgresql), ' +
  'or `docker compose -f docker-compose.yml -f docker-compose.host.yml up -d postgres` and set DATABASE_URL=postgres://punchline:punchline-dev@localhost:55432/punchline, or set DATABASE_URL';

/** Postgres SQLSTATE for "database does not exist". */
export const PG_DATABASE_MISSING = '3D000';

/** Throws {@link ServiceUnavailableError} unless Redis at `redisUrl` answers PING within `timeoutMs`. */
export async function assertRedisReachable(redisUrl: string, timeoutMs = 3000): Promise<void> {
  const probe = createRedisProbe(redisUrl);
  try {
    await withTimeout(probe.ping(), timeoutMs, 'Redis');
  } catch (err) {
    throw new ServiceUnavailableError(
      'redis',
      `Redis is not reachable at ${redactUrl(redisUrl)} (${(err as Error).message}); ${START_REDIS_HINT}`,
      { cause: err },
    );
  } finally {
    await probe.close();
  }
}

/**
 * Throws {@link ServiceUnavailableError} unless Postgres at `databaseUrl` accepts a connection
 * within `timeoutMs`; a missing database has {@link PG_DATABASE_MISSING} on the cause, for the demo.
 */
export async function assertPostgresReachable(databaseUrl: string, timeoutMs = 3000): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: timeoutMs });
  client.on('error', () => undefined);
  try {
    await withTimeout(
      client.connect().then(() => client.query('select 1')),
      timeoutMs + 500,
      'Postgres',
    );
  } catch (err) {
    const e = err as Error & { code?: string };
    const where = redactUrl(databaseUrl);
    const db = e.code === PG_DATABASE_MISSING ? new URL(databaseUrl).pathname.slice(1) : undefined;
    throw new ServiceUnavailableError(
      'postgres',
      db === undefined
        ? `Postgres is not reachable at ${where} (${e.message}); ${START_POSTGRES_HINT}`
        : `Postgres at ${where} has no database "${db}" (create it with \`createdb ${db}\`)`,
      { cause: err },
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}
