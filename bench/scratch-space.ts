/**
 * The run's own corner of Postgres and Redis: a database of its own (unless DATABASE_URL
 * names one), in it a fresh warehouse schema (migrated the way `punchline migrate` does)
 * and a staging schema for the sink floor, and a BullMQ prefix, all named uniquely and
 * dropped at the end; plus the few reads the report needs from the warehouse (rows per
 * table, job-time per resource).
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';
import { migrate } from '../src/migrations/migrate.js';
import { LOCAL_POSTGRES_URL, createScratchDatabase } from '../src/warehouse/scratch-database.js';
import { redactUrl } from '../src/util/database-url.js';

/** Names of one run's schemas and queue prefix. */
export interface ScratchNames {
  /** Warehouse schema (WAREHOUSE_SCHEMA). */
  readonly schema: string;
  /** Staging schema of the sink floor. */
  readonly stageSchema: string;
  /** BullMQ prefix (QUEUE_PREFIX), which also holds the request budget's keys. */
  readonly queuePrefix: string;
}

/** Unique names for one backfill of one size at one concurrency. */
export function scratchNames(size: number, concurrency: number): ScratchNames {
  const id = randomUUID().replace(/-/g, '').slice(0, 10);
  const base = `bench_${size}_c${concurrency}_${id}`;
  return { schema: base, stageSchema: `${base}_copy`, queuePrefix: base };
}

/** The database a run works in, and how to let go of it. */
export interface BenchDatabase {
  /** Connection string. */
  readonly url: string;
  /** What the run says about it, e.g. `punchline_bench_4711_0a1b2c3d (created for this run, dropped at the end)`. */
  readonly description: string;
  /** Drops the database when the run created it; leaves a given one alone. */
  release(): Promise<void>;
}

/** `databaseUrl` when given, else a new database of this run's own on the local server. */
export async function openBenchDatabase(databaseUrl: string | undefined): Promise<BenchDatabase> {
  if (databaseUrl)
    return {
      url: databaseUrl,
      description: `${redactUrl(databaseUrl)} (DATABASE_URL)`,
      release: async () => undefined,
    };
  const db = await createScratchDatabase(LOCAL_POSTGRES_URL, 'bench').catch((err: Error) => {
    throw new Error(`${err.message}; start Postgres or set DATABASE_URL to an existing database`);
  });
  return {
    url: db.url,
    description: `${db.name} (created for this run, dropped at the end)`,
    release: () => db.drop(),
  };
}

/** Opens a pool, or fails saying what to start. */
export async function connectWarehouse(databaseUrl: string): Promise<pg.Pool> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2, application_name: 'punchline-bench' });
  try {
    await pool.query('select 1');
  } catch (err) {
    await pool.end();
    throw new Error(
      `Postgres is not reachable at ${databaseUrl} (${(err as Error).message}); start it or set DATABASE_URL`,
      { cause: err },
    );
  }
  return pool;
}

/** Connects to Redis, or fails saying what to start. */
export async function connectRedis(redisUrl: string): Promise<Redis> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1, lazyConnect: true });
  // Connection errors are reported below, in one line; ioredis would print them with a stack.
  let last: Error | undefined;
  redis.on('error', (err: Error) => (last = err));
  try {
    await redis.connect();
    await redis.ping();
  } catch (err) {
    redis.disconnect();
    throw new Error(
      `Redis is not reachable at ${redactUrl(redisUrl)} (${(last ?? (err as Error)).message}); start it or set REDIS_URL`,
      { cause: err },
    );
  }
  return redis;
}

/** Creates and migrates the warehouse schema. */
export async function createWarehouseSchema(databaseUrl: string, schema: string): Promise<void> {
  await migrate(databaseUrl, schema);
}

/**
 * Turns autovacuum off on the tables of `schema` once its backfill is over, so vacuuming
 * and analysing its rows never lands in the Postgres CPU of a later stage (the next
 * backfill, the sink floors); an autovacuum already at work on them is cancelled.
 */
export async function stopAutovacuum(pool: pg.Pool, schema: string): Promise<void> {
  const { rows } = await pool.query<{ table_name: string }>(
    `select table_name from information_schema.tables where table_schema = $1 and table_type = 'BASE TABLE'`,
    [schema],
  );
  for (const { table_name: t } of rows) {
    await pool.query(`alter table "${schema}"."${t}" set (autovacuum_enabled = false)`);
  }
}

/** Drops the run's schemas and Redis keys (idempotent). */
export async function dropScratch(pool: pg.Pool, redis: Redis, n: ScratchNames): Promise<void> {
  await pool.query(`drop schema if exists "${n.stageSchema}" cascade`);
  await pool.query(`drop schema if exists "${n.schema}_analyst" cascade`);
  await pool.query(`drop schema if exists "${n.schema}" cascade`);
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${n.queuePrefix}:*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
}

/** Live rows per loader table of `schema` (tables with rows only). */
export async function rowCounts(
  pool: pg.Pool,
  schema: string,
  which: 'loaded' | 'marts' = 'loaded',
): Promise<Record<string, number>> {
  const { rows: tables } = await pool.query<{ table_name: string }>(
    `select table_name from information_schema.tables
      where table_schema = $1 and table_type = 'BASE TABLE'
        and table_name not in ('schema_migrations', 'sync_runs', 'sync_windows')
        and (table_name = any($2::text[])) = $3
      order by table_name`,
    [schema, MART_TABLES, which === 'marts'],
  );
  const out: Record<string, number> = {};
  for (const { table_name: t } of tables) {
    const { rows } = await pool.query<{ n: string }>(`select count(*) as n from "${schema}"."${t}"`);
    if (Number(rows[0]!.n) > 0) out[t] = Number(rows[0]!.n);
  }
  return out;
}

/**
 * The marts (docs/warehouse.md "Marts"): derived by the sync from the rows it loaded, so
 * they are neither rows loaded (CPU per million rows) nor part of the sink floors.
 */
export const MART_TABLES: readonly string[] = [
  'employments',
  'employee_daily',
  'monthly_headcount',
  'absence_days',
  'calendar',
  'pushed_dismissals',
];

/** Job time per resource from `sync_runs` (succeeded runs): jobs, summed duration, requests. */
export async function jobTimeByResource(
  pool: pg.Pool,
  schema: string,
): Promise<Record<string, { jobs: number; sumMs: number; requests: number }>> {
  const { rows } = await pool.query<{ resource: string; jobs: string; ms: string; requests: string }>(
    `select resource, count(*) as jobs, coalesce(sum(duration_ms), 0) as ms, coalesce(sum(requests), 0) as requests
       from "${schema}".sync_runs where status = 'succeeded' group by resource order by resource`,
  );
  return Object.fromEntries(
    rows.map((r) => [
      r.resource,
      { jobs: Number(r.jobs), sumMs: Number(r.ms), requests: Number(r.requests) },
    ]),
  );
}
