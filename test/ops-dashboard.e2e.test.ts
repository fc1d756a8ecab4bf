/**
 * The bull-board dashboard of a running `punchline worker`, seen through a real browser
 * (Debian's chromium, headless, driven by playwright-core): every queue is listed and a
 * job the worker completed shows up with its data; without an operator credential the
 * dashboard only reads, and with one a visitor sees no job and cannot write until they log in.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { runBackfill, type BackfillSummary } from '../src/backfill/run.js';
import { QUEUE_NAMES } from '../src/plan/resources.js';
import type { SyncRuntime } from '../src/runtime/runtime.js';
import { startHarness, type Harness } from './sync-harness.js';
import { startWorkerProcess, type WorkerProcess } from './ops-harness.js';
import { debianTool } from './support/debian-tools.js';

const chromiumTool = debianTool('chromium');
const TODAY = '2025-03-12';

let h: Harness;
let worker: WorkerProcess;
let browser: Browser;
let page: Page;
let summary: BackfillSummary;
let completedId: string;
let rt: SyncRuntime;
/** A job the worker failed for good (its data is not a sync job's). */
const FAILED_ID = 'broken-job';
const TOKEN = 'dashboard-operator-token-42';
const tokenDir = mkdtempSync(join(tmpdir(), 'punchline-dashboard-'));

/** The state and last finish time of the failed job. */
async function failedJob(): Promise<{ state: string; finishedOn?: number }> {
  const job = await rt.queues.sync.getJob(FAILED_ID);
  return { state: await rt.queues.sync.getJobState(FAILED_ID), finishedOn: job?.finishedOn };
}

/** Polls until `check` holds (bounded), then returns the last reading. */
async function until<T>(read: () => Promise<T>, check: (v: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const v = await read();
    if (check(v)) return v;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  if (chromiumTool.skip) return;
  const executablePath = chromiumTool.need();
  h = await startHarness('opsdash', { today: TODAY });
  worker = await startWorkerProcess(h, ['--no-schedules']);
  rt = await h.runtime();
  summary = await runBackfill(
    rt,
    {
      from: TODAY,
      to: TODAY,
      resources: ['companies'],
      connections: rt.config.connections,
      force: false,
      progress: false,
    },
    { work: false, pollMs: 100 },
  );
  const completed = await rt.queues.sync.getCompleted(0, 0);
  completedId = completed[0]!.id!;
  await rt.queues.sync.add('broken', { resource: 'nope' }, { jobId: FAILED_ID, attempts: 1 });
  await until(failedJob, (j) => j.state === 'failed', 'the broken job');
  browser = await chromium.launch({
    executablePath,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  page = await browser.newPage();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await worker?.stop();
  await h?.close();
  rmSync(tokenDir, { recursive: true, force: true });
});

describe.skipIf(chromiumTool.skip)('the dashboard of a running worker', () => {
  it('is where / leads, and lists every queue', async () => {
    expect(summary.failed, worker.stderr()).toBe(0);
    await page.goto(`${worker.url}/`);
    expect(new URL(page.url()).pathname).toBe('/dashboard');
    await expect(page.title()).resolves.toBe('punchline');
    for (const name of QUEUE_NAMES) {
      await page.getByRole('link', { name, exact: true }).first().waitFor({ timeout: 15_000 });
    }
  });

  it('shows the job the worker completed, with its data', async () => {
    await page.goto(`${worker.url}/dashboard/queue/sync?status=completed`);
    await page.getByText(completedId, { exact: true }).waitFor({ timeout: 15_000 });
    await page.getByText('"companies"').first().waitFor({ timeout: 15_000 });
    const body = await page.locator('body').innerText();
    expect(body).toMatch(/completed/i);
    expect(body).toContain(completedId);
  });
});

describe.skipIf(chromiumTool.skip)('without an operator credential (the default)', () => {
  it('shows the failed job without write buttons, and answers a write from the page with 403', async () => {
    await page.goto(`${worker.url}/dashboard/queue/sync?status=failed`);
    await page.getByText(FAILED_ID, { exact: true }).waitFor({ timeout: 15_000 });
    await expect(page.getByRole('button', { name: 'Retry all' }).count()).resolves.toBe(0);
    await expect(page.getByRole('button', { name: 'Clean all' }).count()).resolves.toBe(0);
    const before = await failedJob();
    const statuses = await page.evaluate(async (id) => {
      const put = async (path: string) =>
        (await fetch(`/dashboard/api/queues/sync/${path}`, { method: 'PUT' })).status;
      return [
        await put('retry/failed'),
        await put(`${id}/retry`),
        await put(`${id}/clean`),
        await put('pause'),
      ];
    }, FAILED_ID);
    expect(statuses).toEqual([403, 403, 403, 403]);
    expect(await failedJob()).toEqual(before);
    expect(await rt.queues.sync.isPaused()).toBe(false);
  });
});

describe.skipIf(chromiumTool.skip)('with an operator credential (OPS_DASHBOARD_TOKEN_FILE)', () => {
  let guarded: WorkerProcess;

  beforeAll(async () => {
    const file = join(tokenDir, 'dashboard-token');
    writeFileSync(file, `${TOKEN}\n`);
    guarded = await startWorkerProcess(h, ['--no-schedules'], { OPS_DASHBOARD_TOKEN_FILE: file });
  }, 60_000);
  afterAll(async () => {
    await guarded?.stop();
  });

  /** Clicks "Retry all" on the failed tab and confirms; resolves with the status of the PUT it sends. */
  async function retryAll(visitor: Page): Promise<number> {
    await visitor.goto(`${guarded.url}/dashboard/queue/sync?status=failed`);
    await visitor.getByText(FAILED_ID, { exact: true }).waitFor({ timeout: 15_000 });
    await visitor.getByRole('button', { name: 'Retry all' }).click();
    const answered = visitor.waitForResponse(
      (r) => r.request().method() === 'PUT' && r.url().endsWith('/retry/failed'),
    );
    await visitor.getByRole('button', { name: 'Confirm' }).click();
    return (await answered).status();
  }

  it('shows a visitor with a wrong token no job, and refuses their retry with 401', async () => {
    // The 401 challenges the browser to log in; this visitor answers the prompt with a wrong token.
    const context = await browser.newContext({
      httpCredentials: { username: 'operator', password: 'not-the-token-0000' },
    });
    try {
      const before = await failedJob();
      const visitor = await context.newPage();
      const page = await visitor.goto(`${guarded.url}/dashboard/queue/sync?status=failed`);
      expect(page?.status()).toBe(401);
      expect(await visitor.locator('body').innerText()).not.toContain(FAILED_ID);
      const statuses = await visitor.evaluate(async () => [
        (await fetch('/dashboard/api/queues?activeQueue=sync&status=failed')).status,
        (await fetch('/dashboard/api/queues/sync/retry/failed', { method: 'PUT' })).status,
      ]);
      expect(statuses).toEqual([401, 401]);
      expect(await failedJob()).toEqual(before);
    } finally {
      await context.close();
    }
  });

  it('lets the operator retry it, logged in with basic auth', async () => {
    const context = await browser.newContext({
      httpCredentials: { username: 'operator', password: TOKEN, send: 'always' },
    });
    try {
      const before = await failedJob();
      expect(await retryAll(await context.newPage())).toBeLessThan(300);
      // The retried job runs again (and fails again: its data is still broken).
      await until(
        failedJob,
        (j) => j.state === 'failed' && (j.finishedOn ?? 0) > (before.finishedOn ?? 0),
        'the retried job',
      );
    } finally {
      await context.close();
    }
  });
});
