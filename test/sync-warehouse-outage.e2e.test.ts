/**
 * A Postgres restart in the middle of a backfill, played with a TCP proxy in front of
 * the shared Postgres (every open connection reset, new ones refused for a few seconds):
 * neither the worker nor the running backfill crashes, no window fails, the jobs wait
 * for the warehouse with a logged back-off, and the warehouse ends equal to the source.
 * An outage longer than a job may wait in-process sends the jobs back to the queue
 * without using their attempts.
 */
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareWithTruth, startHarness, type Harness } from './sync-harness.js';
import { startPunchlineProcess, waitUntil, type PunchlineProcess } from './support/punchline-process.js';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy.js';
import { TEST_DATABASE_URL } from './support/isolation.js';

const FROM = '2026-05-01';
const TO = '2026-07-31';
const EMULATOR_TODAY = '2026-10-31';
const OUTAGE_MS = 5_000;

describe('when Postgres restarts during a backfill', () => {
  let h: Harness;
  let proxy: TcpProxy;
  let env: Record<string, string>;
  const processes: PunchlineProcess[] = [];

  beforeAll(async () => {
    h = await startHarness('pgoutage', { today: EMULATOR_TODAY, latencyMs: 30 });
    const real = new URL(TEST_DATABASE_URL);
    proxy = await startTcpProxy({ host: real.hostname, port: Number(real.port || 5432) });
    const viaProxy = new URL(TEST_DATABASE_URL);
    viaProxy.port = String(proxy.port);
    env = h.env({
      DATABASE_URL: viaProxy.toString(),
      LOG_LEVEL: 'info',
      API_MAX_RPS: '30',
      WORKER_CONCURRENCY: '2',
      WAREHOUSE_WAIT_MS: '30000',
      WAREHOUSE_RETRY_MAX_MS: '1000',
    });
  }, 60_000);
  afterAll(async () => {
    for (const p of processes) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    await proxy?.close();
    await h?.close();
  });

  it('neither the worker nor the backfill crashes, no job fails, and the data ends complete', async () => {
    const worker = startPunchlineProcess(['worker', '--no-ops', '--no-schedules'], env);
    processes.push(worker);
    await worker.waitForLog('worker ready');
    const backfill = startPunchlineProcess(['backfill', '--from', FROM, '--to', TO, '--no-progress'], env);
    processes.push(backfill);

    // Restart in the middle: some windows done, the warehouse busy.
    await waitUntil(
      'a few windows to be loaded',
      async () => {
        const r = await h.pool
          .query(`select count(*)::int as n from "${h.schema}".sync_runs where status = 'succeeded'`)
          .catch(() => null);
        return (
          (r?.rows[0] as { n: number } | undefined)?.n !== undefined && (r!.rows[0] as { n: number }).n >= 6
        );
      },
      90_000,
    );
    expect(proxy.open).toBeGreaterThan(0);
    await proxy.down();
    await new Promise((r) => setTimeout(r, OUTAGE_MS));
    await proxy.up();

    const code = await backfill.exited;
    const summary = backfill.stdout();
    expect({
      code,
      summary,
      tail: backfill.lines.filter((l) => !l.startsWith('{')).slice(-15),
    }).toMatchObject({ code: 0 });
    expect(summary).toMatch(/ 0 failed/);
    expect(worker.child.exitCode).toBeNull();

    // The outage was met and waited out with a logged back-off, not crashed through.
    const waits = [
      ...worker.logs('warehouse unreachable; waiting for it'),
      ...backfill.logs('warehouse unreachable; waiting for it'),
    ];
    expect(waits.length).toBeGreaterThan(0);
    expect(waits.every((w) => typeof w.nextCheckMs === 'number' && (w.nextCheckMs as number) <= 1000)).toBe(
      true,
    );
    expect(
      [...worker.logs('warehouse reachable again'), ...backfill.logs('warehouse reachable again')].length,
    ).toBeGreaterThan(0);
    expect([...worker.lines, ...backfill.lines].some((l) => /Unhandled 'error' event/.test(l))).toBe(false);

    expect(await h.redis.zcard(`${h.prefix}:sync:failed`)).toBe(0);
    const diffs = await compareWithTruth(h, FROM, TO, EMULATOR_TODAY);
    for (const [category, d] of Object.entries(diffs)) {
      expect({ category, missing: d.missing, extra: d.extra }).toEqual({ category, missing: [], extra: [] });
    }

    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
  }, 240_000);

  it('an outage longer than a job may wait in-process puts the jobs back in the queue, using no attempt, and they finish once it is back', async () => {
    const shortWait = { ...env, WAREHOUSE_WAIT_MS: '1000', WAREHOUSE_RETRY_MAX_MS: '250' };
    const worker = startPunchlineProcess(['worker', '--no-ops', '--no-schedules'], shortWait);
    processes.push(worker);
    await worker.waitForLog('worker ready');
    const [from, to] = ['2026-08-01', '2026-09-30'];
    const backfill = startPunchlineProcess(
      ['backfill', '--from', from, '--to', to, '--resources', 'punches,tardiness,hour_bank', '--no-progress'],
      shortWait,
    );
    processes.push(backfill);
    const since = new Date();
    await waitUntil(
      'a window to be loaded',
      async () => {
        const r = await h.pool
          .query(
            `select count(*)::int as n from "${h.schema}".sync_runs where status = 'succeeded' and started_at >= $1`,
            [since],
          )
          .catch(() => null);
        return ((r?.rows[0] as { n: number } | undefined)?.n ?? 0) >= 2;
      },
      90_000,
    );
    // Longer than the job's whole retry schedule (2 + 4 + 8 + 16 s of back-off would be
    // spent in about a dozen seconds of waits of 1 s): were a put-back an attempt, jobs would fail.
    await proxy.down();
    await new Promise((r) => setTimeout(r, 12_000));
    await proxy.up();

    const code = await backfill.exited;
    expect({ code, tail: backfill.lines.filter((l) => !l.startsWith('{')).slice(-15) }).toMatchObject({
      code: 0,
    });
    expect(backfill.stdout()).toMatch(/ 0 failed/);
    expect(worker.child.exitCode).toBeNull();
    const putBack = [...worker.logs(/^job put back to wait/), ...backfill.logs(/^job put back to wait/)];
    expect(putBack.length).toBeGreaterThan(0);
    expect(putBack.every((l) => /warehouse/.test(String(l.msg)))).toBe(true);

    // No job used more than the one attempt that succeeded.
    const queue = new Queue('sync', { connection: h.redis.duplicate(), prefix: h.prefix });
    try {
      const jobs = (await queue.getCompleted(0, -1)).filter((j) => (j.finishedOn ?? 0) >= since.getTime());
      expect(jobs.length).toBeGreaterThan(4);
      expect(jobs.filter((j) => j.attemptsMade !== 1).map((j) => `${j.id}: ${j.attemptsMade}`)).toEqual([]);
    } finally {
      await queue.close();
    }
    expect(await h.redis.zcard(`${h.prefix}:sync:failed`)).toBe(0);
    const diffs = await compareWithTruth(h, from, to, EMULATOR_TODAY);
    for (const category of ['punches', 'tardiness', 'hourBank']) {
      expect({ category, missing: diffs[category]!.missing, extra: diffs[category]!.extra }).toEqual({
        category,
        missing: [],
        extra: [],
      });
    }

    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
  }, 240_000);
});
