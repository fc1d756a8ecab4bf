/**
 * The status page of a running `punchline worker` (`/status` on the ops port), seen
 * through a real browser (Debian's chromium, headless, driven by playwright-core) over a
 * warehouse of 200 companies: the grid has a cell per company × resource coloured by its
 * age (fresh, aging, stale, never synced), stale companies first; the failed jobs the
 * worker failed, the paused connection, the rejected records and the failing quality
 * check are shown; it links to the queue dashboard, loads nothing but itself, shows no
 * person's data, and serves the same report as `punchline status --json` at
 * `/status.json`. A full-page screenshot is taken and checked for size.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { ConnectionPauses } from '../src/connections/connection-pause.js';
import type { SyncRuntime } from '../src/runtime/runtime.js';
import type { StatusReport } from '../src/reports/status-report.js';
import { runPunchline, startHarness, type Harness } from './sync-harness.js';
import { startWorkerProcess, type WorkerProcess } from './ops-harness.js';
import { debianTool } from './support/debian-tools.js';

const chromiumTool = debianTool('chromium');
const TODAY = '2025-03-12';
const COMPANIES = 200;
const RESOURCES = [
  'lookups',
  'collaborators',
  'punches',
  'hour_totals',
  'tardiness',
  'adjustments',
  'inconsistencies',
  'hour_bank',
  'absences',
  'absence_attachments',
];
/** Companies 0–9: punches three hours old (stale); 10–14: hour_totals never synced; 15–29: punches 45 minutes old (aging). */
const STALE = 10;
const NEVER = 5;
const AGING = 15;
/** Personal data held by the warehouse rows the page summarises: none of it may appear on the page. */
const CPF = '52998224725';
const NAME = 'Maria Aparecida dos Santos';
const FAILED_JOBS = 3;
/** The computed background of each state's cell (the page's palette). */
const COLOURS = { fresh: 'rgb(45, 164, 78)', aging: 'rgb(212, 160, 23)', stale: 'rgb(207, 34, 46)' } as const;

const cnpj = (i: number) => `${String(40_000_000 + i)}000155`;
const shots = mkdtempSync(join(tmpdir(), 'punchline-status-page-'));

let h: Harness;
let rt: SyncRuntime;
let worker: WorkerProcess;
let browser: Browser;
let page: Page;
const requested: string[] = [];

/** Minutes since the last successful run of `resource` of company `i`, or null when it never ran. */
function minutesAgo(i: number, resource: string): number | null {
  if (resource === 'punches' && i < STALE) return 180;
  if (resource === 'hour_totals' && i >= STALE && i < STALE + NEVER) return null;
  if (resource === 'punches' && i >= STALE + NEVER && i < STALE + NEVER + AGING) return 45;
  return resource === 'punches' ? 5 : 50;
}

/** The sync's bookkeeping of 200 companies as the sync writes it: one succeeded run per company × resource. */
async function seedWarehouse(): Promise<void> {
  const rows: unknown[][] = [[null, 'companies', 20]];
  for (let i = 0; i < COMPANIES; i++) {
    for (const r of RESOURCES) {
      const m = minutesAgo(i, r);
      if (m !== null) rows.push([cnpj(i), r, m]);
    }
  }
  await h.pool.query(
    `insert into "${h.schema}".sync_runs (job_id, connection, resource, company_cnpj, status, attempt, started_at, finished_at)
     select r->>1 || '.default.' || coalesce(r->>0, 'group'), 'default', r->>1, r->>0, 'succeeded', 1,
            now() - make_interval(mins => (r->>2)::int + 1), now() - make_interval(mins => (r->>2)::int)
       from jsonb_array_elements($1::jsonb) r`,
    [JSON.stringify(rows)],
  );
  // A rejected record and a failing check, each about a person: the page summarises them without the person.
  await h.pool.query(
    `insert into "${h.schema}".rejected_records (connection, resource, endpoint, company_cnpj, window_start, window_end, element_index, json_path, reason, record)
     values ('default', 'punches', 'point/getFromPeriod', $1, '2025-02-01', '2025-02-28', 3, 'data[3].days[4].points[1]', 'datetime: expected a date-time', $2)`,
    [cnpj(3), JSON.stringify({ national_registry: CPF, name: NAME, datetime: 'yesterday' })],
  );
  await h.pool.query(
    `insert into "${h.schema}".quality_checks (check_name, company_cnpj, part, scope, cpf, measure, expected, actual, status, detail)
     values ('totals_vs_days', $1, '2025-02-01..2025-02-28', 'record 2020-07-27', $2, 'seconds', 274336, 303136, 'fail', 'worked_actual_time of the totals 84:12:16, sum of the days 76:12:16')`,
    [cnpj(4), CPF],
  );
}

/** Queues jobs the worker cannot run (a connection it does not configure): it fails each for good. */
async function failJobs(): Promise<void> {
  for (let i = 0; i < FAILED_JOBS; i++) {
    const data = {
      connection: 'elsewhere',
      resource: 'punches',
      company: cnpj(i),
      from: '2025-02-01',
      to: '2025-02-28',
    };
    await rt.queues.sync.add('punches', data, { jobId: `punches.elsewhere.${cnpj(i)}`, attempts: 1 });
  }
  const deadline = Date.now() + 30_000;
  while ((await rt.queues.sync.getFailedCount()) < FAILED_JOBS) {
    if (Date.now() > deadline) throw new Error(`the worker did not fail the jobs: ${worker.stderr()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Width and height of a PNG, from its header. */
function pngSize(file: string): { width: number; height: number; bytes: number } {
  const png = readFileSync(file);
  expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20), bytes: png.length };
}

beforeAll(async () => {
  if (chromiumTool.skip) return;
  const executablePath = chromiumTool.need();
  h = await startHarness('statuspage', { today: TODAY });
  rt = await h.runtime();
  await seedWarehouse();
  worker = await startWorkerProcess(h, ['--no-schedules']);
  await failJobs();
  await new ConnectionPauses({ redis: h.redis, prefix: h.prefix, recheckMs: 180_000 }).pause(
    'default',
    'invalid_service_token',
    'collaborator: 401 invalid_service_token: the token is invalid',
  );
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
  page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  page.on('request', (r) => requested.push(r.url()));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await worker?.stop();
  await h?.close();
  rmSync(shots, { recursive: true, force: true });
});

describe.skipIf(chromiumTool.skip)('the status page of a worker watching 200 companies', () => {
  it('answers from the ops port with a page that may load nothing but itself', async () => {
    const res = await page.goto(`${worker.url}/status`);
    expect(res!.status()).toBe(200);
    expect(res!.headers()['content-type']).toMatch(/^text\/html/);
    expect(res!.headers()['content-security-policy']).toMatch(/default-src 'none'/);
    await expect(page.title()).resolves.toBe('punchline status');
    expect(requested.filter((u) => !u.startsWith(`${worker.url}/status`))).toEqual([]);
  });

  it('colours every company × resource by its age, stale companies first', async () => {
    const cells = page.locator('table.grid td.cell[data-company]');
    await expect(cells.count()).resolves.toBe(COMPANIES * RESOURCES.length);
    const attributes = await page.$$eval('table.grid td.cell[data-company]', (tds) =>
      tds.map((td) => ({
        company: td.getAttribute('data-company')!,
        resource: td.getAttribute('data-resource')!,
        state: td.getAttribute('data-state')!,
        cls: td.className,
      })),
    );
    // The colour the browser paints each cell (a script string: these tests are typed without the DOM library).
    const colours = (await page.evaluate(
      "[...document.querySelectorAll('table.grid td.cell[data-company]')].map((td) => getComputedStyle(td).backgroundColor)",
    )) as string[];
    const states = attributes.map((a, i) => ({ ...a, bg: colours[i] }));
    const of = (i: number, resource: string) =>
      states.find((s) => s.company === cnpj(i) && s.resource === resource)!;
    for (let i = 0; i < STALE; i++)
      expect(of(i, 'punches')).toMatchObject({ state: 'stale', cls: 'cell stale', bg: COLOURS.stale });
    for (let i = STALE; i < STALE + NEVER; i++)
      expect(of(i, 'hour_totals')).toMatchObject({ state: 'never', cls: 'cell never' });
    for (let i = STALE + NEVER; i < STALE + NEVER + AGING; i++)
      expect(of(i, 'punches')).toMatchObject({ state: 'aging', cls: 'cell aging', bg: COLOURS.aging });
    expect(of(150, 'punches')).toMatchObject({ state: 'fresh', bg: COLOURS.fresh });
    expect(of(150, 'absences')).toMatchObject({ state: 'fresh', bg: COLOURS.fresh });
    const count = (state: string) => states.filter((s) => s.state === state).length;
    expect([count('stale'), count('never'), count('aging'), count('fresh')]).toEqual([
      STALE,
      NEVER,
      AGING,
      COMPANIES * RESOURCES.length - STALE - NEVER - AGING,
    ]);
    // Worst first: the 15 companies with a stale or never-synced resource lead the grid, then the aging ones.
    const order = await page.$$eval('table.grid tbody tr', (trs) =>
      trs.map((tr) => tr.getAttribute('data-company')!),
    );
    expect(order).toHaveLength(COMPANIES);
    expect(new Set(order.slice(0, STALE + NEVER))).toEqual(
      new Set(Array.from({ length: STALE + NEVER }, (_, i) => cnpj(i))),
    );
    expect(new Set(order.slice(STALE + NEVER, STALE + NEVER + AGING))).toEqual(
      new Set(Array.from({ length: AGING }, (_, i) => cnpj(STALE + NEVER + i))),
    );
    // Blocks of 50 companies side by side keep the grid a screen high.
    await expect(page.locator('table.grid').count()).resolves.toBe(4);
    const grid = (await page.locator('.blocks').boundingBox())!;
    expect(grid.height).toBeLessThan(1100);
  });

  it('sums freshness per resource and says what status --check fails on', async () => {
    const punches = page
      .locator('table.list tr', { has: page.locator('td', { hasText: /^punches$/ }) })
      .first();
    await expect(punches.locator('td').allInnerTexts()).resolves.toEqual([
      'punches',
      String(COMPANIES - STALE - AGING),
      String(AGING),
      String(STALE),
      '0',
      '3h 00m',
    ]);
    const verdict = await page.locator('#verdict').innerText();
    expect(verdict).toContain(`${STALE + NEVER} company × resource pairs stale`);
    expect(verdict).toContain(`${FAILED_JOBS} jobs failed`);
    expect(verdict).toContain('connection "default" paused (invalid_service_token)');
    await expect(page.locator('#verdict').getAttribute('class')).resolves.toBe('verdict problem');
  });

  it('shows the failed jobs, the paused connection, the open rejection and the failing check', async () => {
    const failing = await page.locator('#failing').innerText();
    for (let i = 0; i < FAILED_JOBS; i++) expect(failing).toContain(cnpj(i));
    expect(failing).toMatch(/job names connection "elsewhere", which this worker does not configure/);
    expect(await page.locator('#paused').innerText()).toMatch(/default\s+invalid_service_token/);
    expect(await page.locator('#rejections').innerText()).toMatch(/punches\s+point\/getFromPeriod\s+1\s+1/);
    expect(await page.locator('#quality').innerText()).toMatch(/totals_vs_days\s+0\s+0\s+1\s+1/);
  });

  it('shows no personal data of the rows it summarises', async () => {
    const html = await page.content();
    expect(html).not.toContain(CPF);
    expect(html).not.toContain(NAME);
  });

  it('folds the long list of companies that are not fresh, and opens it on a click', async () => {
    const details = page.locator('details#behind');
    await expect(details.getAttribute('open')).resolves.toBeNull();
    await details.locator('summary').click();
    await expect(details.getAttribute('open')).resolves.toBe('');
    await expect(details.locator('tbody tr').count()).resolves.toBe(STALE + NEVER + AGING);
  });

  it('makes a screenshot that holds the whole page', async () => {
    const file = join(shots, 'status.png');
    await page.screenshot({ path: file, fullPage: true });
    const png = pngSize(file);
    expect(png.width).toBe(1440);
    expect(png.height).toBeGreaterThan(900);
    expect(png.height).toBeLessThan(4000);
    // A page of coloured cells and text compresses far less than a blank one.
    expect(png.bytes).toBeGreaterThan(100_000);
  });

  it('serves at /status.json the report of punchline status --json', async () => {
    const [served, cli] = await Promise.all([
      fetch(`${worker.url}/status.json`).then(async (r) => ({
        status: r.status,
        body: (await r.json()) as StatusReport,
      })),
      runPunchline(['status', '--json'], h.env()),
    ]);
    expect(served.status).toBe(200);
    const printed = JSON.parse(cli.stdout) as StatusReport;
    const states = (r: StatusReport) =>
      r.freshness!.map((f) => `${f.company} ${f.resource} ${f.state}`).sort();
    expect(states(served.body)).toEqual(states(printed));
    expect(served.body.summary).toEqual(printed.summary);
    expect(served.body.check).toEqual(printed.check);
    expect(served.body.pausedConnections).toEqual(printed.pausedConnections);
    expect(served.body.rejections).toEqual(printed.rejections);
    expect(served.body.quality).toEqual(printed.quality);
    expect(served.body.failing.map((f) => f.id).sort()).toEqual(printed.failing.map((f) => f.id).sort());
  }, 30_000);

  it('links to the queue dashboard', async () => {
    await page.goto(`${worker.url}/status`);
    await page.getByRole('link', { name: 'queue dashboard', exact: true }).click();
    await page.waitForURL(`${worker.url}/dashboard`);
    await expect(page.title()).resolves.toBe('punchline');
  });
});
