/**
 * `/metrics` of a real `punchline worker` process after a small sync through the
 * emulator: the API request, job and row figures are those of the work the worker did,
 * and freshness comes from the warehouse.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBackfill, type BackfillSummary } from '../src/backfill/run.js';
import { startHarness, type Harness } from './sync-harness.js';
import { sample, samples, startWorkerProcess, type WorkerProcess } from './ops-harness.js';

const TODAY = '2025-03-12';
let h: Harness;
let worker: WorkerProcess;
let before: string;
let after: string;
let summary: BackfillSummary;

const scrape = async () => {
  const res = await fetch(`${worker.url}/metrics`);
  expect(res.status).toBe(200);
  return res.text();
};

beforeAll(async () => {
  h = await startHarness('opsmetrics', { today: TODAY });
  worker = await startWorkerProcess(h, ['--no-schedules']);
  before = await scrape();
  // Queue the jobs without working on them here: the worker process does the work.
  const rt = await h.runtime();
  summary = await runBackfill(
    rt,
    {
      from: '2025-03-03',
      to: '2025-03-07',
      resources: ['companies', 'collaborators', 'punches'],
      connections: rt.config.connections,
      force: false,
      progress: false,
    },
    { work: false, pollMs: 100 },
  );
  after = await scrape();
}, 120_000);

afterAll(async () => {
  await worker?.stop();
  await h?.close();
});

describe('the worker /metrics after a small sync', () => {
  it('synced without failures (the premise)', () => {
    expect(summary.failed, worker.stderr()).toBe(0);
    expect(summary.succeeded).toBeGreaterThanOrEqual(1 + 2 * h.emulator.companies.length);
  });

  it('counts the API requests the worker made, by endpoint and status', () => {
    expect(samples(before, 'punchline_api_requests_total')).toEqual([]);
    const points = samples(after, 'punchline_api_requests_total', {
      endpoint: 'point/getFromPeriod',
      status: '200',
    });
    expect(points.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(h.emulator.companies.length);
    const all = samples(after, 'punchline_api_requests_total').reduce((a, b) => a + b, 0);
    expect(all).toBe(summary.requests);
    expect(samples(after, 'punchline_api_request_duration_seconds_count').reduce((a, b) => a + b, 0)).toBe(
      all,
    );
  });

  it('counts every job the worker completed and their durations', () => {
    const completed = samples(after, 'punchline_jobs_total', { state: 'completed' }).reduce(
      (a, b) => a + b,
      0,
    );
    // The backfill's jobs, and the marts' follow-ups this worker took (the backfill's process takes them too).
    const marts = samples(after, 'punchline_jobs_total', { queue: 'marts', state: 'completed' }).reduce(
      (a, b) => a + b,
      0,
    );
    expect(completed - marts).toBe(summary.succeeded);
    expect(samples(after, 'punchline_job_duration_seconds_count').reduce((a, b) => a + b, 0)).toBe(completed);
    expect(sample(after, 'punchline_queue_jobs', { queue: 'sync', state: 'completed' })).toBeGreaterThan(0);
    expect(sample(after, 'punchline_queue_jobs', { queue: 'sync', state: 'failed' })).toBe(0);
  });

  it('counts the rows loaded, matching the warehouse', async () => {
    const { rows } = await h.pool.query<{ n: number }>(
      `select count(*)::int as n from "${h.schema}".punches`,
    );
    expect(rows[0]!.n).toBeGreaterThan(0);
    expect(sample(after, 'punchline_rows_loaded_total', { table: 'punches', action: 'inserted' })).toBe(
      rows[0]!.n,
    );
    expect(samples(before, 'punchline_rows_loaded_total')).toEqual([]);
  });

  it('reports seconds since the last successful sync per company and resource', () => {
    for (const c of h.emulator.companies) {
      const age = sample(after, 'punchline_sync_age_seconds', { company: c.cnpj, resource: 'punches' });
      expect(age).toBeGreaterThanOrEqual(0);
      expect(age).toBeLessThan(120);
    }
    expect(
      sample(after, 'punchline_sync_age_seconds', { company: 'group', resource: 'companies' }),
    ).toBeLessThan(120);
  });
});
