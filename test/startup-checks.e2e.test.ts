/**
 * Bad configuration and version skew fail fast: a schedule that is not a valid cron
 * pattern is refused at start naming its variable; `punchline migrate --status` lists
 * applied and pending migrations; a worker or backfill started against a schema whose
 * migrations are behind (or ahead of) the code refuses with one line saying which.
 */
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../src/migrations/migrate.js';
import { readMigrations } from '../src/migrations/files.js';
import { runPunchline } from './sync-harness.js';
import type { Redis } from 'ioredis';
import {
  connectPostgres,
  connectRedis,
  dropQueuePrefix,
  dropSchema,
  TEST_DATABASE_URL,
  TEST_REDIS_URL,
  uniqueName,
} from './support/isolation.js';

const FILES = readMigrations();
const LAST = FILES[FILES.length - 1]!;
let pool: pg.Pool;
let redis: Redis;
const prefix = uniqueName('skew');
const schema = uniqueName('skew');
const fresh = uniqueName('skew_fresh');

const env = (s = schema): Record<string, string> => ({
  DATABASE_URL: TEST_DATABASE_URL,
  WAREHOUSE_SCHEMA: s,
  REDIS_URL: TEST_REDIS_URL,
  QUEUE_PREFIX: prefix,
  SERVICE_API_BASE_URL: 'http://127.0.0.1:9',
  SERVICE_API_TOKEN: 'skew-test-token-1234',
  LOG_LEVEL: 'silent',
  OPS_PORT: '0',
  SCHEDULES_ENABLED: '0',
});

beforeAll(async () => {
  pool = await connectPostgres();
  redis = await connectRedis();
  await migrate(TEST_DATABASE_URL, schema);
}, 60_000);
afterAll(async () => {
  await dropSchema(pool, schema);
  await dropSchema(pool, fresh);
  await pool.end();
  await dropQueuePrefix(redis, prefix);
  redis.disconnect();
});

describe('a schedule that is not a valid cron pattern', () => {
  it('stops the worker before any work, naming the variable', async () => {
    const r = await runPunchline(['worker', '--no-ops'], { ...env(), SCHEDULE_NIGHTLY: '99 * * * *' });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      'punchline: SCHEDULE_NIGHTLY must be a cron pattern such as "*/15 * * * *" (Constraint error, got value 99 expected range 0-59) (got "99 * * * *")',
    ]);
  });
});

describe('punchline migrate --status', () => {
  it('lists every migration as applied when the schema is current', async () => {
    const r = await runPunchline(['migrate', '--status'], env());
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`schema ${schema}: ${FILES.length} applied, 0 pending`);
    for (const f of FILES)
      expect(r.stdout).toMatch(new RegExp(`applied\\s+${f.name}\\s+\\d{4}-\\d{2}-\\d{2}`));
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe('up to date');
  });

  it('lists every migration as pending on a schema never migrated, and creates nothing', async () => {
    const r = await runPunchline(['migrate', '--status'], env(fresh));
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`schema ${fresh}: 0 applied, ${FILES.length} pending`);
    expect(r.stdout).toMatch(new RegExp(`pending\\s+${LAST.name}`));
    const { rows } = await pool.query('select 1 from pg_namespace where nspname = $1', [fresh]);
    expect(rows).toEqual([]);
  });
});

describe('when the warehouse is behind the code', () => {
  beforeAll(async () => {
    await pool.query(`delete from "${schema}".schema_migrations where version = $1`, [LAST.version]);
  });

  it('migrate --status shows the pending migration', async () => {
    const r = await runPunchline(['migrate', '--status'], env());
    expect(r.stdout).toMatch(new RegExp(`pending\\s+${LAST.name}`));
    expect(r.stdout).toContain(
      `is behind this punchline: 1 migration pending (${LAST.name}); run punchline migrate first`,
    );
  });

  it('a worker and a backfill refuse to start with one line saying so', async () => {
    for (const args of [
      ['worker', '--no-ops', '--no-schedules'],
      ['backfill', '--from', '2025-01-01', '--to', '2025-01-31', '--no-progress'],
    ]) {
      const r = await runPunchline(args, env());
      expect(r.code, args[0]).toBe(2);
      expect(r.stderr.trim().split('\n')).toEqual([
        `punchline: the warehouse schema "${schema}" is behind this punchline: 1 migration pending (${LAST.name}); run punchline migrate first [warehouse_behind]`,
      ]);
    }
  }, 60_000);
});

describe('when the warehouse is ahead of the code', () => {
  beforeAll(async () => {
    const insert = `insert into "${schema}".schema_migrations (version, name, checksum, duration_ms) values ($1, $2, $3, 1)`;
    await pool.query(insert, [LAST.version, LAST.name, LAST.checksum]);
    await pool.query(insert, ['999', '999_from_a_newer_punchline', 'x']);
  });

  it('a worker and a backfill refuse to start with one line saying so, and --status flags the unknown one', async () => {
    for (const args of [
      ['worker', '--no-ops', '--no-schedules'],
      ['backfill', '--from', '2025-01-01', '--to', '2025-01-31', '--no-progress'],
    ]) {
      const r = await runPunchline(args, env());
      expect(r.code, args[0]).toBe(2);
      expect(r.stderr.trim().split('\n')).toEqual([
        `punchline: the warehouse schema "${schema}" is ahead of this punchline: migration 999_from_a_newer_punchline applied by a newer version (upgrade punchline before starting it) [warehouse_ahead]`,
      ]);
    }
    const s = await runPunchline(['migrate', '--status'], env());
    expect(s.stdout).toMatch(/applied \(unknown to this punchline\)\s+999_from_a_newer_punchline/);
  }, 60_000);
});

describe('a DATABASE_URL whose password holds an unencoded "/"', () => {
  it.each(['postgres://u:pa/ss@127.0.0.1:1/db', 'postgres://u:1234/secret@127.0.0.1:1/db'])(
    'is refused at start, and no message prints the password (%s)',
    async (url) => {
      const password = url.slice('postgres://u:'.length, url.lastIndexOf('@'));
      for (const args of [['migrate'], ['status'], ['worker']]) {
        const r = await runPunchline(args, { ...env(), DATABASE_URL: url, LOG_LEVEL: 'debug' });
        expect(r.code, args[0]).toBe(2);
        expect(r.stderr.trim()).toMatch(
          /^punchline: DATABASE_URL: its user name or password holds "\/" not percent-encoded \(write \/ as %2F\)/,
        );
        expect(`${r.stdout}${r.stderr}`, args[0]).not.toContain(password);
      }
    },
    60_000,
  );
});
