/**
 * Retention against a migrated warehouse: old sync_runs go in batches, the last success
 * of each company × resource stays (sync_freshness does not change), 0 keeps everything,
 * and the nightly schedule tick applies it; rejected records go once resolved long ago,
 * open ones stay; quality_checks outcomes go but the latest run of each check and part
 * stays (quality_status does not change).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { planSchedule } from '../jobs/plan-schedule.js';
import { applyRetention, buildRetentionDelete, RETENTION_RULES } from '../src/warehouse/retention.js';
import type { SyncRuntime } from '../src/runtime/runtime.js';
import { startHarness, type Harness } from './sync-harness.js';

const DAY = 86_400_000;
const NOW = new Date('2026-10-20T12:00:00Z');
const A = '11222333000181';
const B = '44555666000172';

let h: Harness;
let rt: SyncRuntime;

async function run(company: string | null, resource: string, status: string, daysAgo: number): Promise<void> {
  const at = new Date(NOW.getTime() - daysAgo * DAY);
  await h.pool.query(
    `insert into "${h.schema}".sync_runs (job_id, connection, resource, company_cnpj, status, started_at, finished_at)
     values ($1, 'default', $2, $3, $4, $5, $5)`,
    [`${resource}.${company}.${daysAgo}`, resource, company, status, at],
  );
}

const remaining = async () =>
  (
    await h.pool.query<{ k: string }>(
      `select job_id || ':' || status as k from "${h.schema}".sync_runs order by job_id`,
    )
  ).rows.map((r) => r.k);

const freshness = async () =>
  (
    await h.pool.query(
      `select company_cnpj, resource, last_success_at from "${h.schema}".sync_freshness order by 1, 2`,
    )
  ).rows;

beforeAll(async () => {
  h = await startHarness('retention', { today: '2026-10-20' });
  rt = await h.runtime({ SYNC_RUNS_RETENTION_DAYS: '90', REJECTED_RECORDS_RETENTION_DAYS: '0' });
}, 60_000);

afterAll(async () => {
  await h?.close();
});

beforeEach(async () => {
  await h.pool.query(`delete from "${h.schema}".sync_runs`);
  await run(A, 'punches', 'succeeded', 200); // superseded by the run of 150 days ago
  await run(A, 'punches', 'succeeded', 150); // A's last punches success: kept, however old
  await run(A, 'punches', 'failed', 120);
  await run(A, 'hour_totals', 'succeeded', 100); // superseded by the recent one
  await run(A, 'hour_totals', 'succeeded', 10);
  await run(B, 'punches', 'running', 95); // a run whose worker died
  await run(B, 'punches', 'succeeded', 1);
  await run(null, 'companies', 'succeeded', 300); // group-level last success: kept
  await run(null, 'companies', 'failed', 89);
});

describe('sync_runs retention', () => {
  it('deletes runs older than the retention, keeping the last success of each company and resource', async () => {
    const before = await freshness();
    const deleted = await applyRetention(
      h.pool,
      h.schema,
      { sync_runs: 90, rejected_records: 0, quality_checks: 0 },
      { now: NOW, batch: 2 },
    );
    expect(deleted).toEqual({ sync_runs: 4 });
    expect(await remaining()).toEqual([
      'companies.null.300:succeeded',
      'companies.null.89:failed',
      'hour_totals.11222333000181.10:succeeded',
      'punches.11222333000181.150:succeeded',
      'punches.44555666000172.1:succeeded',
    ]);
    expect(await freshness()).toEqual(before);
  });

  it('keeps everything when the retention is 0', async () => {
    expect(
      await applyRetention(
        h.pool,
        h.schema,
        { sync_runs: 0, rejected_records: 0, quality_checks: 0 },
        { now: NOW },
      ),
    ).toEqual({});
    expect(await remaining()).toHaveLength(9);
  });

  it('is applied by the nightly schedule tick, and only by it', async () => {
    await planSchedule(rt, { connection: 'default', kind: 'punches' }, { now: () => NOW });
    expect(await remaining()).toHaveLength(9);
    await planSchedule(rt, { connection: 'default', kind: 'nightly' }, { now: () => NOW });
    expect(await remaining()).toHaveLength(5);
    await rt.queues.sync.obliterate({ force: true });
  });

  it('deletes in batches by key, never with an unbounded statement', () => {
    const sql = buildRetentionDelete('wh', RETENTION_RULES[0]!, 100);
    expect(sql).toMatch(
      /^delete from "wh"\."sync_runs" where "id" in \(select "id" from "wh"\."sync_runs" where "started_at" < \$1 and "id" not in \(select distinct on \(company_cnpj, resource\) id from "wh"\."sync_runs" /,
    );
    expect(sql).toMatch(/ limit 100\)$/);
  });
});

describe('quality_checks retention', () => {
  /** A run of a check on a part, `daysAgo`, with one row per scope. */
  async function checked(part: string, daysAgo: number, scopes: string[]): Promise<void> {
    for (const scope of scopes) {
      await h.pool.query(
        `insert into "${h.schema}".quality_checks (check_name, company_cnpj, part, scope, measure, expected, actual, status, checked_at)
         values ('coverage', $1, $2, $3, 'days', 1, 1, 'ok', $4)`,
        [A, part, scope, new Date(NOW.getTime() - daysAgo * DAY)],
      );
    }
  }
  const status = async () =>
    (await h.pool.query(`select part, scope, checked_at from "${h.schema}".quality_status order by 1, 2`))
      .rows;

  it('deletes outcomes older than the retention, keeping the latest run of each part however old', async () => {
    await h.pool.query(`delete from "${h.schema}".quality_checks`);
    await checked('punches', 60, ['all', 'gap 2025-02-01..2025-02-28']);
    await checked('punches', 40, ['all']); // the latest run of punches: kept
    await checked('hour_bank', 50, ['all', 'gap 2025-03-01..2025-03-02']);
    await checked('hour_bank', 5, ['all']);
    await checked('tardiness', 45, ['all']); // the only run: kept
    const before = await status();
    expect(
      await applyRetention(
        h.pool,
        h.schema,
        { sync_runs: 0, rejected_records: 0, quality_checks: 30 },
        { now: NOW, batch: 1 },
      ),
    ).toEqual({ quality_checks: 4 });
    const { rows } = await h.pool.query(`select part, scope from "${h.schema}".quality_checks order by 1, 2`);
    expect(rows).toEqual([
      { part: 'hour_bank', scope: 'all' },
      { part: 'punches', scope: 'all' },
      { part: 'tardiness', scope: 'all' },
    ]);
    expect(await status()).toEqual(before);
  });
});

describe('rejected_records retention', () => {
  /** A rejection first seen `daysAgo`, resolved `resolvedDaysAgo` (null: still open). */
  async function rejection(path: string, daysAgo: number, resolvedDaysAgo: number | null): Promise<void> {
    const at = (d: number) => new Date(NOW.getTime() - d * DAY);
    await h.pool.query(
      `insert into "${h.schema}".rejected_records
         (connection, resource, endpoint, company_cnpj, element_index, json_path, reason, record, first_rejected_at, last_rejected_at, resolved_at)
       values ('default', 'punches', 'point/getFromPeriod', $1, 0, $2, 'datetime: bad', '{}', $3, $3, $4)`,
      [A, path, at(daysAgo), resolvedDaysAgo === null ? null : at(resolvedDaysAgo)],
    );
  }
  const left = async () =>
    (
      await h.pool.query<{ p: string }>(
        `select json_path as p from "${h.schema}".rejected_records order by 1`,
      )
    ).rows.map((r) => r.p);

  it('deletes rejections resolved longer ago than the retention, and keeps open ones however old', async () => {
    await h.pool.query(`delete from "${h.schema}".rejected_records`);
    await rejection('data[1]', 400, null); // open for more than a year: status still lists it
    await rejection('data[2]', 400, 200); // resolved long ago
    await rejection('data[3]', 400, 30); // resolved within the retention
    expect(
      await applyRetention(
        h.pool,
        h.schema,
        { sync_runs: 0, rejected_records: 90, quality_checks: 0 },
        { now: NOW },
      ),
    ).toEqual({ rejected_records: 1 });
    expect(await left()).toEqual(['data[1]', 'data[3]']);
    expect(
      await applyRetention(
        h.pool,
        h.schema,
        { sync_runs: 0, rejected_records: 0, quality_checks: 0 },
        { now: NOW },
      ),
    ).toEqual({});
    expect(await left()).toEqual(['data[1]', 'data[3]']);
  });

  it('is applied by the nightly schedule tick with REJECTED_RECORDS_RETENTION_DAYS', async () => {
    await h.pool.query(`delete from "${h.schema}".rejected_records`);
    await rejection('data[1]', 40, null);
    await rejection('data[2]', 40, 20);
    const nightly = await h.runtime({ REJECTED_RECORDS_RETENTION_DAYS: '7' });
    await planSchedule(nightly, { connection: 'default', kind: 'nightly' }, { now: () => NOW });
    expect(await left()).toEqual(['data[1]']);
    await nightly.queues.sync.obliterate({ force: true });
  });
});
