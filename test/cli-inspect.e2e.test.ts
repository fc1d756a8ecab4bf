/**
 * The commands that look before they act, run as processes against the emulator, Postgres and
 * Redis: `config` (effective values, secrets masked, sources), `check` (each connection, exit
 * codes), `backfill --dry-run` and `forget --dry-run` (counts, nothing written), `--json` of
 * `migrate --status` and `backfill`, and `status --check` on a warehouse that never synced.
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT } from '../src/commands/exit-codes.js';
import { runPunchline, startHarness, type Harness } from './sync-harness.js';
import { redisDump } from './support/dumps.js';
import { testToday } from './support/test-clock.js';
import { addDays, endOfMonth } from '../src/util/time.js';
import { daysOf, monthWindows } from '../src/plan/windows.js';

const TODAY = testToday();
// The whole month two months before today's.
const FIRST = `${addDays(TODAY, -60).slice(0, 8)}01`;
const MONTH = monthWindows(FIRST, endOfMonth(FIRST))[0]!;
const RANGE = ['--from', MONTH.from, '--to', MONTH.to];

describe('commands that look before they act', () => {
  let h: Harness;
  const requests = () => Object.values(h.emulator.stats().requests).reduce((n, c) => n + (c ?? 0), 0);
  /** Every row of the warehouse's tables, and every Redis value but the request budget's expiring leases. */
  const snapshot = async () => {
    const { rows } = await h.pool.query<{ t: string }>(
      `select table_name as t from information_schema.tables where table_schema = $1 and table_type = 'BASE TABLE' order by 1`,
      [h.schema],
    );
    const tables: Record<string, string | null> = {};
    for (const { t } of rows)
      tables[t] = (
        await h.pool.query<{ text: string | null }>(
          `select string_agg(x::text, E'\\n' order by x::text) as text from "${h.schema}"."${t}" x`,
        )
      ).rows[0]!.text;
    const redis = (await redisDump(h.redis, h.prefix))
      .split('\n')
      .filter((line) => !/:budget:|stalled-check/.test(line))
      .sort();
    return { tables, redis };
  };

  beforeAll(async () => {
    h = await startHarness('inspect', { today: TODAY });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  describe('punchline config', () => {
    it('prints every setting with its source, and never a secret', async () => {
      const secretFile = join(tmpdir(), `punchline-inspect-${process.pid}.key`);
      writeFileSync(secretFile, 'a-pseudonym-key-of-32-characters-at-least\n');
      const env = h.env({
        API_MAX_RPS: '9',
        PSEUDONYM_KEY_FILE: secretFile,
        DATABASE_URL: h.env().DATABASE_URL.replace('://', '://someone:hunter2-password@'),
      });
      const r = await runPunchline(['config', '--json'], env);
      expect(r.code, r.stderr).toBe(EXIT.ok);
      const { settings } = JSON.parse(r.stdout) as {
        settings: { setting: string; value: string | null; source: string; file?: string }[];
      };
      const of = (name: string) => settings.find((s) => s.setting === name);
      expect(of('API_MAX_RPS')).toEqual({ setting: 'API_MAX_RPS', value: '9', source: 'env' });
      expect(of('API_MAX_CONCURRENCY')).toMatchObject({ source: 'env' });
      expect(of('SYNC_LOOKBACK_DAYS')).toEqual({
        setting: 'SYNC_LOOKBACK_DAYS',
        value: '35',
        source: 'default',
      });
      expect(of('NOTIFY_WEBHOOK_URL')).toEqual({
        setting: 'NOTIFY_WEBHOOK_URL',
        value: null,
        source: 'unset',
      });
      expect(of('PSEUDONYM_KEY')).toMatchObject({ value: '********', source: 'file' });
      expect(of('SERVICE_API_TOKEN')).toMatchObject({ value: '********', source: 'env' });
      expect(of('DATABASE_URL')!.value).toMatch(/^postgres:\/\/someone:\*\*\*@/);
      expect(of('connection default baseUrl')).toMatchObject({ value: h.emulator.url, source: 'env' });
      expect(of('connection default rps')).toMatchObject({ value: '9', source: 'env' });
      for (const secret of [h.emulator.headquartersToken, 'hunter2-password', 'a-pseudonym-key'])
        expect(r.stdout).not.toContain(secret);
      const text = await runPunchline(['config'], env);
      expect(text.stdout).toMatch(/^\s+API_MAX_RPS\s+9\s+env$/m);
      expect(text.stdout).toMatch(
        new RegExp(`^\\s+PSEUDONYM_KEY\\s+\\*{8}\\s+file \\(${secretFile}\\)$`, 'm'),
      );
      expect(text.stdout).not.toContain(h.emulator.headquartersToken);
    });
  });

  describe('punchline check', () => {
    it('exits 0 when Postgres, Redis and the API answer, and says so per connection', async () => {
      const r = await runPunchline(['check', '--json'], h.env());
      expect(r.code, r.stdout + r.stderr).toBe(EXIT.ok);
      const { outcomes } = JSON.parse(r.stdout) as { outcomes: { target: string; ok: boolean }[] };
      expect(outcomes.map((o) => [o.target, o.ok])).toEqual([
        ['postgres', true],
        ['redis', true],
        ['api default', true],
      ]);
    });

    it('exits 2 when the API refuses the token, naming that connection only', async () => {
      const r = await runPunchline(['check'], h.env({ SERVICE_API_TOKEN: 'not-the-token' }));
      expect(r.code).toBe(EXIT.usage);
      expect(r.stdout).toMatch(/^\s+postgres\s+ok\s/m);
      expect(r.stdout).toMatch(/^\s+redis\s+ok\s/m);
      expect(r.stdout).toMatch(/^\s+api default\s+FAILED\s/m);
      expect(r.stdout).not.toContain('not-the-token');
    });

    it('exits 3 when a service does not answer, and checks the others all the same', async () => {
      const r = await runPunchline(['check'], h.env({ REDIS_URL: 'redis://127.0.0.1:1' }));
      expect(r.code).toBe(EXIT.unavailable);
      expect(r.stdout).toMatch(/^\s+redis\s+FAILED\s/m);
      expect(r.stdout).toMatch(/^\s+api default\s+ok\s/m);
    });
  });

  describe('on a warehouse that never synced', () => {
    it('status --check exits 1 and says why', async () => {
      const r = await runPunchline(['status', '--check', '--json'], h.env());
      expect(r.code, r.stderr).toBe(EXIT.failed);
      expect(JSON.parse(r.stdout).check.problems).toEqual([
        'the warehouse has never synced (run punchline backfill, or start punchline worker)',
      ]);
    });

    it('migrate --status --json lists every migration as applied', async () => {
      const r = await runPunchline(['migrate', '--status', '--json'], h.env());
      expect(r.code, r.stderr).toBe(EXIT.ok);
      const status = JSON.parse(r.stdout) as {
        schema: string;
        applied: unknown[];
        pending: unknown[];
        upToDate: boolean;
      };
      expect(status).toMatchObject({ schema: h.schema, pending: [], upToDate: true });
      expect(status.applied.length).toBeGreaterThan(10);
    });
  });

  describe('backfill --dry-run', () => {
    it('prints the jobs, windows and requests it would make; calls only the group walk; writes and queues nothing', async () => {
      const before = await snapshot();
      h.emulator.resetStats();
      const r = await runPunchline(
        ['backfill', ...RANGE, '--resources', 'punches,hour_bank', '--dry-run', '--json'],
        h.env(),
      );
      expect(r.code, r.stderr).toBe(EXIT.ok);
      const report = JSON.parse(r.stdout) as {
        jobs: { resource: string; company?: string; from?: string; to?: string; requests: number }[];
        requests: number;
      };
      const companies = h.emulator.companies.map((c) => c.cnpj).sort();
      const punches = report.jobs.filter((j) => j.resource === 'punches');
      expect(punches.map((j) => j.company).sort()).toEqual(companies);
      expect(punches.every((j) => j.from === MONTH.from && j.to === MONTH.to && j.requests === 1)).toBe(true);
      // The hour bank reads one day per call: as many requests as days in its windows.
      const bank = report.jobs.filter((j) => j.resource === 'hour_bank');
      expect(bank.map((j) => j.company).sort()).toEqual(companies);
      for (const j of bank) expect(j.requests).toBe(daysOf({ from: j.from!, to: j.to! }).length);
      expect(report.requests).toBe(report.jobs.reduce((n, j) => n + j.requests, 0));
      // The group walk: economic-group and company, nothing else.
      expect(h.emulator.stats().requests).toEqual({
        'GET /customer/v2/economic-group': 1,
        'GET /customer/v2/company': 1,
      });
      expect(await snapshot()).toEqual(before);
    });
  });

  describe('backfill --json', () => {
    it("prints the summary as JSON, and its request count matches the emulator's", async () => {
      h.emulator.resetStats();
      const r = await runPunchline(['backfill', ...RANGE, '--resources', 'punches', '--json'], h.env());
      expect(r.code, r.stderr).toBe(EXIT.ok);
      const summary = JSON.parse(r.stdout) as {
        total: number;
        succeeded: number;
        failed: number;
        requests: number;
      };
      expect(summary).toMatchObject({ failed: 0, interrupted: false });
      expect(summary.succeeded).toBe(summary.total);
      // The preflight's group walk is not a job's request.
      expect(summary.requests).toBe(requests() - 2);
    }, 120_000);
  });

  describe('forget --dry-run', () => {
    it('counts the rows it would erase, and erases and records nothing', async () => {
      const { rows } = await h.pool.query<{ cpf: string; company_cnpj: string; n: number }>(
        `select cpf, company_cnpj, count(*)::int as n from "${h.schema}".punches group by 1, 2 order by 3 desc limit 1`,
      );
      const person = rows[0]!;
      const before = await snapshot();
      const r = await runPunchline(
        ['forget', '--cpf', person.cpf, '--company', person.company_cnpj, '--dry-run'],
        h.env(),
      );
      expect(r.code, r.stderr).toBe(EXIT.ok);
      const would = Number(/company \d+: (\d+) rows would be erased/.exec(r.stdout)?.[1]);
      expect(would).toBeGreaterThanOrEqual(person.n);
      expect(r.stdout).toMatch(/^Redis \(prefix [^)]+\): \d+ values? would be erased$/m);
      expect(r.stdout).toContain('dry run: nothing was erased or recorded');
      expect(r.stdout + r.stderr).not.toContain(person.cpf);
      expect(await snapshot()).toEqual(before);

      // The erasure itself changes as many rows as the dry run counted.
      const done = await runPunchline(
        ['forget', '--cpf', person.cpf, '--company', person.company_cnpj],
        h.env(),
      );
      expect(done.code, done.stderr).toBe(EXIT.ok);
      expect(done.stdout).toContain(`company ${person.company_cnpj}: erased ${would} rows`);
    }, 60_000);
  });
});
