/**
 * Every command, run as users run it, in each of the ways it can fail, exits with the
 * code docs/operations.md "Exit codes" gives that way: 1 when the work ran and failed or
 * found a problem, 2 when an argument, the configuration or the warehouse must be fixed
 * first (an unmigrated warehouse, a refused token), 3 when Postgres, Redis or the API did
 * not answer; each with one line on stderr.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pLimit from 'p-limit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../src/commands/exit-codes.js';
import { runPunchline, startHarness, type Harness } from './sync-harness.js';
import { freePort } from './ops-harness.js';
import { dropSchema, uniqueName } from './support/isolation.js';

const TODAY = '2026-06-10';
const KEY = 'exit-codes-pseudonym-key-0123456789abcdef';
const dir = mkdtempSync(join(tmpdir(), 'punchline-exit-'));
let h: Harness;
let closed: number;
const unmigrated = uniqueName('exit_unmigrated');

/** One way of running a command and the exit code it must give. */
interface Case {
  readonly name: string;
  readonly args: readonly string[];
  readonly env?: Record<string, string>;
  readonly code: number;
}

/**
 * Runs the cases a few at a time; every one must exit with its code and, when it could
 * not start, say why in one stderr line (commander's own parse errors add a hint line).
 */
async function expectCodes(cases: readonly Case[]): Promise<void> {
  const limit = pLimit(3);
  const results = await Promise.all(
    cases.map((c) =>
      limit(async () => ({
        c,
        r: await runPunchline([...c.args], h.env({ LOG_LEVEL: 'silent', ...c.env })),
      })),
    ),
  );
  for (const { c, r } of results) {
    expect({ case: c.name, code: r.code }, r.stderr).toEqual({ case: c.name, code: c.code });
    if (c.code !== EXIT.ok && c.code !== EXIT.failed) {
      const lines = r.stderr.trim().split('\n');
      const oneLine = lines[0]!.startsWith('punchline: ')
        ? lines.length === 1
        : lines[0]!.startsWith('error: ') && lines[1] === '(run punchline --help for usage)';
      expect({ case: c.name, oneLine }, r.stderr).toEqual({ case: c.name, oneLine: true });
    }
    expect(r.stderr, c.name).not.toContain(h.emulator.headquartersToken);
  }
}

beforeAll(async () => {
  h = await startHarness('exitcodes', { today: TODAY });
  closed = await freePort();
}, 120_000);

afterAll(async () => {
  if (h) {
    await dropSchema(h.pool, unmigrated);
    await h.close();
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('when an argument or the configuration is bad (2)', () => {
  it('every command refuses before any work', async () => {
    const csv = join(dir, 'rows.csv');
    writeFileSync(csv, 'national_registry,datetime\n52998224725,2026-06-01 08:00:00\n');
    await expectCodes([
      { name: 'an unknown command', args: ['payroll'], code: EXIT.usage },
      { name: 'migrate with an unknown option', args: ['migrate', '--bogus'], code: EXIT.usage },
      {
        name: 'migrate with a bad variable',
        args: ['migrate'],
        env: { API_MAX_RPS: 'abc' },
        code: EXIT.usage,
      },
      {
        name: 'backfill with a bad date',
        args: ['backfill', '--from', '2026-02-30', '--to', '2026-03-01'],
        code: EXIT.usage,
      },
      { name: 'push of an unknown kind', args: ['push', 'payslips', '--file', csv], code: EXIT.usage },
      {
        name: 'worker with a bad schedule',
        args: ['worker', '--no-ops'],
        env: { SCHEDULE_NIGHTLY: '99 * * * *' },
        code: EXIT.usage,
      },
      {
        name: 'status with a bad --stale-after',
        args: ['status', '--stale-after', 'soon'],
        code: EXIT.usage,
      },
      { name: 'verify with a bad --from', args: ['verify', '--from', 'yesterday'], code: EXIT.usage },
      { name: 'forget without --cpf', args: ['forget'], code: EXIT.usage },
      { name: 'pseudonyms without a key', args: ['pseudonyms'], code: EXIT.usage },
      { name: 'emulator with a bad port', args: ['emulator', '--port', 'abc'], code: EXIT.usage },
      { name: 'demo with a bad --days', args: ['demo', '--days', 'many'], code: EXIT.usage },
    ]);
  }, 120_000);
});

describe('when the warehouse is not migrated (2)', () => {
  it('every command that needs its tables refuses, naming punchline migrate', async () => {
    const env = { WAREHOUSE_SCHEMA: unmigrated };
    const csv = join(dir, 'one.csv');
    writeFileSync(csv, 'national_registry,datetime\n52998224725,2026-06-01 08:00:00\n');
    const cases: Case[] = [
      {
        name: 'backfill',
        args: ['backfill', '--from', '2026-06-01', '--to', '2026-06-02', '--no-progress'],
        env,
        code: EXIT.usage,
      },
      { name: 'push', args: ['push', 'punches', '--file', csv], env, code: EXIT.usage },
      { name: 'worker', args: ['worker', '--no-ops', '--no-schedules'], env, code: EXIT.usage },
      { name: 'status', args: ['status'], env, code: EXIT.usage },
      { name: 'status --check', args: ['status', '--check'], env, code: EXIT.usage },
      { name: 'verify', args: ['verify'], env, code: EXIT.usage },
      { name: 'forget', args: ['forget', '--cpf', '52998224725'], env, code: EXIT.usage },
      { name: 'pseudonyms', args: ['pseudonyms'], env: { ...env, PSEUDONYM_KEY: KEY }, code: EXIT.usage },
    ];
    await expectCodes(cases);
    const status = await runPunchline(['status'], h.env(env));
    expect(status.stdout).toMatch(/^Queues$/m);
    expect(status.stderr.trim()).toBe(
      `punchline: the warehouse schema "${unmigrated}" is not migrated (run punchline migrate first) [warehouse_not_migrated]`,
    );
  }, 120_000);

  it('the API rejecting the token is a configuration to fix too', async () => {
    const env = { SERVICE_API_TOKEN: 'not-the-token-0000' };
    const csv = join(dir, 'token.csv');
    writeFileSync(csv, 'national_registry,datetime\n52998224725,2026-06-01 08:00:00\n');
    await expectCodes([
      {
        name: 'backfill',
        args: ['backfill', '--from', '2026-06-01', '--to', '2026-06-02', '--no-progress'],
        env,
        code: EXIT.usage,
      },
      { name: 'push', args: ['push', 'punches', '--file', csv], env, code: EXIT.usage },
    ]);
  }, 60_000);
});

describe('when a service does not answer (3)', () => {
  it('every command that needs Postgres, Redis or the API says which, and exits 3', async () => {
    const noPostgres = { DATABASE_URL: `postgres://postgres@127.0.0.1:${closed}/nowhere` };
    const noRedis = { REDIS_URL: `redis://127.0.0.1:${closed}` };
    const noApi = { SERVICE_API_BASE_URL: `http://127.0.0.1:${closed}` };
    const csv = join(dir, 'down.csv');
    writeFileSync(csv, 'national_registry,datetime\n52998224725,2026-06-01 08:00:00\n');
    const backfill = ['backfill', '--from', '2026-06-01', '--to', '2026-06-02', '--no-progress'];
    const push = ['push', 'punches', '--file', csv];
    const worker = ['worker', '--no-ops', '--no-schedules'];
    await expectCodes([
      { name: 'migrate without Postgres', args: ['migrate'], env: noPostgres, code: EXIT.unavailable },
      { name: 'backfill without Postgres', args: backfill, env: noPostgres, code: EXIT.unavailable },
      { name: 'backfill without Redis', args: backfill, env: noRedis, code: EXIT.unavailable },
      { name: 'backfill without the API', args: backfill, env: noApi, code: EXIT.unavailable },
      { name: 'push without Postgres', args: push, env: noPostgres, code: EXIT.unavailable },
      { name: 'push without Redis', args: push, env: noRedis, code: EXIT.unavailable },
      { name: 'push without the API', args: push, env: noApi, code: EXIT.unavailable },
      { name: 'worker without Postgres', args: worker, env: noPostgres, code: EXIT.unavailable },
      { name: 'worker without Redis', args: worker, env: noRedis, code: EXIT.unavailable },
      {
        name: 'status without Postgres',
        args: ['status', '--check'],
        env: noPostgres,
        code: EXIT.unavailable,
      },
      { name: 'status without Redis', args: ['status', '--check'], env: noRedis, code: EXIT.unavailable },
      { name: 'verify without Postgres', args: ['verify'], env: noPostgres, code: EXIT.unavailable },
      {
        name: 'forget without Postgres',
        args: ['forget', '--cpf', '52998224725'],
        env: noPostgres,
        code: EXIT.unavailable,
      },
      {
        name: 'pseudonyms without Postgres',
        args: ['pseudonyms'],
        env: { ...noPostgres, PSEUDONYM_KEY: KEY },
        code: EXIT.unavailable,
      },
      {
        name: 'demo without Redis',
        args: ['demo', '--emulator-url', h.emulator.url],
        env: noRedis,
        code: EXIT.unavailable,
      },
    ]);
  }, 180_000);
});

describe('when the work runs and fails or finds a problem (1), and when all is well (0)', () => {
  it('says so by command: a failed job, a row not done, a failing check, stale data, nobody to forget', async () => {
    const range = ['--from', '2026-06-01', '--to', '2026-06-07', '--no-progress'];
    const synced = await runPunchline(['backfill', ...range, '--resources', 'punches'], h.env());
    expect(synced.code, synced.stderr).toBe(EXIT.ok);
    const fresh = await runPunchline(['status', '--check'], h.env());
    expect({ code: fresh.code, stderr: fresh.stderr }).toEqual({ code: EXIT.ok, stderr: '' });

    // One company's punches a day old: stale (punches are stale after an hour).
    const company = h.emulator.companies[1]!.cnpj;
    await h.pool.query(
      `update "${h.schema}".sync_runs set finished_at = finished_at - interval '1 day' where company_cnpj = $1 and resource = 'punches'`,
      [company],
    );
    // A punch deleted by hand: its window holds a row less than the answer had.
    await h.pool.query(
      `delete from "${h.schema}".punches where point_id = (select min(point_id) from "${h.schema}".punches)`,
    );
    // The API refuses one company's collaborators for good: that job fails.
    h.emulator.queueFault({ kind: 'refuse', endpoint: 'collaborator' });
    const invalid = join(dir, 'invalid.csv');
    writeFileSync(invalid, 'national_registry,datetime\n123,2026-06-01 08:00:00\n');

    await expectCodes([
      { name: 'status --check with stale data', args: ['status', '--check'], code: EXIT.failed },
      { name: 'verify with a punch missing', args: ['verify'], code: EXIT.failed },
      {
        name: 'push of a file whose row is invalid',
        args: ['push', 'punches', '--file', invalid],
        code: EXIT.failed,
      },
      {
        name: 'forget of a person the warehouse lacks',
        args: ['forget', '--cpf', '000.000.001-91'],
        code: EXIT.failed,
      },
      { name: 'status without --check still only reports', args: ['status'], code: EXIT.ok },
      { name: 'migrate of a current warehouse', args: ['migrate'], code: EXIT.ok },
    ]);
    await expectCodes([
      {
        name: 'backfill with a job the API refuses',
        args: ['backfill', ...range, '--resources', 'collaborators'],
        code: EXIT.failed,
      },
    ]);
  }, 240_000);
});
