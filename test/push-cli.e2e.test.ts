/**
 * `punchline push` as users run it: bad arguments and unusable files exit 2 with one
 * line before any request; a plan and an apply print a summary, write the report and
 * exit 0 or 3; writes go through the connection's shared request budget, which a push
 * and a running worker share; a push killed with SIGKILL half-way and run again creates
 * each punch once.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueJobs } from '../src/sync/enqueue.js';
import { backfillItems, planJobs } from '../src/sync/planner.js';
import { budgetKeys } from '../src/sync/request-budget.js';
import { maxInAnySecond, runPunchline, spawnPunchline, startHarness, type Harness } from './sync-harness.js';
import { startPunchlineProcess, waitUntil } from './support/punchline-process.js';

const TODAY = '2026-10-31';
const dir = mkdtempSync(join(tmpdir(), 'push-cli-'));
let h: Harness;
let cpf: string;

function file(name: string, content: string): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

function postCount(): number {
  return h.emulator.stats().requests['POST /customer/v2/point'] ?? 0;
}

beforeAll(async () => {
  h = await startHarness('pushcli', { today: TODAY, scale: 30 });
  const hq = h.emulator.companies[0]!.cnpj;
  const people = h.emulator.truth.collaborators(hq);
  cpf = people.find((p) => p.listed && p.admission_date! < '2026-09-01' && people.filter((q) => q.national_registry === p.national_registry).length === 1)!
    .national_registry;
}, 120_000);

afterAll(async () => {
  await h?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('when the arguments or the file are bad', () => {
  it('exits 2 with one line naming the problem, before any request', async () => {
    const good = file('ok.csv', `national_registry,datetime\n${cpf},2026-10-02 08:00:00\n`);
    const cases: { name: string; args: string[]; line: RegExp }[] = [
      { name: 'unknown kind', args: ['push', 'payslips', '--file', good], line: /unknown kind "payslips" \(choose from: collaborators, photos, dismissals/ },
      { name: 'no --file', args: ['push', 'punches'], line: /--file is required \(a .csv or .jsonl file\)/ },
      { name: 'missing file', args: ['push', 'punches', '--file', join(dir, 'nope.csv')], line: /--file .*nope.csv: no such file/ },
      { name: 'wrong extension', args: ['push', 'punches', '--file', file('rows.xlsx', 'x')], line: /use a .csv or .jsonl file/ },
      { name: 'missing files folder', args: ['push', 'punches', '--file', good, '--files-dir', join(dir, 'nope')], line: /--files-dir .*nope: no such directory/ },
      { name: 'bad report name', args: ['push', 'punches', '--file', good, '--report', join(dir, 'r.txt')], line: /--report .*r.txt: use a .csv or .json file name/ },
      {
        name: 'unknown column',
        args: ['push', 'punches', '--file', file('extra.csv', 'national_registry,datetime,colour\n1,2,3\n')],
        line: /extra.csv: unknown column "colour" \(accepted: national_registry, datetime\)/,
      },
      {
        name: 'missing column',
        args: ['push', 'departments', '--file', file('nodesc.csv', 'name\nVendas\n')],
        line: /unknown column "name" \(accepted: description\)/,
      },
    ];
    h.emulator.resetStats();
    for (const c of cases) {
      const r = await runPunchline(c.args, h.env());
      const lines = r.stderr.trim().split('\n');
      expect({ name: c.name, code: r.code, lines: lines.length }).toEqual({ name: c.name, code: 2, lines: 1 });
      expect(lines[0], c.name).toMatch(c.line);
    }
    expect(h.emulator.stats().requests).toEqual({});
  }, 120_000);
});

describe('a plan, then an apply, of a file with good and refused rows', () => {
  it('prints the outcome of every row, writes the report, and exits 0 for a clean plan and 3 when a row was refused', async () => {
    const input = file('mixed.csv', `national_registry;datetime\n${cpf};2026-10-03 08:00:00\n${cpf};2026-12-01 08:00:00\n`);
    const planReport = join(dir, 'plan.json');
    h.emulator.resetStats();
    const plan = await runPunchline(['push', 'punches', '--file', input, '--report', planReport], h.env());
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(/^push punches \(plan: nothing was written\): 2 rows in .*mixed.csv: 2 would be created$/m);
    expect(plan.stdout).toMatch(/run again with --apply to write/);
    expect(postCount()).toBe(0);
    const json = JSON.parse(readFileSync(planReport, 'utf8')) as { applied: boolean; rows: { line: number; outcome: string }[] };
    expect(json.applied).toBe(false);
    expect(json.rows.map((r) => [r.line, r.outcome])).toEqual([
      [2, 'would_create'],
      [3, 'would_create'],
    ]);

    const applyReport = join(dir, 'apply.csv');
    const apply = await runPunchline(['push', 'punches', '--file', input, '--apply', '--report', applyReport], h.env());
    expect(apply.code, apply.stderr).toBe(3);
    expect(apply.stdout).toMatch(/^push punches: 2 rows in .*: 1 created, 1 refused$/m);
    expect(apply.stdout).toMatch(/line 3: refused: .*date_time_greater_than_now/);
    expect(apply.stdout).toMatch(/^sync queued for company \d{14}: punches\.default\.\d{14}\.2026-10-01\.2026-10-31/m);
    const csvLines = readFileSync(applyReport, 'utf8').trim().split('\n');
    expect(csvLines[0]).toBe('line,outcome,key,id,code,message');
    expect(csvLines[1]).toMatch(new RegExp(`^2,created,${cpf}\\|2026-10-03 08:00:00,\\d+,,$`));
    expect(csvLines[2]).toMatch(/^3,refused,.*,date_time_greater_than_now,/);
    expect(postCount()).toBe(2);
  }, 120_000);
});

describe('when a push is killed half-way and run again', () => {
  it('stays within the shared request budget and creates each punch once', async () => {
    const times = Array.from({ length: 12 }, (_, i) => `2026-10-22 ${String(6 + i).padStart(2, '0')}:30:00`);
    const input = file('kill.csv', ['national_registry,datetime', ...times.map((t) => `${cpf},${t}`)].join('\n'));
    const env = h.env({ API_MAX_RPS: '2', API_MAX_CONCURRENCY: '2' });
    h.emulator.resetStats();
    const child = spawnPunchline(['push', 'punches', '--file', input, '--apply'], env);
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const until = Date.now() + 60_000;
    while (postCount() < 3) {
      if (Date.now() > until) throw new Error('the push did not start writing');
      await new Promise((r) => setTimeout(r, 50));
    }
    child.kill('SIGKILL');
    await exited;
    const sentBeforeKill = postCount();
    expect(sentBeforeKill).toBeLessThan(times.length);
    // the push took its requests from the connection's budget in Redis, like the sync
    const keys = budgetKeys(h.prefix, 'default');
    expect(await h.redis.exists(keys.finished)).toBe(1);

    const rerun = await runPunchline(['push', 'punches', '--file', input, '--apply'], env);
    expect(rerun.code, rerun.stderr).toBe(0);
    const summary = /^push punches: 12 rows in .*$/m.exec(rerun.stdout)?.[0] ?? rerun.stdout;
    const created = Number(/(\d+) created/.exec(summary)?.[1] ?? 0);
    const skipped = Number(/(\d+) skipped/.exec(summary)?.[1] ?? 0);
    expect(created + skipped).toBe(times.length);
    expect(skipped).toBeGreaterThanOrEqual(sentBeforeKill - 2); // writes in flight at the kill may or may not have landed

    const hq = h.emulator.companies[0]!;
    // both processes together: never more than API_MAX_RPS starts in any second
    expect(maxInAnySecond(h.emulator.stats().startsByToken[hq.token] ?? [])).toBeLessThanOrEqual(2);
    const res = await fetch(
      `${h.emulator.url}/customer/v2/point/getFromPeriod?begin_date=2026-10-22&end_date=2026-10-22&national_registry_list[]=${cpf}`,
      { headers: { apiServiceToken: hq.token } },
    );
    const body = (await res.json()) as { data: { days: { points: { datetime: string }[] }[] }[] };
    const points = body.data.flatMap((p) => p.days.flatMap((d) => d.points.map((x) => x.datetime)));
    for (const t of times) expect(points.filter((x) => x === t), t).toHaveLength(1);
  }, 180_000);
});

describe('when a push runs while a worker syncs the same connection', () => {
  it('the two processes together stay within the request budget, and both finish', async () => {
    const RPS = 3;
    const env = h.env({ API_MAX_RPS: String(RPS), API_MAX_CONCURRENCY: '2', LOG_LEVEL: 'info' });
    const rt = await h.runtime();
    const worker = startPunchlineProcess(['worker', '--no-ops', '--no-schedules'], env);
    try {
      await worker.waitForLog('worker ready');
      // About 60 requests of the hour bank (one per company and day): some 20 s of the budget.
      const plan = planJobs({
        connection: 'default',
        companies: h.emulator.companies.slice(0, 2).map((c) => c.cnpj),
        scoped: true,
        items: backfillItems(['hour_bank'], '2026-09-01', '2026-09-30', TODAY),
        followUps: [],
        force: true,
        origin: 'backfill',
      });
      h.emulator.resetStats();
      await enqueueJobs(rt.queues, plan.jobs);
      await waitUntil('the worker to start syncing', () => (h.emulator.stats().requests['GET /customer/v2/overtime'] ?? 0) > 0, 30_000);

      const times = Array.from({ length: 6 }, (_, i) => `2026-10-23 ${String(8 + i).padStart(2, '0')}:15:00`);
      const input = file('with-worker.csv', ['national_registry,datetime', ...times.map((t) => `${cpf},${t}`)].join('\n'));
      const pushed = await runPunchline(['push', 'punches', '--file', input, '--apply'], env);
      expect(pushed.code, pushed.stderr).toBe(0);
      expect(pushed.stdout).toMatch(/6 created/);
      // The push ran while the worker still had windows to sync.
      const left = (await rt.queues.sync.getWaitingCount()) + (await rt.queues.sync.getActiveCount());
      expect(left).toBeGreaterThan(0);

      await waitUntil('the worker to finish', async () => (await rt.queues.sync.getCompletedCount()) === plan.jobs.length, 90_000);
      expect(await rt.queues.sync.getFailedCount()).toBe(0);
      const starts = h.emulator.stats().startsByToken[h.emulator.companies[0]!.token] ?? [];
      expect(starts.length).toBeGreaterThan(60);
      expect(maxInAnySecond(starts)).toBeLessThanOrEqual(RPS);
    } finally {
      worker.child.kill('SIGTERM');
      await worker.exited;
    }
  }, 180_000);
});
