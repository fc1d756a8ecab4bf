/**
 * `punchline status` against the real Redis and Postgres: counts of real BullMQ queues,
 * a job that failed for good and one waiting to retry, with their last errors, and the
 * freshness of the warehouse with the stale ones flagged.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import type { Redis } from 'ioredis';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { openQueues, type SyncQueues } from '../src/runtime/queues.js';
import { statusCommand } from '../src/commands/status.js';
import type { CommandContext } from '../src/commands/context.js';
import type { StatusReport } from '../src/reports/status-report.js';
import {
  TEST_DATABASE_URL,
  TEST_REDIS_URL,
  connectPostgres,
  connectRedis,
  dropQueuePrefix,
  dropSchema,
  uniqueName,
} from './support/isolation.js';
import { failJobs } from './support/fail-jobs.js';

const schema = uniqueName('ops_status');
const prefix = uniqueName('ops_status');
const A = '11222333000181';
const config = loadConfig({
  DATABASE_URL: TEST_DATABASE_URL,
  REDIS_URL: TEST_REDIS_URL,
  QUEUE_PREFIX: prefix,
  WAREHOUSE_SCHEMA: schema,
});

let pool: pg.Pool;
let redis: Redis;
let queues: SyncQueues;

/** Runs `punchline status` with `opts`, returning exit code and stdout. */
async function runStatus(
  opts: { json?: boolean; staleAfter?: string },
  cfg = config,
): Promise<{ code: number; out: string }> {
  let out = '';
  const sink = new Writable({
    write(chunk, _enc, cb) {
      out += String(chunk);
      cb();
    },
  });
  const ctx: CommandContext = {
    config: cfg,
    logger: createLogger({ level: 'silent' }),
    out: sink,
    signal: new AbortController().signal,
  };
  const code = await statusCommand(ctx, opts);
  return { code, out };
}

beforeAll(async () => {
  pool = await connectPostgres();
  redis = await connectRedis();
  await pool.query(`create schema "${schema}"`);
  await pool.query(`create table "${schema}".sync_runs (
    id bigserial primary key, resource text not null, company_cnpj text, status text not null,
    finished_at timestamptz)`);
  await pool.query(`create view "${schema}".sync_freshness as
    select company_cnpj, resource, max(finished_at) as last_success_at,
      extract(epoch from now() - max(finished_at))::bigint as age_seconds
    from "${schema}".sync_runs where status = 'succeeded' group by company_cnpj, resource`);
  await pool.query(
    `insert into "${schema}".sync_runs (resource, company_cnpj, status, finished_at) values
      ('punches', $1, 'succeeded', now() - interval '5 minutes'),
      ('hour_totals', $1, 'succeeded', now() - interval '3 days')`,
    [A],
  );
  queues = openQueues(config, redis);
  await queues.sync.add(
    'punches',
    { connection: 'default', resource: 'punches', company: A, from: '2025-01-01', to: '2025-01-31' },
    { jobId: 'punches-gone', attempts: 1 },
  );
  await queues.sync.add(
    'tardiness',
    { connection: 'default', resource: 'tardiness', company: A, from: '2025-02-01', to: '2025-02-28' },
    { jobId: 'tardiness-retry', attempts: 3, backoff: { type: 'fixed', delay: 600_000 } },
  );
  await failJobs(redis, queues.sync, prefix, 2);
  await queues.followups.add('absence_attachments', { resource: 'absence_attachments' }, { delay: 600_000 });
});

afterAll(async () => {
  await queues?.close();
  if (redis) {
    await dropQueuePrefix(redis, prefix);
    redis.disconnect();
  }
  if (pool) {
    await dropSchema(pool, schema);
    await pool.end();
  }
});

describe('punchline status --json', () => {
  it('reports counts of every queue, failing jobs with their last error, and freshness', async () => {
    const { code, out } = await runStatus({ json: true });
    expect(code).toBe(0);
    const report = JSON.parse(out) as StatusReport;
    expect(report.queues.map((q) => q.queue)).toEqual(['sync', 'followups', 'schedules', 'marts']);
    expect(report.queues[0]!.counts).toMatchObject({ failed: 1, delayed: 1, waiting: 0, active: 0 });
    expect(report.queues[1]!.counts).toMatchObject({ delayed: 1 });

    const byId = Object.fromEntries(report.failing.map((f) => [f.id, f]));
    expect(byId['punches-gone']).toMatchObject({
      queue: 'sync',
      state: 'failed',
      resource: 'punches',
      company: A,
      window: '2025-01-01..2025-01-31',
      attempts: 1,
      lastError: 'ServerError: the API answered 500 for punches',
    });
    expect(byId['tardiness-retry']).toMatchObject({
      state: 'retrying',
      attempts: 1,
      window: '2025-02-01..2025-02-28',
    });
    // A delayed job that never failed is not "failing".
    expect(report.failing).toHaveLength(2);
    expect(report.summary).toEqual({ stale: 1, aging: 0, failed: 1, retrying: 1 });
    expect(report.check).toEqual({ ok: false, problems: ['1 company × resource stale', '1 job failed'] });

    const fresh = Object.fromEntries(report.freshness!.map((f) => [f.resource, f]));
    expect(fresh.punches).toMatchObject({ company: A, stale: false });
    expect(fresh.punches!.ageSeconds).toBeGreaterThanOrEqual(299);
    expect(fresh.punches!.ageSeconds).toBeLessThan(400);
    expect(fresh.hour_totals).toMatchObject({ stale: true });
  });

  it('applies --stale-after to every resource', async () => {
    const { out } = await runStatus({ json: true, staleAfter: '1' });
    const report = JSON.parse(out) as StatusReport;
    expect(report.freshness!.every((f) => f.stale)).toBe(true);
    expect(report.freshness!.every((f) => f.staleAfterSeconds === 60)).toBe(true);
  });
});

describe('punchline status', () => {
  it('prints readable tables, flagging the stale resource', async () => {
    const { code, out } = await runStatus({});
    expect(code).toBe(0);
    expect(out).toMatch(/^\s+sync\s+0\s+0\s+1\s+1\s+0$/m);
    expect(out).toMatch(
      /failed\s+sync\s+punches\s+11222333000181\s+2025-01-01\.\.2025-01-31\s+1\s+ServerError/,
    );
    expect(out).toMatch(/hour_totals\s+\S+ \S+ UTC\s+3d 0h\s+STALE/);
    expect(out).toMatch(/^\s+11222333000181\s+punches\s+\S+ \S+ UTC\s+5m\s*$/m);
    expect(out).toContain('1 stale, 1 failed, 1 retrying.');
  });

  it('says which service to start when Redis is not reachable', async () => {
    const down = loadConfig({
      DATABASE_URL: TEST_DATABASE_URL,
      REDIS_URL: 'redis://127.0.0.1:1',
      QUEUE_PREFIX: prefix,
    });
    await expect(runStatus({}, down)).rejects.toThrow(
      /Redis is not reachable at redis:\/\/127\.0\.0\.1:1.*redis-server/,
    );
  });

  it('rejects a bad --stale-after before any work', async () => {
    await expect(runStatus({ staleAfter: 'soon' })).rejects.toThrow(/--stale-after must be a whole number/);
  });
});
