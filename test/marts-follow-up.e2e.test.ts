/**
 * The marts off the load's path, end to end (emulator over HTTP → Redis → Postgres): a
 * load commits its own tables and one row of pending_changes, never a mart; the company's
 * follow-up (one job of the marts queue per company) takes in every pending load at once;
 * a backfill ends with its marts current and its tables analysed (the planner's estimates
 * are real counts); and how far a company's marts lag shows in sync_freshness, `status`
 * (and `status --check`) and /metrics.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Job } from 'bullmq';
import { parseBackfillArgs } from '../src/backfill/args.js';
import { runBackfill, type BackfillSummary } from '../src/backfill/run.js';
import { createScrapeRegistry } from '../src/http/scrape-metrics.js';
import { jobIdFor } from '../src/plan/job-ids.js';
import type { SyncJobData } from '../src/plan/job-data.js';
import { collectStatus } from '../src/reports/status-report.js';
import { martsJobId, runMartsJob, startPendingMarts } from '../src/runtime/marts-job.js';
import { startWorkers } from '../src/runtime/workers.js';
import { runSyncJob } from '../src/runtime/run-job.js';
import type { SyncRuntime } from '../src/runtime/runtime.js';
import { runPunchline, startHarness, type Harness } from './sync-harness.js';

const TODAY = '2026-10-31';
const FROM = '2026-09-01';
const RESOURCES = 'companies,collaborators,punches,tardiness,hour_bank,absences';

describe('the marts after the loads', () => {
  let h: Harness;
  let rt: SyncRuntime;
  let summary: BackfillSummary;
  let company: string;
  const q = async <T>(sql: string, values: unknown[] = []): Promise<T[]> =>
    (await h.pool.query(sql.replaceAll('$S', `"${h.schema}"`), values)).rows as T[];

  /** A window job in the sync queue that no worker takes, to run by hand. */
  const windowJob = async (resource: 'punches' | 'tardiness', from: string, to: string): Promise<Job> => {
    const data: SyncJobData = {
      connection: 'default',
      resource,
      company,
      scoped: true,
      from,
      to,
      origin: 'schedule',
      force: true,
    };
    await rt.queues.sync.remove(jobIdFor(data));
    return rt.queues.sync.add(resource, data, { jobId: jobIdFor(data) });
  };

  beforeAll(async () => {
    h = await startHarness('martsfollow', { today: TODAY });
    rt = await h.runtime();
    company = h.emulator.companies[0]!.cnpj;
    summary = await runBackfill(
      rt,
      parseBackfillArgs({ from: FROM, to: TODAY, resources: RESOURCES }, rt.config),
      {
        pollMs: 100,
      },
    );
  }, 300_000);
  afterAll(async () => {
    await h?.close();
  });

  it('ends a backfill with every load taken in by the marts, several loads per refresh', async () => {
    expect(summary.failed, JSON.stringify(summary.failures)).toBe(0);
    expect(await q(`select * from $S.pending_changes`)).toEqual([]);
    const refreshes = await q<{ company_cnpj: string; loads: number }>(
      `select company_cnpj, loads from $S.mart_refreshes order by 1`,
    );
    expect(refreshes.map((r) => r.company_cnpj)).toEqual(h.emulator.companies.map((c) => c.cnpj).sort());
    // The last refresh of a company took in more than one load: they were coalesced.
    expect(Math.max(...refreshes.map((r) => r.loads))).toBeGreaterThan(1);
    // The marts are whole: a day row for every covered day of a listed person.
    const [days] = await q<{ n: number; covered: number }>(
      `select (select count(*)::int from $S.employee_daily where company_cnpj = $1) as n,
              (select count(*)::int from $S.work_days where company_cnpj = $1 and deleted_at is null) as covered`,
      [company],
    );
    expect(days!.n).toBeGreaterThanOrEqual(days!.covered);
    expect(days!.covered).toBeGreaterThan(0);
    expect(summary.martsCatchUpMs).toBeGreaterThanOrEqual(0);
  });

  it('commits a load without touching a mart, and one follow-up takes in two loads', async () => {
    // A tardiness change the source made since: the mart must follow, but only after its follow-up.
    const [day] = await q<{ cpf: string; work_date: string }>(
      `select cpf, work_date::text from $S.employee_daily where company_cnpj = $1 and not is_late and is_scheduled
          and work_date between '2026-10-01' and '2026-10-20' order by work_date, cpf limit 1`,
      [company],
    );
    await q(
      `update $S.employee_daily set worked_seconds = -1 where company_cnpj = $1 and cpf = $2 and work_date = $3`,
      [company, day!.cpf, day!.work_date],
    );
    await runSyncJob(rt, await windowJob('punches', '2026-10-01', '2026-10-31'));
    await runSyncJob(rt, await windowJob('tardiness', '2026-10-01', '2026-10-31'));
    // Both loads committed; the mart is as it was (the row changed by hand still is).
    const pending = await q<{ resource: string; changes: string[] }>(
      `select resource, changes from $S.pending_changes where company_cnpj = $1 order by id`,
      [company],
    );
    expect(pending.map((p) => p.resource)).toEqual(['punches', 'tardiness']);
    expect(pending[0]!.changes).toEqual(['coverage', 'rebuild']);
    const [hand] = await q<{ worked_seconds: number }>(
      `select worked_seconds from $S.employee_daily where company_cnpj = $1 and cpf = $2 and work_date = $3`,
      [company, day!.cpf, day!.work_date],
    );
    expect(hand!.worked_seconds).toBe(-1);
    // One follow-up for the company, waiting out its delay: the second load joined it.
    const id = martsJobId({ connection: 'default', company });
    const queued = await rt.queues.marts.getJobs(['delayed', 'waiting']);
    expect(queued.filter((j) => j.id === id)).toHaveLength(1);
    const result = await runMartsJob(
      rt,
      queued.find((j) => j.id === id)!,
    );
    expect(result).toMatchObject({ refreshes: 1, loads: 2 });
    expect(await q(`select * from $S.pending_changes`)).toEqual([]);
    const [fixed] = await q<{ worked_seconds: number | null; from_days: number | null }>(
      `select d.worked_seconds, w.worked_seconds as from_days from $S.employee_daily d
         join $S.work_days w using (company_cnpj, cpf, collaborator_record, work_date)
        where d.company_cnpj = $1 and d.cpf = $2 and d.work_date = $3`,
      [company, day!.cpf, day!.work_date],
    );
    expect(fixed!.worked_seconds).toBe(fixed!.from_days);
    const [refresh] = await q<{ loads: number; first_day: string; changes: string[] }>(
      `select loads, first_day::text, changes from $S.mart_refreshes where company_cnpj = $1`,
      [company],
    );
    expect(refresh).toMatchObject({ loads: 2, first_day: '2026-10-01' });
    expect(refresh!.changes.sort()).toEqual(['coverage', 'lateness', 'rebuild']);
    // The checks of both loads ran, each naming its own run.
    const checked = await q<{ resource: string; checked: boolean }>(
      `select r.resource, exists (select 1 from $S.quality_checks q where q.run_id = r.id and q.check_name = 'window_completeness') as checked
         from (select id, resource from $S.sync_runs where company_cnpj = $1 order by id desc limit 2) r order by 1`,
      [company],
    );
    expect(checked).toEqual([
      { resource: 'punches', checked: true },
      { resource: 'tardiness', checked: true },
    ]);
  });

  it('shows how far the marts lag in sync_freshness, status, status --check and /metrics', async () => {
    await runSyncJob(rt, await windowJob('punches', '2026-10-01', '2026-10-31'));
    await q(
      `update $S.pending_changes set recorded_at = now() - interval '20 minutes' where company_cnpj = $1`,
      [company],
    );
    const fresh = await q<{ resource: string; marts_lag_seconds: number }>(
      `select resource, marts_lag_seconds from $S.sync_freshness where company_cnpj = $1 order by 1`,
      [company],
    );
    expect(fresh.length).toBeGreaterThan(0);
    for (const f of fresh) expect(f.marts_lag_seconds).toBeGreaterThanOrEqual(1200);
    const other = h.emulator.companies[1]!.cnpj;
    const [current] = await q<{ marts_lag_seconds: number }>(
      `select marts_lag_seconds from $S.sync_freshness where company_cnpj = $1 limit 1`,
      [other],
    );
    expect(current!.marts_lag_seconds).toBe(0);

    const report = await collectStatus({ queues: [], pool: h.pool, schema: h.schema });
    const lag = report.marts!.find((m) => m.company === company)!;
    expect(lag.pendingLoads).toBe(1);
    expect(lag.lagSeconds).toBeGreaterThanOrEqual(1200);
    expect(report.marts!.find((m) => m.company === other)).toMatchObject({ pendingLoads: 0, lagSeconds: 0 });
    expect(report.check.problems).toContain('marts of 1 company more than 15 minutes behind their tables');

    const metric = (
      await createScrapeRegistry({ queues: [], pool: h.pool, schema: h.schema }).getMetricsAsJSON()
    ).find((m) => m.name === 'punchline_marts_lag_seconds');
    const value = metric!.values.find((v) => v.labels.company === company)!.value;
    expect(value).toBeGreaterThanOrEqual(1200);

    // Once the follow-up ran, the marts are current again everywhere.
    await runMartsJob(rt, { data: { connection: 'default', company } });
    const after = await collectStatus({ queues: [], pool: h.pool, schema: h.schema });
    expect(after.marts!.find((m) => m.company === company)).toMatchObject({ pendingLoads: 0, lagSeconds: 0 });
    expect(after.check.problems.filter((p) => p.startsWith('marts'))).toEqual([]);
  });

  it('rebuilds the marts from the warehouse alone: punchline marts rebuild, with the API out of reach', async () => {
    await q(
      `update $S.employee_daily set worked_seconds = -7 where company_cnpj = $1 and work_date = '2026-09-15'`,
      [company],
    );
    await q(`delete from $S.monthly_headcount where company_cnpj = $1`, [company]);
    const run = await runPunchline(
      ['marts', 'rebuild', '--company', company, '--no-progress'],
      h.env({ SERVICE_API_BASE_URL: 'http://127.0.0.1:9' }),
    );
    expect(run.stderr.includes('"level":50'), run.stderr).toBe(false);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^rebuilt the marts of 1 companies in \d+s: \d+ rows written$/m);
    const [broken] = await q<{ n: number }>(
      `select count(*)::int as n from $S.employee_daily where company_cnpj = $1 and worked_seconds = -7`,
      [company],
    );
    expect(broken!.n).toBe(0);
    const months = await q<{ month: string }>(
      `select distinct month::text from $S.monthly_headcount where company_cnpj = $1 order by 1`,
      [company],
    );
    expect(months.map((m) => m.month)).toEqual(['2026-09-01', '2026-10-01']);
    const bad = await runPunchline(
      ['marts', 'rebuild', '--from', '2026-10-02', '--to', '2026-10-01'],
      h.env(),
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--from 2026-10-02 is after --to 2026-10-01');
  }, 60_000);

  it('rebuilds by itself after a migration that asks for it: the worker takes in what is pending when it starts', async () => {
    const other = h.emulator.companies[1]!.cnpj;
    await q(
      `update $S.employee_daily set worked_seconds = -9 where company_cnpj = $1 and work_date = '2026-09-16'`,
      [other],
    );
    // What a migration that changes a mart's definition ends with.
    const [asked] = await q<{ n: number }>(`select $S.request_marts_rebuild(null, null, null) as n`);
    expect(asked!.n).toBe(h.emulator.companies.length);
    expect(await startPendingMarts(rt)).toBe(h.emulator.companies.length);
    const workers = startWorkers(rt, { concurrency: 2, queues: ['marts'] });
    try {
      const until = Date.now() + 60_000;
      while ((await q(`select 1 from $S.pending_changes limit 1`)).length > 0) {
        if (Date.now() > until) throw new Error('the marts follow-ups did not take the rebuild in');
        await new Promise((r) => setTimeout(r, 200));
      }
    } finally {
      await workers.close();
    }
    const [left] = await q<{ n: number }>(
      `select count(*)::int as n from $S.employee_daily where worked_seconds = -9`,
    );
    expect(left!.n).toBe(0);
  }, 90_000);
});

describe('statistics after a backfill', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness('analyzed', { today: TODAY });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  it('plans the first query after a backfill on real counts: estimates within 2x of the rows', async () => {
    const rt = await h.runtime();
    const summary = await runBackfill(
      rt,
      parseBackfillArgs({ from: FROM, to: TODAY, resources: RESOURCES }, rt.config),
      {
        pollMs: 100,
      },
    );
    expect(summary.failed).toBe(0);
    const tables = [
      'punches',
      'work_days',
      'tardiness',
      'hour_bank_balances',
      'collaborators',
      'employee_daily',
      'employments',
      'absence_days',
    ];
    const off: string[] = [];
    for (const table of tables) {
      const t = `"${h.schema}"."${table}"`;
      const [{ n }] = (await h.pool.query<{ n: number }>(`select count(*)::int as n from ${t}`)).rows as [
        { n: number },
      ];
      const plan = (
        await h.pool.query<{ 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }>(
          `explain (format json) select * from ${t}`,
        )
      ).rows[0]!['QUERY PLAN'][0].Plan['Plan Rows'];
      expect(n, table).toBeGreaterThan(0);
      if (plan > 2 * n || plan < n / 2) off.push(`${table}: estimated ${plan}, has ${n}`);
    }
    expect(off).toEqual([]);
    const analysed = await h.pool.query<{ relname: string }>(
      `select relname from pg_stat_user_tables where schemaname = $1 and relname = any($2) and last_analyze is not null`,
      [h.schema, tables],
    );
    expect(analysed.rows.map((r) => r.relname).sort()).toEqual([...tables].sort());
  }, 300_000);
});
