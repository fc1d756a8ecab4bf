/**
 * End to end against answers that go wrong once (the emulator's queued faults, over HTTP,
 * real Redis and Postgres): an element that cannot be stored, an empty answer for a
 * window that held punches, an HTML page and a body cut with 200, a day of a fan-out the
 * API refuses for good, and a 422 `date_range_exceeded` whose envelope has a null
 * `payload_data_required`. Each must end with the warehouse equal to the source, or with
 * nothing changed and a clear failure — never with a partial or emptied window.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UnrecoverableError, type Job } from 'bullmq';
import { metricsRegistry } from '../src/telemetry/metrics.js';
import { createScrapeRegistry } from '../src/http/scrape-metrics.js';
import { parseBackfillArgs } from '../src/backfill/args.js';
import { runBackfill, type BackfillSummary } from '../src/backfill/run.js';
import { SuspiciousAnswerError } from '../src/load/errors.js';
import { jobIdFor } from '../src/plan/job-ids.js';
import type { SyncJobData } from '../src/plan/job-data.js';
import { runSyncJob } from '../src/runtime/run-job.js';
import type { SyncRuntime } from '../src/runtime/runtime.js';
import { daysOf } from '../src/plan/windows.js';
import { startHarness, type Harness } from './sync-harness.js';
import { statusOf } from './support/status-command.js';

const TODAY = '2026-10-31';
const PERIOD = 'GET /customer/v2/point/getFromPeriod';

describe('answers that go wrong once', () => {
  let h: Harness;
  let rt: SyncRuntime;
  let company: string;

  const q = async <T>(sql: string, values: unknown[] = []): Promise<T[]> =>
    (await h.pool.query(sql.replaceAll('$S', `"${h.schema}"`), values)).rows as T[];

  /** Backfills `resources` of the company over `[from, to]`, re-reading windows already done. */
  const backfill = async (resources: string, from: string, to: string): Promise<BackfillSummary> =>
    runBackfill(rt, parseBackfillArgs({ from, to, resources, company, force: true }, rt.config), {
      pollMs: 100,
    });

  /** Ids of the company's live punches of `[from, to]`, and those of the emulator's truth. */
  const punches = async (from: string, to: string) => ({
    stored: (
      await q<{ id: string }>(
        `select point_id::text as id from $S.punches where company_cnpj = $1 and work_date between $2 and $3 and deleted_at is null order by 1`,
        [company, from, to],
      )
    ).map((r) => r.id),
    truth: h.emulator.truth.pointIds(company, from, to).map(String).sort(),
  });

  /** A sync job in the queue (no worker takes it), to run by hand with runSyncJob. */
  const windowJob = async (resource: 'punches' | 'hour_bank', from: string, to: string): Promise<Job> => {
    const data: SyncJobData = {
      connection: 'default',
      resource,
      company,
      scoped: true,
      from,
      to,
      origin: 'backfill',
      force: true,
    };
    await rt.queues.sync.remove(jobIdFor(data));
    return rt.queues.sync.add(resource, data, { jobId: jobIdFor(data) });
  };

  /** `punchline_rejected_records_open` of a scrape of `/metrics`. */
  const openGauge = async () => {
    const metric = (
      await createScrapeRegistry({ queues: [], pool: h.pool, schema: h.schema }).getMetricsAsJSON()
    ).find((m) => m.name === 'punchline_rejected_records_open');
    return (metric?.values ?? []).map((v) => ({ labels: v.labels, value: v.value }));
  };

  beforeAll(async () => {
    h = await startHarness('answerfaults', { today: TODAY });
    rt = await h.runtime();
    company = h.emulator.companies[0]!.cnpj;
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  describe('an element that cannot be stored, in the middle of an answer', () => {
    const FROM = '2026-05-01';
    const TO = '2026-05-31';

    it('loads the rest of the window, records the rejection with its path, and keeps the rejected punch', async () => {
      expect((await backfill('punches', FROM, TO)).failed).toBe(0);
      const before = await punches(FROM, TO);
      expect(before.stored).toEqual(before.truth);

      h.emulator.queueFault({ kind: 'corrupt', endpoint: 'point/getFromPeriod', company });
      const summary = await backfill('punches', FROM, TO);
      expect(summary.failed, JSON.stringify(summary.failures)).toBe(0);
      expect(h.emulator.queuedFaults()).toEqual([]);

      const rejected = await q<{
        endpoint: string;
        element_index: number;
        json_path: string;
        reason: string;
        point_id: string;
        window_start: string;
        resolved_at: Date | null;
      }>(
        `select endpoint, element_index, json_path, reason, record->>'point_id' as point_id, window_start::text, resolved_at from $S.rejected_records`,
      );
      expect(rejected).toHaveLength(1);
      const r = rejected[0]!;
      expect(r).toMatchObject({ endpoint: 'point/getFromPeriod', window_start: FROM, resolved_at: null });
      expect(r.json_path).toMatch(
        new RegExp(`^data\\[${r.element_index}\\]\\.days\\[\\d+\\]\\.points\\[\\d+\\]$`),
      );
      expect(r.element_index).toBeGreaterThan(0);
      expect(r.reason).toMatch(/^datetime: /);
      // The rejected punch was not in the answer that could be stored, yet it is not taken for deleted.
      const after = await punches(FROM, TO);
      expect(after.stored).toEqual(after.truth);
      expect(after.stored).toContain(r.point_id);
      const runs = await q<{ rejected: number }>(
        `select rows_rejected as rejected from $S.sync_runs where resource = 'punches' and window_start = $1 order by id desc limit 1`,
        [FROM],
      );
      expect(runs[0]!.rejected).toBe(1);
    });

    it('shows the open rejection in status, and a later clean sync resolves it', async () => {
      const { report, text } = await statusOf(h.config());
      expect(report.rejections).toEqual([
        expect.objectContaining({
          resource: 'punches',
          endpoint: 'point/getFromPeriod',
          open: 1,
          companies: 1,
          example: expect.objectContaining({ company, window: `${FROM}..${TO}` }),
        }),
      ]);
      expect(text).toMatch(/^Rejected records/m);
      expect(text).toMatch(/^\s+punches\s+point\/getFromPeriod\s+1\s+1\s/m);
      expect(text).toContain('1 rejected record open.');
      expect(await openGauge()).toEqual([
        { labels: { resource: 'punches', endpoint: 'point/getFromPeriod' }, value: 1 },
      ]);

      expect((await backfill('punches', FROM, TO)).failed).toBe(0);
      const open = await q<{ n: number }>(
        `select count(*)::int as n from $S.rejected_records where resolved_at is null`,
      );
      expect(open[0]!.n).toBe(0);
      expect((await statusOf(h.config())).report.rejections).toEqual([]);
      expect(await openGauge()).toEqual([]);
    });
  });

  describe('an empty answer for a window that held punches', () => {
    const FROM = '2026-08-01';
    const TO = '2026-08-31';

    beforeAll(async () => {
      expect((await backfill('punches', FROM, TO)).failed).toBe(0);
    }, 60_000);

    it('reads the window again and deletes nothing when the second answer has the rows', async () => {
      const before = await punches(FROM, TO);
      expect(before.stored.length).toBeGreaterThan(100);
      h.emulator.resetStats();
      h.emulator.queueFault({ kind: 'empty', endpoint: 'point/getFromPeriod', company, count: 1 });
      const summary = await backfill('punches', FROM, TO);
      expect(summary.failed, JSON.stringify(summary.failures)).toBe(0);
      expect(summary.deleted).toBe(0);
      expect(h.emulator.stats().requests[PERIOD]).toBe(2);
      expect((await punches(FROM, TO)).stored).toEqual(before.stored);
      const deleted = await q<{ n: number }>(
        `select count(*)::int as n from $S.punches where company_cnpj = $1 and deleted_at is not null`,
        [company],
      );
      expect(deleted[0]!.n).toBe(0);
    });

    it('does not re-read at once: one empty answer fails the attempt retryably, changes nothing and is remembered for the retry', async () => {
      const job = await windowJob('punches', FROM, TO);
      const before = await punches(FROM, TO);
      h.emulator.resetStats();
      h.emulator.queueFault({ kind: 'empty', endpoint: 'point/getFromPeriod', company, count: 1 });
      const err = await runSyncJob(rt, job).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SuspiciousAnswerError);
      expect(err).not.toBeInstanceOf(UnrecoverableError);
      // A glitch lasting a moment would answer an immediate re-read the same: the re-read waits for the job's back-off.
      expect(h.emulator.stats().requests[PERIOD]).toBe(1);
      expect((await punches(FROM, TO)).stored).toEqual(before.stored);
      const refused = (err as SuspiciousAnswerError).refused;
      expect(refused.map((r) => r.table).sort()).toEqual(['punches', 'work_days']);
      for (const r of refused) expect(r.removing).toBe(r.live);
      const stored = await rt.queues.sync.getJob(job.id!);
      expect(stored!.data.seenRemovals).toEqual(refused);

      // The retry reads the window again; its answer has the rows, so nothing is removed.
      const retried = await runSyncJob(rt, stored!);
      expect(retried).toMatchObject({ deleted: 0 });
      expect(h.emulator.stats().requests[PERIOD]).toBe(2);
      expect((await punches(FROM, TO)).stored).toEqual(before.stored);
    });
  });

  describe('an empty answer, then a second read that disagrees (a fan-out of days, some still empty)', () => {
    const FROM = '2026-07-01';
    const TO = '2026-07-31';
    const digest = async () =>
      q<{ d: string; n: number }>(
        `select md5(string_agg(balance_date || '|' || cpf || '|' || coalesce(deleted_at::text, '') || '|' || synced_at, ',' order by balance_date, cpf)) as d,
                count(*) filter (where deleted_at is null)::int as n
           from $S.hour_bank_balances where company_cnpj = $1`,
        [company],
      );

    it('fails retryably and changes nothing while the answers disagree, then succeeds on a retry whose answer is whole', async () => {
      expect((await backfill('hour_bank', FROM, TO)).failed).toBe(0);
      const before = await digest();
      expect(before[0]!.n).toBeGreaterThan(31);
      const days = daysOf({ from: FROM, to: TO }).length;
      const lastRun = async (id: string) =>
        (
          await q<{ status: string; error: string }>(
            `select status, error from $S.sync_runs where job_id = $1 order by id desc limit 1`,
            [id],
          )
        )[0];

      // First attempt: every day of the read is empty.
      h.emulator.queueFault({ kind: 'empty', endpoint: 'overtime', company, count: days });
      const job = await windowJob('hour_bank', FROM, TO);
      const first = await runSyncJob(rt, job).catch((e: unknown) => e);
      expect(first).toBeInstanceOf(SuspiciousAnswerError);
      expect(first).not.toBeInstanceOf(UnrecoverableError);
      expect((first as Error).message).toMatch(
        /would remove (\d+) of the window's \1 live hour_bank_balances rows; nothing was removed, the next attempt reads the window again/,
      );
      expect(h.emulator.queuedFaults()).toEqual([]);
      expect(await digest()).toEqual(before);
      expect(await lastRun(job.id!)).toMatchObject({
        status: 'failed',
        error: expect.stringMatching(/hour_bank: the answer would remove/),
      });

      // Second attempt: 20 of the days are still empty, so it disagrees with the first and is suspicious too.
      h.emulator.queueFault({ kind: 'empty', endpoint: 'overtime', company, count: 20 });
      const second = await runSyncJob(rt, (await rt.queues.sync.getJob(job.id!))!).catch((e: unknown) => e);
      expect(second).toBeInstanceOf(SuspiciousAnswerError);
      expect((second as Error).message).toMatch(
        /; the previous attempt's answer differed \((\d+) of \1 hour_bank_balances\); nothing was removed/,
      );
      expect(h.emulator.queuedFaults()).toEqual([]);
      expect(await digest()).toEqual(before);

      // Third attempt: the source answers whole again; nothing was ever removed.
      expect(await runSyncJob(rt, (await rt.queues.sync.getJob(job.id!))!)).toMatchObject({
        deleted: 0,
        inserted: 0,
      });
      expect(await digest()).toEqual(before);
    });
  });

  describe('a 200 that is not JSON', () => {
    it('retries an HTML page, and the window ends complete', async () => {
      const retries = await retryCount();
      h.emulator.queueFault({ kind: 'html', endpoint: 'point/getFromPeriod', company });
      const summary = await backfill('punches', '2026-07-01', '2026-07-31');
      expect(summary.failed, JSON.stringify(summary.failures)).toBe(0);
      expect(h.emulator.queuedFaults()).toEqual([]);
      expect(await retryCount()).toBe(retries + 1);
      const p = await punches('2026-07-01', '2026-07-31');
      expect(p.stored.length).toBeGreaterThan(100);
      expect(p.stored).toEqual(p.truth);
    });

    it('fails a window whose body was cut after some elements without keeping any of them, and its retry loads it whole', async () => {
      const FROM = '2026-06-01';
      const TO = '2026-06-05';
      const job = await windowJob('punches', FROM, TO);
      h.emulator.queueFault({ kind: 'cut', endpoint: 'point/getFromPeriod', company });
      const err = await runSyncJob(rt, job).catch((e: unknown) => e);
      // Elements had been handed over when the connection closed, so the job fails (retryably) rather than the call retrying.
      expect(err).not.toBeInstanceOf(UnrecoverableError);
      expect(err).toMatchObject({ retryable: true });
      const none = await q<{ n: number }>(
        `select count(*)::int as n from $S.work_days where company_cnpj = $1 and work_date between $2 and $3`,
        [company, FROM, TO],
      );
      expect(none[0]!.n).toBe(0);
      expect((await punches(FROM, TO)).stored).toEqual([]);

      await runSyncJob(rt, job);
      const p = await punches(FROM, TO);
      expect(p.stored.length).toBeGreaterThan(20);
      expect(p.stored).toEqual(p.truth);
    });
  });

  describe('a fan-out (the hour bank, one call per day) with a day the API refuses for good', () => {
    it('stops the other days, fails the window permanently and commits nothing of it', async () => {
      const FROM = '2026-08-01';
      const TO = '2026-08-31';
      h.emulator.resetStats();
      h.emulator.queueFault({ kind: 'refuse', endpoint: 'overtime', company });
      const summary = await backfill('hour_bank', FROM, TO);
      expect(summary.failed).toBe(1);
      expect(summary.failures[0]!.error).toMatch(/validation_failed/);
      const calls = h.emulator.stats().requests['GET /customer/v2/overtime'] ?? 0;
      // The refused call is among the first ones; once it failed no other day was asked for.
      expect(calls).toBeGreaterThan(0);
      expect(calls).toBeLessThan(daysOf({ from: FROM, to: TO }).length);
      const rows = await q<{ n: number }>(
        `select count(*)::int as n from $S.hour_bank_balances where company_cnpj = $1 and balance_date between $2 and $3`,
        [company, FROM, TO],
      );
      expect(rows[0]!.n).toBe(0);
    });
  });

  // Last: the split teaches this process a shorter span for the company's punches.
  describe('a 422 date_range_exceeded whose payload_data_required is null', () => {
    it('still splits the window, and loads both halves whole', async () => {
      const FROM = '2026-04-01';
      const TO = '2026-04-30';
      h.emulator.resetStats();
      h.emulator.queueFault({ kind: 'range-exceeded', endpoint: 'point/getFromPeriod', company });
      const summary = await backfill('punches', FROM, TO);
      expect(summary.failed, JSON.stringify(summary.failures)).toBe(0);
      expect(h.emulator.stats().requests[PERIOD]).toBe(3);
      const p = await punches(FROM, TO);
      expect(p.stored.length).toBeGreaterThan(100);
      expect(p.stored).toEqual(p.truth);
    });
  });
});

/** Retries of the API client counted by this process (all endpoints and reasons). */
async function retryCount(): Promise<number> {
  const metric = (await metricsRegistry.getMetricsAsJSON()).find(
    (m) => m.name === 'punchline_api_retries_total',
  );
  return ((metric?.values ?? []) as { value: number }[]).reduce((n, v) => n + v.value, 0);
}
