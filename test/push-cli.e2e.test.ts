/**
 * `punchline push` as users run it: bad arguments and unusable files exit 2 with one
 * line before any request; a plan and an apply print a summary, write the report and
 * exit 0 or 1; writes go through the connection's shared request budget, which a push
 * and a running worker share; a push killed with SIGKILL half-way and run again creates
 * each punch once.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { enqueueJobs } from '../src/runtime/enqueue.js';
import { backfillItems, planJobs } from '../src/plan/planner.js';
import { budgetKeys } from '../src/connections/request-budget.js';
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
  cpf = people.find(
    (p) =>
      p.listed &&
      p.admission_date! < '2026-09-01' &&
      people.filter((q) => q.national_registry === p.national_registry).length === 1,
  )!.national_registry;
}, 120_000);

afterAll(async () => {
  await h?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('when the arguments or the file are bad', () => {
  it('exits 2 with one line naming the problem, before any request', async () => {
    const good = file('ok.csv', `national_registry,datetime\n${cpf},2026-10-02 08:00:00\n`);
    const cases: { name: string; args: string[]; line: RegExp }[] = [
      {
        name: 'unknown kind',
        args: ['push', 'payslips', '--file', good],
        line: /unknown kind "payslips" \(choose from: collaborators, photos, dismissals/,
      },
      { name: 'no --file', args: ['push', 'punches'], line: /--file is required \(a .csv or .jsonl file\)/ },
      {
        name: 'missing file',
        args: ['push', 'punches', '--file', join(dir, 'nope.csv')],
        line: /--file .*nope.csv: no such file/,
      },
      {
        name: 'wrong extension',
        args: ['push', 'punches', '--file', file('rows.xlsx', 'x')],
        line: /use a .csv or .jsonl file/,
      },
      {
        name: 'missing files folder',
        args: ['push', 'punches', '--file', good, '--files-dir', join(dir, 'nope')],
        line: /--files-dir .*nope: no such directory/,
      },
      {
        name: 'bad report name',
        args: ['push', 'punches', '--file', good, '--report', join(dir, 'r.txt')],
        line: /--report .*r.txt: use a .csv or .json file name/,
      },
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
      expect({ name: c.name, code: r.code, lines: lines.length }).toEqual({
        name: c.name,
        code: 2,
        lines: 1,
      });
      expect(lines[0], c.name).toMatch(c.line);
    }
    expect(h.emulator.stats().requests).toEqual({});
  }, 120_000);
});

describe('a plan, then an apply, of a file with good and refused rows', () => {
  it('prints the outcome of every row, writes the report, and exits 0 for a clean plan and 1 when a row was refused', async () => {
    const input = file(
      'mixed.csv',
      `national_registry;datetime\n${cpf};2026-10-03 08:00:00\n${cpf};2026-12-01 08:00:00\n`,
    );
    const planReport = join(dir, 'plan.json');
    h.emulator.resetStats();
    const plan = await runPunchline(['push', 'punches', '--file', input, '--report', planReport], h.env());
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(
      /^push punches \(plan: nothing was written\): 2 rows in .*mixed.csv: 2 would be created$/m,
    );
    expect(plan.stdout).toMatch(/run again with --apply to write/);
    expect(postCount()).toBe(0);
    const json = JSON.parse(readFileSync(planReport, 'utf8')) as {
      applied: boolean;
      rows: { line: number; outcome: string }[];
    };
    expect(json.applied).toBe(false);
    expect(json.rows.map((r) => [r.line, r.outcome])).toEqual([
      [2, 'would_create'],
      [3, 'would_create'],
    ]);

    const applyReport = join(dir, 'apply.csv');
    const apply = await runPunchline(
      ['push', 'punches', '--file', input, '--apply', '--report', applyReport],
      h.env(),
    );
    expect(apply.code, apply.stderr).toBe(1);
    expect(apply.stdout).toMatch(/^push punches: 2 rows in .*: 1 created, 1 refused$/m);
    expect(apply.stdout).toMatch(/line 3: refused: .*date_time_greater_than_now/);
    expect(apply.stdout).toMatch(
      /^sync queued for company \d{14}: punches\.default\.\d{14}\.2026-10-01\.2026-10-31/m,
    );
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
    const input = file(
      'kill.csv',
      ['national_registry,datetime', ...times.map((t) => `${cpf},${t}`)].join('\n'),
    );
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
    const points = await punchesOn(cpf, '2026-10-22');
    for (const t of times)
      expect(
        points.filter((x) => x === t),
        t,
      ).toHaveLength(1);
  }, 180_000);
});

/** The punches the emulator holds for `cpf` on `day`, as date-times. */
async function punchesOn(cpf: string, day: string): Promise<string[]> {
  const hq = h.emulator.companies[0]!;
  const res = await fetch(
    `${h.emulator.url}/customer/v2/point/getFromPeriod?begin_date=${day}&end_date=${day}&national_registry_list[]=${cpf}`,
    { headers: { apiServiceToken: hq.token } },
  );
  const body = (await res.json()) as { data: { days: { points: { datetime: string }[] }[] }[] };
  return body.data.flatMap((p) => p.days.flatMap((d) => d.points.map((x) => x.datetime)));
}

/** The absences of type `typeId` from `begin` to `end` the emulator holds for `cpf`. */
async function absencesOf(cpf: string, typeId: number, begin: string, end: string): Promise<number> {
  const hq = h.emulator.companies[0]!;
  const res = await fetch(
    `${h.emulator.url}/customer/v2/absence/getFromPeriod?begin_date=${encodeURIComponent(`${begin} 00:00:00`)}&end_date=${encodeURIComponent(`${end} 23:59:59`)}`,
    { headers: { apiServiceToken: hq.token } },
  );
  const body = (await res.json()) as {
    data: {
      absence_type_id: number;
      begin_date: string;
      end_date: string;
      collaborators: { national_registry: string }[];
    }[];
  };
  return body.data.filter(
    (a) =>
      a.absence_type_id === typeId &&
      a.begin_date.startsWith(begin) &&
      a.end_date.startsWith(end) &&
      a.collaborators.some((c) => c.national_registry === cpf),
  ).length;
}

/** The created and skipped counts of a push's summary line. */
function counted(stdout: string): { created: number; skipped: number } {
  const line = /^push \w+: \d+ rows? in .*$/m.exec(stdout)?.[0] ?? '';
  return {
    created: Number(/(\d+) created/.exec(line)?.[1] ?? 0),
    skipped: Number(/(\d+) skipped/.exec(line)?.[1] ?? 0),
  };
}

describe('when two pushes of the same file run at once', () => {
  // Every answer takes 1.5 s, so both runs have checked the API before either one's first write lands.
  beforeEach(() => h.emulator.setFaults({ slow: 1, slowMs: 1500 }));
  afterEach(() => h.emulator.setFaults({ slow: 0 }));

  it('creates each punch once, and the two runs together report each row created once', async () => {
    const times = ['2026-10-26 08:00:00', '2026-10-26 12:00:00', '2026-10-26 17:00:00'];
    const input = file(
      'twice.csv',
      ['national_registry,datetime', ...times.map((t) => `${cpf},${t}`)].join('\n'),
    );
    const env = h.env();
    h.emulator.resetStats();
    const [a, b] = await Promise.all([
      runPunchline(['push', 'punches', '--file', input, '--apply'], env),
      runPunchline(['push', 'punches', '--file', input, '--apply'], env),
    ]);
    expect([a.code, b.code], `${a.stderr}\n${b.stderr}`).toEqual([0, 0]);
    expect(counted(a.stdout).created + counted(b.stdout).created).toBe(3);
    expect(counted(a.stdout).skipped + counted(b.stdout).skipped).toBe(3);
    expect(postCount()).toBe(3);
    const held = await punchesOn(cpf, '2026-10-26');
    for (const t of times)
      expect(
        held.filter((x) => x === t),
        t,
      ).toHaveLength(1);
  }, 120_000);

  it('creates each absence once', async () => {
    const rt = await h.runtime();
    const type = (await rt.client('default').api.listAbsenceTypes())[0]!;
    const days = ['2026-10-05', '2026-10-06', '2026-10-07'];
    const input = file(
      'absences-twice.csv',
      [
        'national_registry,absence_type_id,description,details,begin_date,end_date,paid,full_day,sum_on_work_time,sum_total_on_work_time',
        ...days.map((d) => `${cpf},${type.id},Atestado,Consulta,${d},${d},1,1,0,0`),
      ].join('\n'),
    );
    const env = h.env();
    const [a, b] = await Promise.all([
      runPunchline(['push', 'absences', '--file', input, '--apply'], env),
      runPunchline(['push', 'absences', '--file', input, '--apply'], env),
    ]);
    expect([a.code, b.code], `${a.stderr}\n${b.stderr}`).toEqual([0, 0]);
    expect(counted(a.stdout).created + counted(b.stdout).created).toBe(3);
    for (const d of days) expect(await absencesOf(cpf, type.id, d, d), d).toBe(1);
  }, 120_000);
});

describe('when a push is run again while the first is still writing', () => {
  it('the rerun waits for the rows the first has claimed and creates none twice', async () => {
    // Enough rows that the first run is still writing when the second has started, on a busy machine too.
    const times = Array.from(
      { length: 24 },
      (_, i) =>
        `2026-10-27 ${String(6 + Math.floor(i / 3)).padStart(2, '0')}:${String(10 + (i % 3) * 15)}:00`,
    );
    const input = file(
      'rerun-while-writing.csv',
      ['national_registry,datetime', ...times.map((t) => `${cpf},${t}`)].join('\n'),
    );
    // One request a second for the connection, across both processes: the first run writes for seconds.
    const env = h.env({ API_MAX_RPS: '1', API_MAX_CONCURRENCY: '2' });
    h.emulator.resetStats();
    const first = runPunchline(['push', 'punches', '--file', input, '--apply'], env);
    await waitUntil('the first run to start writing', () => postCount() >= 2, 60_000);
    const second = await runPunchline(['push', 'punches', '--file', input, '--apply'], env);
    const firstDone = await first;
    expect([firstDone.code, second.code], `${firstDone.stderr}\n${second.stderr}`).toEqual([0, 0]);
    expect(counted(firstDone.stdout).created + counted(second.stdout).created).toBe(times.length);
    expect(second.stdout).toMatch(/created meanwhile by another push run/);
    expect(postCount()).toBe(times.length);
    const held = await punchesOn(cpf, '2026-10-27');
    for (const t of times)
      expect(
        held.filter((x) => x === t),
        t,
      ).toHaveLength(1);
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
      await waitUntil(
        'the worker to start syncing',
        () => (h.emulator.stats().requests['GET /customer/v2/overtime'] ?? 0) > 0,
        30_000,
      );

      const times = Array.from({ length: 6 }, (_, i) => `2026-10-23 ${String(8 + i).padStart(2, '0')}:15:00`);
      const input = file(
        'with-worker.csv',
        ['national_registry,datetime', ...times.map((t) => `${cpf},${t}`)].join('\n'),
      );
      const pushed = await runPunchline(['push', 'punches', '--file', input, '--apply'], env);
      expect(pushed.code, pushed.stderr).toBe(0);
      expect(pushed.stdout).toMatch(/6 created/);
      // The push ran while the worker still had windows to sync.
      const left = (await rt.queues.sync.getWaitingCount()) + (await rt.queues.sync.getActiveCount());
      expect(left).toBeGreaterThan(0);

      // Its own jobs: the pushes before this test queued syncs of their own, which the worker runs too.
      const states = async () => Promise.all(plan.jobs.map((j) => rt.queues.sync.getJobState(j.id)));
      await waitUntil(
        'the worker to finish',
        async () => (await states()).every((s) => s === 'completed' || s === 'failed'),
        90_000,
      );
      expect(await states()).toEqual(plan.jobs.map(() => 'completed'));
      const starts = h.emulator.stats().startsByToken[h.emulator.companies[0]!.token] ?? [];
      expect(starts.length).toBeGreaterThan(60);
      expect(maxInAnySecond(starts)).toBeLessThanOrEqual(RPS);
    } finally {
      worker.child.kill('SIGTERM');
      await worker.exited;
    }
  }, 180_000);
});
