/**
 * `/healthz`: are Redis and Postgres up and, for a worker, does each API connection work, each
 * check with a short deadline and the answer naming what is down and why (for a probe or a
 * person with curl). A connection paused after a 401 makes the worker `degraded` (200: a
 * restart would not help). The endpoint is open to whoever reaches the ops port, so a reason
 * is one line with no stack, URL credentials or known secret: drivers sometimes quote their
 * connection string, and Redis the password of a refused AUTH.
 */
import { scrubSecrets } from '../logger.js';
import type { ConnectionHealth } from '../connections/connection-pause.js';
import { withTimeout } from '../util/timeout.js';

/** Something that answers a Redis PING. */
export interface PingableRedis {
  ping(): Promise<string>;
}

/** Something that runs a SQL query (a pg Pool). */
export interface QueryableDb {
  query(sql: string): Promise<unknown>;
}

/** State of one dependency. */
export type CheckState = 'ok' | 'down';

/** Body of `/healthz`. */
export interface HealthReport {
  /** `ok` when every check is ok; `degraded` when only API connections are paused; `down` when a service is. */
  readonly status: CheckState | 'degraded';
  /** BullMQ's Redis. */
  readonly redis: CheckState;
  /** The warehouse. */
  readonly postgres: CheckState;
  /** Each API connection by name (workers only). */
  readonly connections?: Readonly<Record<string, ConnectionHealth>>;
  /** Why each failing check failed (absent when all are ok). */
  readonly errors?: Partial<Record<'redis' | 'postgres', string>>;
}

/** Inputs of {@link checkHealth}. */
export interface HealthTargets {
  /** Redis connection to PING. */
  readonly redis: PingableRedis;
  /** Warehouse pool to `select 1` on. */
  readonly db: QueryableDb;
  /** Deadline of each check in milliseconds (default 1500). */
  readonly timeoutMs?: number;
  /** Secrets to remove from reasons besides those registered with the logger (e.g. the Redis password). */
  readonly secrets?: readonly string[];
  /** States of the API connections (a worker's; read from Redis). */
  readonly connections?: () => Promise<Readonly<Record<string, ConnectionHealth>>>;
}

/** Longest reason shown for a failed check. */
const MAX_REASON_LENGTH = 200;

/** A reason fit for an open endpoint: one line, URL credentials masked, secrets replaced, length bounded. */
export function safeReason(message: string, secrets: readonly string[] = []): string {
  let text = (message.split('\n', 1)[0] ?? '').trim();
  // Up to the last "@" of the URL: a password may hold an unencoded "/" or "@".
  text = text.replace(/([a-z][a-z0-9+.-]*:\/\/)\S*@/gi, '$1***@');
  for (const s of secrets) if (s.length >= 4) text = text.split(s).join('[REDACTED]');
  text = scrubSecrets(text);
  return (text || 'failed').slice(0, MAX_REASON_LENGTH);
}

/** Checks Redis and Postgres in parallel. */
export async function checkHealth(targets: HealthTargets): Promise<HealthReport> {
  const timeoutMs = targets.timeoutMs ?? 1500;
  const secrets = targets.secrets ?? [];
  // The reason a check failed, or null.
  const probe = (what: string, work: () => Promise<unknown>): Promise<string | null> =>
    withTimeout(Promise.resolve().then(work), timeoutMs, what).then(
      () => null,
      (err: unknown) => safeReason((err as Error)?.message || String(err), secrets),
    );
  const [redisError, pgError] = await Promise.all([
    probe('Redis', () => targets.redis.ping()),
    probe('Postgres', () => targets.db.query('select 1')),
  ]);
  const errors: Partial<Record<'redis' | 'postgres', string>> = {};
  if (redisError !== null) errors.redis = redisError;
  if (pgError !== null) errors.postgres = pgError;
  const down = redisError !== null || pgError !== null;
  // With Redis down the connection states are unknown: the report says Redis is down.
  const connections =
    targets.connections && redisError === null
      ? await withTimeout(targets.connections(), timeoutMs, 'connection states').catch(() => undefined)
      : undefined;
  const degraded = Object.values(connections ?? {}).some((c) => c.state !== 'ok');
  return {
    status: down ? 'down' : degraded ? 'degraded' : 'ok',
    redis: redisError === null ? 'ok' : 'down',
    postgres: pgError === null ? 'ok' : 'down',
    ...(connections ? { connections } : {}),
    ...(down ? { errors } : {}),
  };
}
