/**
 * `/healthz`: is Redis up, is Postgres up. Each check has a short deadline and the
 * answer names what is down and why, so an orchestrator's probe and a person with curl
 * both learn which service to look at.
 */
import { withTimeout } from './timeout.js';

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
  /** `ok` only when every check is ok. */
  readonly status: CheckState;
  /** BullMQ's Redis. */
  readonly redis: CheckState;
  /** The warehouse. */
  readonly postgres: CheckState;
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
}

async function probe(work: () => Promise<unknown>, timeoutMs: number, what: string): Promise<string | null> {
  try {
    await withTimeout(Promise.resolve().then(work), timeoutMs, what);
    return null;
  } catch (err) {
    return (err as Error).message || String(err);
  }
}

/** Checks Redis and Postgres in parallel. */
export async function checkHealth(targets: HealthTargets): Promise<HealthReport> {
  const timeoutMs = targets.timeoutMs ?? 1500;
  const [redisError, pgError] = await Promise.all([
    probe(() => targets.redis.ping(), timeoutMs, 'Redis'),
    probe(() => targets.db.query('select 1'), timeoutMs, 'Postgres'),
  ]);
  const errors: Partial<Record<'redis' | 'postgres', string>> = {};
  if (redisError !== null) errors.redis = redisError;
  if (pgError !== null) errors.postgres = pgError;
  const down = redisError !== null || pgError !== null;
  return {
    status: down ? 'down' : 'ok',
    redis: redisError === null ? 'ok' : 'down',
    postgres: pgError === null ? 'ok' : 'down',
    ...(down ? { errors } : {}),
  };
}
