/**
 * A revoked token (the emulator's admin route) under two running workers: the
 * connection pauses, its jobs wait without retrying in a storm or failing for good, the
 * token is re-checked by one cheap request per period between both workers, `/healthz`
 * says `degraded` with the reason (never the token) and `punchline status` shows the
 * pause; once the token is restored the connection resumes by itself.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBackfillArgs } from '../src/backfill/args.js';
import { runBackfill } from '../src/backfill/run.js';
import { enqueueJobs } from '../src/runtime/enqueue.js';
import { backfillItems, planJobs } from '../src/plan/planner.js';
import type { SyncRuntime } from '../src/runtime/runtime.js';
import { runPunchline, startHarness, type Harness } from './sync-harness.js';
import { startPunchlineProcess, waitUntil, type PunchlineProcess } from './support/punchline-process.js';

const RECHECK_MS = 2_000;
const WORKER_CONCURRENCY = 2;

interface Health {
  status: string;
  connections?: Record<string, { state: string; code?: string; reason?: string; nextCheckAt?: string }>;
}

describe('when the API revokes the token of a connection', () => {
  let h: Harness;
  let rt: SyncRuntime;
  let env: Record<string, string>;
  const workers: PunchlineProcess[] = [];

  beforeAll(async () => {
    h = await startHarness('revoked', { today: '2026-10-31', latencyMs: 20 });
    rt = await h.runtime();
    env = h.env({
      LOG_LEVEL: 'info',
      API_TOKEN_RECHECK_MS: String(RECHECK_MS),
      WORKER_CONCURRENCY: String(WORKER_CONCURRENCY),
    });
  }, 60_000);
  afterAll(async () => {
    for (const w of workers) if (w.child.exitCode === null) w.child.kill('SIGKILL');
    await h?.close();
  });

  it('pauses the connection, reports it, re-checks slowly across workers, and resumes by itself', async () => {
    const a = startPunchlineProcess(['worker', '--no-schedules'], env);
    const b = startPunchlineProcess(['worker', '--no-schedules', '--no-ops'], env);
    workers.push(a, b);
    const ops = String((await a.waitForLog('worker ready')).ops);
    await b.waitForLog('worker ready');
    const health = async (): Promise<{ code: number; text: string; body: Health }> => {
      const res = await fetch(`${ops}/healthz`);
      const text = await res.text();
      return { code: res.status, text, body: JSON.parse(text) as Health };
    };
    expect((await health()).body).toMatchObject({ status: 'ok', connections: { default: { state: 'ok' } } });

    const hq = h.emulator.companies[0]!;
    h.emulator.revokeToken(hq.cnpj);
    h.emulator.resetStats();
    const plan = planJobs({
      connection: 'default',
      companies: h.emulator.companies.map((c) => c.cnpj),
      scoped: true,
      items: backfillItems(['punches', 'tardiness'], '2026-08-01', '2026-09-30', '2026-10-31'),
      followUps: [],
      force: true,
      origin: 'backfill',
    });
    await enqueueJobs(rt.queues, plan.jobs);
    const ids = plan.jobs.map((j) => j.id);

    await waitUntil(
      'the connection to pause',
      async () => (await health()).body.connections?.default?.state === 'paused',
      30_000,
    );
    const paused = await health();
    expect(paused.code).toBe(200);
    expect(paused.body.status).toBe('degraded');
    expect(paused.body.connections!.default).toMatchObject({
      state: 'paused',
      code: 'invalid_service_token',
    });
    expect(paused.body.connections!.default!.reason).toMatch(/401 invalid_service_token/);
    expect(paused.text).not.toContain(hq.token);

    // Three re-check periods: the jobs wait, nothing fails, and both workers together make
    // about one request per period (plus the few 401s met before the pause was noticed).
    const startedAt = Date.now();
    await new Promise((r) => setTimeout(r, 3 * RECHECK_MS + 500));
    const starts = h.emulator.stats().startsByToken[hq.token] ?? [];
    const during = starts.filter((t) => t >= startedAt).length;
    expect(during).toBeGreaterThanOrEqual(2);
    expect(during).toBeLessThanOrEqual(5);
    expect(starts.length).toBeLessThanOrEqual(2 * WORKER_CONCURRENCY + 5);
    expect(await rt.queues.sync.getFailedCount()).toBe(0);
    const jobs = await Promise.all(ids.map((id) => rt.queues.sync.getJob(id)));
    expect(jobs.every((j) => j !== undefined && j.attemptsMade === 0)).toBe(true);
    expect(await rt.queues.sync.getCompletedCount()).toBe(0);
    expect(
      [
        ...a.logs('token still rejected: connection stays paused'),
        ...b.logs('token still rejected: connection stays paused'),
      ].length,
    ).toBeGreaterThan(0);

    const status = await runPunchline(['status'], h.env());
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/Paused connections/);
    expect(status.stdout).toMatch(/\n\s+default\s+\d{4}-\d{2}-\d{2} .*401 invalid_service_token/);
    expect(status.stdout).toMatch(/1 connection paused/);
    expect(status.stdout + status.stderr).not.toContain(hq.token);

    h.emulator.restoreToken(hq.cnpj);
    await waitUntil(
      'every job to complete',
      async () => (await rt.queues.sync.getCompletedCount()) === ids.length,
      60_000,
    );
    expect(await rt.queues.sync.getFailedCount()).toBe(0);
    const done = await Promise.all(ids.map((id) => rt.queues.sync.getJob(id)));
    expect(done.every((j) => j!.attemptsMade === 1)).toBe(true);
    expect((await health()).body).toMatchObject({ status: 'ok', connections: { default: { state: 'ok' } } });
    expect([...a.logs(/connection resumed/), ...b.logs(/connection resumed/)]).toHaveLength(1);

    for (const w of workers) w.child.kill('SIGTERM');
    expect(await Promise.all(workers.map((w) => w.exited))).toEqual([0, 0]);
  }, 150_000);

  it('lets a backfill whose preflight finds the token working lift a pause left behind', async () => {
    const { pauses } = rt.healing;
    await pauses.pause('default', 'invalid_service_token', 'left by an earlier 401');
    expect(rt.config.apiTokenRecheckMs).toBe(180_000);
    const summary = await runBackfill(
      rt,
      parseBackfillArgs(
        {
          from: '2026-07-01',
          to: '2026-07-31',
          resources: 'tardiness',
          company: h.emulator.companies[1]!.cnpj,
          force: true,
        },
        rt.config,
      ),
      { pollMs: 100 },
    );
    expect(summary).toMatchObject({ failed: 0, total: 1, succeeded: 1 });
    expect(await pauses.state('default')).toBeNull();
  }, 60_000);
});
