/**
 * End to end with worker processes: two `punchline worker` processes share one queue and
 * one request budget; a worker killed with SIGKILL mid-backfill loses nothing.
 */
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBackfillArgs } from '../src/backfill/args.js';
import { runBackfill } from '../src/backfill/run.js';
import type { SyncRuntime } from '../src/runtime/runtime.js';
import {
  compareWithTruth,
  maxInAnySecond,
  spawnPunchline,
  startHarness,
  type Harness,
} from './sync-harness.js';

const EMULATOR_TODAY = '2026-10-31';
const RPS = 20;
const CONCURRENCY = 3;

interface WorkerProcess {
  child: ChildProcess;
  pid: number;
  lines: string[];
  ready: Promise<Record<string, unknown>>;
  exited: Promise<number | null>;
}

/** Starts `punchline worker` and resolves `ready` with its "worker ready" log line. */
function startWorker(
  h: Harness,
  extraArgs: string[] = ['--no-schedules'],
  env: Record<string, string> = {},
): WorkerProcess {
  const child = spawnPunchline(
    ['worker', ...extraArgs],
    h.env({
      ...env,
      LOG_LEVEL: 'info',
      API_MAX_RPS: String(RPS),
      API_MAX_CONCURRENCY: String(CONCURRENCY),
      WORKER_CONCURRENCY: '2',
      WORKER_LOCK_MS: '3000',
    }),
  );
  const lines: string[] = [];
  const ready = new Promise<Record<string, unknown>>((resolve, reject) => {
    let buf = '';
    child.stderr!.on('data', (d) => {
      buf += String(d);
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, i);
        buf = buf.slice(i + 1);
        lines.push(line);
        try {
          const j = JSON.parse(line) as Record<string, unknown>;
          if (j.msg === 'worker ready') resolve(j);
        } catch {
          // not JSON (a crash trace): kept in lines
        }
      }
    });
    child.on('exit', (code) =>
      reject(new Error(`worker exited with ${code} before ready: ${lines.join('\n')}`)),
    );
  });
  ready.catch(() => undefined);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, pid: child.pid!, lines, ready, exited };
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('worker processes', () => {
  let h: Harness;
  let rt: SyncRuntime;
  const workers: WorkerProcess[] = [];

  beforeAll(async () => {
    h = await startHarness('workers', { today: EMULATOR_TODAY, latencyMs: 25 });
    rt = await h.runtime({ API_MAX_RPS: String(RPS), API_MAX_CONCURRENCY: String(CONCURRENCY) });
  }, 60_000);
  afterAll(async () => {
    for (const w of workers) if (w.child.exitCode === null) w.child.kill('SIGKILL');
    await h?.close();
  });

  describe('when two workers share one queue', () => {
    const FROM = '2026-06-01';
    const TO = '2026-06-30';

    it('finish a backfill with no duplicate work, both doing part, within the request budget', async () => {
      // A registers the schedules (patterns that cannot fire during the test) and serves the ops port.
      const never = '0 0 1 1 *';
      const a = startWorker(h, [], {
        SCHEDULES_ENABLED: '1',
        SCHEDULE_PUNCHES: never,
        SCHEDULE_DIRECTORY: never,
        SCHEDULE_NIGHTLY: never,
      });
      const b = startWorker(h, ['--no-schedules', '--no-ops']);
      workers.push(a, b);
      const readyA = await a.ready;
      await b.ready;
      const health = await fetch(`${String(readyA.ops)}/healthz`);
      expect(health.status).toBe(200);
      const schedulers = await rt.queues.schedules.getJobSchedulers(0, -1);
      expect(schedulers.map((x) => `${x.key}@${x.tz}`).sort()).toEqual([
        'directory.default@America/Sao_Paulo',
        'nightly.default@America/Sao_Paulo',
        'punches.default@America/Sao_Paulo',
      ]);

      h.emulator.resetStats();
      const summary = await runBackfill(rt, parseBackfillArgs({ from: FROM, to: TO }, rt.config), {
        work: false,
        pollMs: 200,
      });
      expect(summary.failed, JSON.stringify(summary.failures)).toBe(0);
      expect(summary.succeeded).toBe(summary.total);

      const runs = await h.pool.query<{ job_id: string; status: string; worker: string }>(
        `select job_id, status, worker from "${h.schema}".sync_runs`,
      );
      // every job ran exactly once
      const perJob = new Map<string, number>();
      for (const r of runs.rows) perJob.set(r.job_id, (perJob.get(r.job_id) ?? 0) + 1);
      expect([...perJob.values()].every((n) => n === 1)).toBe(true);
      expect(perJob.size).toBe(summary.total);
      expect(runs.rows.every((r) => r.status === 'succeeded')).toBe(true);
      // both processes did part of it
      const pids = new Set(runs.rows.map((r) => Number(r.worker.split(':').at(-1))));
      expect(pids).toEqual(new Set([a.pid, b.pid]));

      // the emulator never saw more than the budget
      const stats = h.emulator.stats();
      const starts = stats.startsByToken[h.emulator.headquartersToken] ?? [];
      // every request is accounted for: the jobs' and the two of the backfill's preflight group walk
      expect(starts.length).toBe(summary.requests + 2);
      expect(maxInAnySecond(starts)).toBeLessThanOrEqual(RPS);
      expect(maxInAnySecond(starts)).toBeGreaterThanOrEqual(RPS / 2); // the budget is used, not wasted
      expect(stats.maxInFlight).toBeLessThanOrEqual(CONCURRENCY);

      const diffs = await compareWithTruth(h, FROM, TO, EMULATOR_TODAY);
      for (const [category, d] of Object.entries(diffs)) {
        expect({ category, missing: d.missing, extra: d.extra }).toEqual({
          category,
          missing: [],
          extra: [],
        });
      }
    }, 120_000);

    it('stop gracefully on SIGTERM', async () => {
      for (const w of workers) w.child.kill('SIGTERM');
      const codes = await Promise.all(workers.map((w) => w.exited));
      expect(codes).toEqual([0, 0]);
      expect(workers[0]!.lines.some((l) => l.includes('worker stopped'))).toBe(true);
    }, 30_000);
  });

  describe('when a worker gets SIGTERM while it runs a job', () => {
    it('finishes the job, then exits 0', async () => {
      const w = startWorker(h, ['--no-schedules', '--no-ops']);
      workers.push(w);
      await w.ready;
      // one hour-bank window: a few dozen calls within the budget, several seconds of work
      const backfill = runBackfill(
        rt,
        parseBackfillArgs(
          {
            from: '2026-02-01',
            to: '2026-02-28',
            resources: 'hour_bank',
            company: h.emulator.companies[0]!.cnpj,
          },
          rt.config,
        ),
        { work: false, pollMs: 100 },
      );
      await waitFor('the job to start', async () => {
        const r = await h.pool.query(
          `select 1 from "${h.schema}".sync_runs where status = 'running' and worker like $1`,
          [`%:${w.pid}`],
        );
        return r.rows.length > 0;
      });
      w.child.kill('SIGTERM');
      expect(await w.exited).toBe(0);
      const runs = await h.pool.query<{ status: string; worker: string }>(
        `select status, worker from "${h.schema}".sync_runs where resource = 'hour_bank' and window_start = '2026-02-01'`,
      );
      expect(runs.rows).toEqual([
        { status: 'succeeded', worker: expect.stringMatching(new RegExp(`:${w.pid}$`)) },
      ]);
      const summary = await backfill;
      expect(summary.failed).toBe(0);
      expect(summary.succeeded).toBe(1);
    }, 60_000);
  });

  describe('when a worker is killed with SIGKILL mid-backfill', () => {
    const FROM = '2026-04-01';
    const TO = '2026-04-30';

    it('another worker completes the backfill with the same final state', async () => {
      const victim = startWorker(h, ['--no-schedules', '--no-ops']);
      workers.push(victim);
      await victim.ready;
      let queued: readonly string[] = [];
      const backfill = runBackfill(rt, parseBackfillArgs({ from: FROM, to: TO }, rt.config), {
        work: false,
        pollMs: 200,
        onQueued: (ids) => (queued = ids),
      });
      // kill it while it holds jobs, after it finished some
      await waitFor('the victim to finish some jobs and hold others', async () => {
        const r = await h.pool.query<{ done: number; running: number }>(
          `select count(*) filter (where status = 'succeeded')::int as done,
                  count(*) filter (where status = 'running')::int as running
             from "${h.schema}".sync_runs where window_start >= $1 and worker like $2`,
          [FROM, `%:${victim.pid}`],
        );
        return r.rows[0]!.done >= 3 && r.rows[0]!.running >= 1;
      });
      victim.child.kill('SIGKILL');
      expect(await victim.exited).toBeNull();

      const rescuer = startWorker(h, ['--no-schedules', '--no-ops']);
      workers.push(rescuer);
      const summary = await backfill;
      expect(queued.length).toBeGreaterThan(0);
      expect(summary.failed, JSON.stringify(summary.failures)).toBe(0);
      expect(summary.succeeded).toBe(summary.total);

      const runs = await h.pool.query<{ status: string; worker: string; error: string | null }>(
        `select status, worker, error from "${h.schema}".sync_runs where window_start >= $1 and window_end <= $2`,
        [FROM, TO],
      );
      // the killed run was closed as abandoned when its job ran again elsewhere
      expect(
        runs.rows.some(
          (r) =>
            r.status === 'failed' && /abandoned/.test(r.error ?? '') && r.worker.endsWith(`:${victim.pid}`),
        ),
      ).toBe(true);
      expect(runs.rows.some((r) => r.status === 'succeeded' && r.worker.endsWith(`:${rescuer.pid}`))).toBe(
        true,
      );
      expect(runs.rows.filter((r) => r.status === 'running')).toEqual([]);

      const diffs = await compareWithTruth(h, FROM, TO, EMULATOR_TODAY);
      for (const [category, d] of Object.entries(diffs)) {
        expect({ category, missing: d.missing, extra: d.extra }).toEqual({
          category,
          missing: [],
          extra: [],
        });
      }
      rescuer.child.kill('SIGTERM');
      expect(await rescuer.exited).toBe(0);
    }, 180_000);
  });
});
