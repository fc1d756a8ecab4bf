/**
 * A long `Retry-After` on one of two connections (PUNCHLINE_CONFIG with two tokens of the
 * emulator): only that connection waits, for at most API_MAX_RETRY_AFTER_MS, its jobs go
 * back to the queue without using an attempt, its shared request budget holds its
 * requests meanwhile, and the other connection keeps syncing.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueJobs } from '../src/runtime/enqueue.js';
import { backfillItems, planJobs } from '../src/plan/planner.js';
import { budgetKeys } from '../src/connections/request-budget.js';
import type { SyncRuntime } from '../src/runtime/runtime.js';
import { startWorkers, type WorkerPool } from '../src/runtime/workers.js';
import { startHarness, type Harness } from './sync-harness.js';
import { uniqueName } from './support/isolation.js';
import { waitUntil } from './support/punchline-process.js';

const CAP_MS = 1_500;
const RETRY_AFTER_S = 3_600;

describe('when the API answers one connection 429 with a Retry-After of an hour', () => {
  let h: Harness;
  let rt: SyncRuntime;
  let pool: WorkerPool | undefined;
  const file = join(tmpdir(), `${uniqueName('punchline-config')}.json`);

  beforeAll(async () => {
    h = await startHarness('ratelimit', { today: '2026-10-31', latencyMs: 20 });
    const [hq, , branch] = h.emulator.companies;
    writeFileSync(
      file,
      JSON.stringify({
        connections: [
          { name: 'hq', baseUrl: h.emulator.url, token: hq!.token, rateLimit: { rps: 20, concurrency: 2 } },
          {
            name: 'branch',
            baseUrl: h.emulator.url,
            token: branch!.token,
            rateLimit: { rps: 20, concurrency: 2 },
          },
        ],
      }),
    );
    rt = await h.runtime({ PUNCHLINE_CONFIG: file, API_MAX_RETRY_AFTER_MS: String(CAP_MS) });
  }, 60_000);
  afterAll(async () => {
    await pool?.close(true);
    await h?.close();
    rmSync(file, { force: true });
  });

  it('pauses only that connection, capped, without using attempts, while the other keeps syncing', async () => {
    const [hq, , branch] = h.emulator.companies;
    const items = backfillItems(
      ['punches', 'tardiness', 'inconsistencies'],
      '2026-08-01',
      '2026-09-30',
      '2026-10-31',
    );
    const plan = (connection: string, company: string, scoped: boolean) =>
      planJobs({
        connection,
        companies: [company],
        scoped,
        items,
        followUps: [],
        force: true,
        origin: 'backfill',
      }).jobs;
    const hqJobs = plan('hq', hq!.cnpj, true);
    const branchJobs = plan('branch', branch!.cnpj, false);
    h.emulator.queueFault({
      kind: 'rate-limit',
      company: hq!.cnpj,
      retryAfterSeconds: RETRY_AFTER_S,
      count: 4,
    });
    await enqueueJobs(rt.queues, [...hqJobs, ...branchJobs]);

    const blocked = budgetKeys(rt.config.queuePrefix, 'hq').blocked;
    let longestBlockMs = 0;
    const state = async (ids: { id: string }[]) =>
      Promise.all(ids.map((j) => rt.queues.sync.getJobState(j.id)));
    // A pause of the whole queue would stop the other connection too: it must never happen.
    const queuePauses: number[] = [];
    const rateLimit = rt.queues.sync.rateLimit.bind(rt.queues.sync);
    rt.queues.sync.rateLimit = async (ms: number) => {
      queuePauses.push(ms);
      return rateLimit(ms);
    };
    pool = startWorkers(rt, { concurrency: 2, queues: ['sync'] });

    // Waits for `jobs` to complete, sampling how long the rate-limited connection is blocked.
    const completed = (what: string, jobs: { id: string }[]) =>
      waitUntil(
        what,
        async () => {
          longestBlockMs = Math.max(longestBlockMs, await h.redis.pttl(blocked));
          return (await state(jobs)).every((s) => s === 'completed');
        },
        60_000,
      );
    await completed("the other connection's jobs to complete", branchJobs);
    await completed("the rate-limited connection's jobs to complete once the 429s stop", hqJobs);

    expect(h.emulator.queuedFaults()).toEqual([]);
    // the API's hour was capped: the connection's budget held its requests, at most CAP_MS at a time
    expect(longestBlockMs).toBeGreaterThan(0);
    expect(longestBlockMs).toBeLessThanOrEqual(CAP_MS);
    // no attempt was used by a 429, nothing failed, and the queue itself was never paused
    const jobs = await Promise.all(hqJobs.map((j) => rt.queues.sync.getJob(j.id)));
    expect(jobs.map((j) => j!.attemptsMade)).toEqual(hqJobs.map(() => 1));
    expect(await rt.queues.sync.getFailedCount()).toBe(0);
    expect(queuePauses).toEqual([]);
    const runs = await h.pool.query<{ n: number }>(
      `select count(*)::int as n from "${h.schema}".sync_runs where connection = 'hq' and status = 'failed' and error like '%429%'`,
    );
    expect(runs.rows[0]!.n).toBeGreaterThan(0);
  }, 150_000);
});
