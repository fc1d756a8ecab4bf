/**
 * `punchline status --check` for cron jobs and probes, run as a process against the real
 * Redis and a migrated warehouse: it exits 0 while everything is fresh, nothing failed
 * and no connection is paused, and 1 as soon as a company's data is stale, a job failed
 * for good or a connection's token was rejected, each named in the summary line and in
 * `--json`'s `check`; a job waiting to retry does not fail it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import type { Redis } from 'ioredis';
import { openQueues, type SyncQueues } from '../src/runtime/queues.js';
import { ConnectionPauses } from '../src/connections/connection-pause.js';
import { migrate } from '../src/migrations/migrate.js';
import type { StatusReport } from '../src/reports/status-report.js';
import { loadConfig } from '../src/config.js';
import { runPunchline } from './sync-harness.js';
import { failJobs } from './support/fail-jobs.js';
import {
  TEST_DATABASE_URL,
  TEST_REDIS_URL,
  connectPostgres,
  connectRedis,
  dropQueuePrefix,
  dropSchema,
  uniqueName,
} from './support/isolation.js';

const schema = uniqueName('status_check');
const prefix = uniqueName('status_check');
const A = '11222333000181';
const B = '11444777000161';
const env = {
  DATABASE_URL: TEST_DATABASE_URL,
  REDIS_URL: TEST_REDIS_URL,
  WAREHOUSE_SCHEMA: schema,
  QUEUE_PREFIX: prefix,
  SERVICE_API_BASE_URL: 'http://127.0.0.1:9',
  SERVICE_API_TOKEN: 'status-check-token-1234',
  LOG_LEVEL: 'silent',
};

let pool: pg.Pool;
let redis: Redis;
let queues: SyncQueues;
let pauses: ConnectionPauses;

/** `punchline status --check [--json]`: its exit code, and the summary line or the report. */
async function check(): Promise<{ code: number | null; summary: string; report: StatusReport }> {
  const [text, json] = await Promise.all([
    runPunchline(['status', '--check'], env),
    runPunchline(['status', '--check', '--json'], env),
  ]);
  expect(json.code).toBe(text.code);
  expect(text.stderr).toBe('');
  return {
    code: text.code,
    summary: text.stdout.trimEnd().split('\n').at(-1)!,
    report: JSON.parse(json.stdout) as StatusReport,
  };
}

/** Records a successful run of `resource` for `company` that finished `minutesAgo`, as the sync does. */
async function succeeded(company: string | null, resource: string, minutesAgo: number): Promise<void> {
  await pool.query(
    `insert into "${schema}".sync_runs (job_id, connection, resource, company_cnpj, status, attempt, started_at, finished_at)
     values ($1, 'default', $2, $3, 'succeeded', 1, now() - make_interval(mins => $4 + 1), now() - make_interval(mins => $4))`,
    [`${resource}.default.${company ?? 'group'}`, resource, company, minutesAgo],
  );
}

beforeAll(async () => {
  pool = await connectPostgres();
  redis = await connectRedis();
  await migrate(TEST_DATABASE_URL, schema);
  queues = openQueues(loadConfig(env), redis);
  pauses = new ConnectionPauses({ redis, prefix, recheckMs: 180_000 });
  await succeeded(null, 'companies', 20);
  for (const company of [A, B]) {
    await succeeded(company, 'punches', 10);
    await succeeded(company, 'collaborators', 50);
  }
}, 60_000);

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

describe('punchline status --check', () => {
  it('exits 0 while everything is fresh, nothing failed and no connection is paused', async () => {
    const { code, summary, report } = await check();
    expect(code).toBe(0);
    expect(summary).toBe('All fresh, no failing jobs.');
    expect(report.check).toEqual({ ok: true, problems: [] });
  }, 30_000);

  it('exits 1 when a company is stale, and 0 again once it synced', async () => {
    await succeeded(B, 'punches', 3 * 60);
    await pool.query(
      `delete from "${schema}".sync_runs where company_cnpj = $1 and resource = 'punches' and finished_at > now() - interval '1 hour'`,
      [B],
    );
    const stale = await check();
    expect(stale.code).toBe(1);
    expect(stale.summary).toBe('1 stale, 0 failed, 0 retrying.');
    expect(stale.report.check).toEqual({ ok: false, problems: ['1 company × resource stale'] });
    expect(stale.report.freshness!.find((f) => f.company === B && f.resource === 'punches')).toMatchObject({
      state: 'stale',
      stale: true,
    });

    await succeeded(B, 'punches', 1);
    expect((await check()).code).toBe(0);
  }, 30_000);

  it('does not fail for a job waiting to retry, and exits 1 once a job failed for good', async () => {
    const data = {
      connection: 'default',
      resource: 'punches',
      company: A,
      from: '2025-01-01',
      to: '2025-01-31',
    };
    await queues.sync.add('punches', data, {
      jobId: 'punches-retrying',
      attempts: 3,
      backoff: { type: 'fixed', delay: 600_000 },
    });
    await failJobs(redis, queues.sync, prefix, 1);
    const retrying = await check();
    expect({ code: retrying.code, summary: retrying.summary }).toEqual({
      code: 0,
      summary: '0 stale, 0 failed, 1 retrying.',
    });

    await queues.sync.add(
      'punches',
      { ...data, from: '2025-02-01', to: '2025-02-28' },
      { jobId: 'punches-failed', attempts: 1 },
    );
    await failJobs(redis, queues.sync, prefix, 1);
    const failed = await check();
    expect(failed.code).toBe(1);
    expect(failed.summary).toBe('0 stale, 1 failed, 1 retrying.');
    expect(failed.report.check.problems).toEqual(['1 job failed']);

    await (await queues.sync.getJob('punches-failed'))!.remove();
    await (await queues.sync.getJob('punches-retrying'))!.remove();
    expect((await check()).code).toBe(0);
  }, 60_000);

  it("exits 1 while the API rejects a connection's token, and 0 once it resumed", async () => {
    await pauses.pause('default', 'invalid_service_token', 'collaborator: 401 invalid_service_token');
    const paused = await check();
    expect(paused.code).toBe(1);
    expect(paused.summary).toBe('1 connection paused, 0 stale, 0 failed, 0 retrying.');
    expect(paused.report.check.problems).toEqual(['connection "default" paused (invalid_service_token)']);
    expect(JSON.stringify(paused.report)).not.toContain(env.SERVICE_API_TOKEN);

    await pauses.resume('default');
    expect((await check()).code).toBe(0);
  }, 30_000);
});
