/**
 * The bull-board dashboard of a running `punchline worker`, seen through a real browser
 * (Debian's chromium, headless, driven by playwright-core): every queue is listed and a
 * job the worker completed shows up with its data.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { runBackfill, type BackfillSummary } from '../src/sync/backfill.js';
import { QUEUE_NAMES } from '../src/sync/queues.js';
import { startHarness, type Harness } from './sync-harness.js';
import { startWorkerProcess, type WorkerProcess } from './ops-harness.js';

const CHROMIUM = '/usr/bin/chromium';
const TODAY = '2025-03-12';

let h: Harness;
let worker: WorkerProcess;
let browser: Browser;
let page: Page;
let summary: BackfillSummary;
let completedId: string;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: install it with \`apt-get install -y chromium\` (.ci/run does)`);
  }
  h = await startHarness('opsdash', { today: TODAY });
  worker = await startWorkerProcess(h, ['--no-schedules']);
  const rt = await h.runtime();
  summary = await runBackfill(
    rt,
    { from: TODAY, to: TODAY, resources: ['companies'], connections: rt.config.connections, force: false, progress: false },
    { work: false, pollMs: 100 },
  );
  const completed = await rt.queues.sync.getCompleted(0, 0);
  completedId = completed[0]!.id!;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
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
});

describe('the dashboard of a running worker', () => {
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
