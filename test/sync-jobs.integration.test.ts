/**
 * Sync jobs against the emulator over HTTP, real Redis and real Postgres: what a job
 * does with a record of another company, a rejected token, a company outside the group,
 * a 429 it cannot wait out, a window the API finds too long; and schedule ticks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UnrecoverableError, type Job } from 'bullmq';
import { planSchedule } from '../jobs/plan-schedule.js';
import { ApiClient } from '../src/api/client.js';
import { jobIdFor } from '../src/plan/job-ids.js';
import type { SyncJobData } from '../src/plan/job-data.js';
import { runSyncJob } from '../src/runtime/run-job.js';
import type { SyncRuntime } from '../src/runtime/runtime.js';
import { startWorkers } from '../src/runtime/workers.js';
import { startHarness, type Harness } from './sync-harness.js';

const TODAY = '2026-10-31';

async function addJob(rt: SyncRuntime, data: SyncJobData, attempts?: number): Promise<Job> {
  return rt.queues.sync.add(data.resource, data, {
    jobId: jobIdFor(data),
    ...(attempts ? { attempts } : {}),
  });
}

async function runs(h: Harness, jobId: string) {
  const r = await h.pool.query<{ status: string; error: string | null; requests: number }>(
    `select status, error, requests from "${h.schema}".sync_runs where job_id = $1 order by id`,
    [jobId],
  );
  return r.rows;
}

describe('sync jobs', () => {
  let h: Harness;
  let rt: SyncRuntime;
  let hq: string;
  let branch: string;

  beforeAll(async () => {
    h = await startHarness('jobs', { today: TODAY });
    rt = await h.runtime();
    hq = h.emulator.companies[0]!.cnpj;
    branch = h.emulator.companies[1]!.cnpj;
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  describe("when a record's company block names another company", () => {
    it('fails the window permanently and loads nothing of it', async () => {
      // Unscoped, the headquarters token reads the headquarters: the branch's window gets foreign records.
      const job = await addJob(rt, {
        connection: 'default',
        resource: 'punches',
        company: branch,
        scoped: false,
        from: '2026-06-01',
        to: '2026-06-10',
      });
      const err = await runSyncJob(rt, job).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UnrecoverableError);
      expect((err as Error).message).toMatch(
        new RegExp(`belongs to company ${hq}, but company ${branch} was asked for`),
      );
      const n = await h.pool.query(`select count(*)::int as n from "${h.schema}".punches`);
      expect(n.rows[0].n).toBe(0);
      expect((await runs(h, job.id!)).map((r) => r.status)).toEqual(['failed']);
    });

    it('loads the same window when the company is asked for with company_national_registry', async () => {
      const job = await addJob(rt, {
        connection: 'default',
        resource: 'punches',
        company: branch,
        scoped: true,
        from: '2026-06-01',
        to: '2026-06-10',
      });
      const result = await runSyncJob(rt, job);
      expect(result.inserted).toBeGreaterThan(0);
      const ids = await h.pool.query<{ point_id: number }>(
        `select point_id from "${h.schema}".punches where company_cnpj = $1`,
        [branch],
      );
      expect(new Set(ids.rows.map((r) => Number(r.point_id)))).toEqual(
        new Set(h.emulator.truth.pointIds(branch, '2026-06-01', '2026-06-10')),
      );
    });
  });

  describe('audit photos (opt-in follow-up of a punches window)', () => {
    it('fetches the photo of every punch that has one, once', async () => {
      const data: SyncJobData = {
        connection: 'default',
        resource: 'audit_photos',
        company: branch,
        scoped: true,
        from: '2026-06-01',
        to: '2026-06-10',
      };
      const first = await runSyncJob(rt, await addJob(rt, data));
      const expected = await h.pool.query<{ n: number }>(
        `select count(*)::int as n from "${h.schema}".punches where company_cnpj = $1 and has_audit_photo`,
        [branch],
      );
      expect(expected.rows[0]!.n).toBeGreaterThan(0);
      expect(first.requests).toBe(expected.rows[0]!.n);
      const stored = await h.pool.query(
        `select count(*)::int as n from "${h.schema}".audit_photos a join "${h.schema}".punches p using (point_id)
          where p.company_cnpj = $1 and a.sha256 ~ '^[0-9a-f]{64}$'`,
        [branch],
      );
      expect(stored.rows[0].n).toBe(expected.rows[0]!.n);
      await rt.queues.sync.remove(jobIdFor(data));
      const again = await runSyncJob(rt, await addJob(rt, data));
      expect(again.requests).toBe(0);
    });

    it('is queued by the punches window when asked to follow up', async () => {
      const data: SyncJobData = {
        connection: 'default',
        resource: 'punches',
        company: branch,
        scoped: true,
        from: '2026-06-11',
        to: '2026-06-12',
        followUp: true,
      };
      const result = await runSyncJob(rt, await addJob(rt, data));
      const id = `audit_photos.default.${branch}.2026-06-11.2026-06-12`;
      expect(result.followUps).toEqual([{ queue: 'followups', id }]);
      expect(await rt.queues.followups.getJob(id)).toBeDefined();
    });
  });

  describe('a window inside the lookback horizon', () => {
    it('is synced but never recorded as done', async () => {
      const data: SyncJobData = {
        connection: 'default',
        resource: 'tardiness',
        company: hq,
        scoped: true,
        from: '2026-10-20',
        to: '2026-10-25',
      };
      const now = () => new Date('2026-11-10T12:00:00Z');
      const result = await runSyncJob(rt, await addJob(rt, data), { now });
      expect(result.recorded).toBe(false);
      const older: SyncJobData = { ...data, from: '2026-09-01', to: '2026-09-30' };
      expect((await runSyncJob(rt, await addJob(rt, older), { now })).recorded).toBe(true);
      const w = await h.pool.query(
        `select window_start::text from "${h.schema}".sync_windows where resource = 'tardiness'`,
      );
      expect(w.rows).toEqual([{ window_start: '2026-09-01' }]);
    });
  });

  describe('when the API rejects the token (401)', () => {
    it('hands the 401 on after one request, never as a permanent failure (job-guard.ts pauses the connection)', async () => {
      const bad = await h.runtime({ SERVICE_API_TOKEN: 'wrong-token-123456' });
      const first = await addJob(bad, {
        connection: 'default',
        resource: 'collaborators',
        company: hq,
        scoped: true,
      });
      const err = await runSyncJob(bad, first).catch((e: unknown) => e);
      expect(err).toMatchObject({ kind: 'invalid_service_token' });
      expect(err).not.toBeInstanceOf(UnrecoverableError);
      expect((err as Error).message).toMatch(/401 invalid_service_token/);
      expect((err as Error).message).not.toContain('wrong-token-123456');
      expect(h.emulator.stats().startsByToken['wrong-token-123456']).toHaveLength(1);
    });
  });

  describe('when a company is outside the group (404 company_not_found)', () => {
    it('fails the job and queues a new group walk', async () => {
      const gone = h.emulator.inactiveCompany.cnpj;
      const job = await addJob(rt, {
        connection: 'default',
        resource: 'collaborators',
        company: gone,
        scoped: true,
      });
      const err = await runSyncJob(rt, job).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UnrecoverableError);
      expect((err as Error).message).toMatch(/company_not_found.*a new group walk was queued/);
      const walk = await rt.queues.sync.getJob('companies.default');
      expect(walk?.data).toMatchObject({ resource: 'companies', origin: 'walk' });
      await walk!.remove();
    });
  });

  describe('when the API keeps answering 429', () => {
    it('puts the job back to wait, delayed, without using an attempt and without pausing the queue', async () => {
      // A client that does not wait 429s out itself, so the job sees rate_limited.
      const clients = new Map<string, ReturnType<SyncRuntime['client']>>();
      const impatient: SyncRuntime = {
        ...rt,
        client(name) {
          let c = clients.get(name);
          if (!c) {
            const base = rt.client(name);
            const api = new ApiClient({
              baseUrl: base.connection.baseUrl,
              token: base.connection.token,
              retryRateLimited: false,
              limiter: base.budget,
            });
            c = { ...base, api };
            clients.set(name, c);
          }
          return c;
        },
      };
      // jobs the tests above ran by hand are still waiting in the queue
      await rt.queues.sync.drain();
      h.emulator.setFaults({ rateLimitRps: 2 });
      const data: SyncJobData = {
        connection: 'default',
        resource: 'hour_bank',
        company: hq,
        scoped: true,
        from: '2026-06-01',
        to: '2026-06-12',
      };
      // one attempt only: a 429 that burned it would fail the job
      const job = await addJob(rt, data, 1);
      const pauses: number[] = [];
      const queue = rt.queues.sync;
      const rateLimit = queue.rateLimit.bind(queue);
      queue.rateLimit = async (ms: number) => {
        pauses.push(ms);
        return rateLimit(ms);
      };
      const pool = startWorkers(impatient, { concurrency: 1, queues: ['sync'] });
      try {
        const until = Date.now() + 30_000;
        while (!(await runs(h, job.id!)).some((r) => /: 429 /.test(r.error ?? ''))) {
          if (Date.now() > until)
            throw new Error(`no rate-limited run: ${JSON.stringify(await runs(h, job.id!))}`);
          await new Promise((r) => setTimeout(r, 100));
        }
        // only this connection waits (job-guard.ts): the queue, shared by every connection, runs on
        expect(pauses).toEqual([]);
        h.emulator.setFaults({ rateLimitRps: 0 });
        const deadline = Date.now() + 30_000;
        while ((await rt.queues.sync.getJobState(job.id!)) !== 'completed') {
          if (Date.now() > deadline) throw new Error(`job is ${await rt.queues.sync.getJobState(job.id!)}`);
          await new Promise((r) => setTimeout(r, 100));
        }
      } finally {
        h.emulator.setFaults({ rateLimitRps: 0 });
        queue.rateLimit = rateLimit;
        await pool.close();
        for (const c of clients.values()) await c.api.close();
      }
      const done = await rt.queues.sync.getJob(job.id!);
      expect(done!.attemptsMade).toBe(1);
      const statuses = (await runs(h, job.id!)).map((r) => r.status);
      expect(statuses.at(-1)).toBe('succeeded');
      expect(statuses.filter((s) => s === 'failed').length).toBeGreaterThanOrEqual(1);
      const days = await h.pool.query(
        `select count(distinct balance_date)::int as n from "${h.schema}".hour_bank_balances where company_cnpj = $1`,
        [hq],
      );
      expect(days.rows[0].n).toBe(12);
    }, 90_000);
  });

  describe('a schedule tick', () => {
    it('queues the nightly windows for today in the connection time zone, and a second tick queues none twice', async () => {
      const now = () => new Date('2026-10-20T12:00:00Z');
      const first = await planSchedule(rt, { connection: 'default', kind: 'nightly' }, { now });
      expect(first.today).toBe('2026-10-20');
      expect(first.added).toContain(`hour_totals.default.${hq}.2026-09-01.2026-09-30`);
      expect(first.added).toContain(`hour_totals.default.${branch}.2026-10-01.2026-10-31`);
      // The whole lookback horizon (35 days): hour-bank balances and the punches the 15-minute schedule leaves out.
      expect(first.added).toContain(`hour_bank.default.${hq}.2026-09-15.2026-09-30`);
      expect(first.added).toContain(`hour_bank.default.${hq}.2026-10-01.2026-10-20`);
      expect(first.added).toContain(`punches.default.${hq}.2026-10-01.2026-10-13`);
      expect(first.added).toContain(`absences.default.${hq}.2027-02-01.2027-02-17`);
      const again = await planSchedule(rt, { connection: 'default', kind: 'nightly' }, { now });
      expect(again.added).toEqual([]);
      expect(again.pending.sort()).toEqual([...first.added].sort());
      const job = await rt.queues.sync.getJob(`absences.default.${hq}.2026-10-01.2026-10-31`);
      expect(job?.data).toMatchObject({ scoped: true, followUp: true, origin: 'schedule' });
      await rt.queues.sync.obliterate({ force: true });
    });
  });
});

describe('when the API rejects exactly-31-day periods (strict emulator)', () => {
  let h: Harness;
  let rt: SyncRuntime;

  beforeAll(async () => {
    h = await startHarness('strict', { today: TODAY, strict: true });
    rt = await h.runtime();
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  it('splits the month in halves and loads each, equal to the emulator data', async () => {
    const cnpj = h.emulator.companies[0]!.cnpj;
    const data: SyncJobData = {
      connection: 'default',
      resource: 'hour_totals',
      company: cnpj,
      scoped: true,
      from: '2026-07-01',
      to: '2026-07-31',
    };
    const job = await addJob(rt, data);
    const result = await runSyncJob(rt, job);
    expect(result.requests).toBe(3); // 31 days refused, then 16 + 15
    const periods = await h.pool.query<{ p: string }>(
      `select distinct period_start || '..' || period_end as p from "${h.schema}".hour_totals order by 1`,
    );
    expect(periods.rows.map((r) => r.p)).toEqual(['2026-07-01..2026-07-16', '2026-07-17..2026-07-31']);
    const worked = await h.pool.query<{ cpf: string; s: number }>(
      `select cpf, worked_time_seconds as s from "${h.schema}".hour_totals where period_start = '2026-07-17'`,
    );
    const truth = h.emulator.truth.hourTotals(cnpj, '2026-07-17', '2026-07-31');
    expect(new Set(worked.rows.map((r) => `${r.cpf}:${r.s}`))).toEqual(
      new Set(truth.map((t) => `${t.cpf}:${t.totals.worked_time}`)),
    );
    // the planned window is the one recorded as done
    const w = await h.pool.query(
      `select window_start::text, window_end::text from "${h.schema}".sync_windows`,
    );
    expect(w.rows).toEqual([{ window_start: '2026-07-01', window_end: '2026-07-31' }]);
  });
});
