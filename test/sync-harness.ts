/**
 * Shared set-up of the sync's end-to-end tests (not a test file itself): an emulator
 * over HTTP, a migrated warehouse schema of its own, a BullMQ prefix of its own, the
 * environment a worker subprocess needs, and the comparison of the warehouse with the
 * emulator's ground truth by sets.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import type { Redis } from 'ioredis';
import { loadConfig, type Config } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../src/emulator/index.js';
import { migrate } from '../src/migrations/migrate.js';
import { JOBS } from '../jobs/index.js';
import { openRuntime, type SyncRuntime } from '../src/runtime/runtime.js';
import { monthWindows, daysOf } from '../src/plan/windows.js';
import { durationToSeconds, hourMinuteToSeconds } from '../src/util/duration.js';
import {
  TEST_DATABASE_URL,
  TEST_REDIS_URL,
  connectPostgres,
  connectRedis,
  dropQueuePrefix,
  dropSchema,
  uniqueName,
} from './support/isolation.js';

/** Root of the repository (for subprocesses). */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Everything an e2e test file works with. */
export interface Harness {
  readonly emulator: RunningEmulator;
  readonly schema: string;
  readonly prefix: string;
  /** Pool for the test's own reads of the warehouse. */
  readonly pool: pg.Pool;
  readonly redis: Redis;
  /** Environment of a punchline process working on this harness. */
  env(overrides?: Record<string, string>): Record<string, string>;
  /** Parsed configuration of {@link env}. */
  config(overrides?: Record<string, string>): Config;
  /** A sync runtime in this process; `now` pins its clock (which day is today for the sync). */
  runtime(overrides?: Record<string, string>, options?: { now?: () => Date }): Promise<SyncRuntime>;
  /** Drops the schema and the queue keys, closes everything. */
  close(): Promise<void>;
}

/** Starts an emulator and prepares an isolated warehouse schema and queue prefix. */
export async function startHarness(name: string, emulatorOptions: EmulatorOptions): Promise<Harness> {
  const schema = uniqueName(`sync_${name}`);
  const prefix = uniqueName(`sync_${name}`);
  const pool = await connectPostgres();
  const redis = await connectRedis();
  const emulator = await startEmulator({ scale: 'small', seed: name, ...emulatorOptions });
  await migrate(TEST_DATABASE_URL, schema);
  const runtimes: SyncRuntime[] = [];
  const env = (overrides: Record<string, string> = {}) => ({
    DATABASE_URL: TEST_DATABASE_URL,
    WAREHOUSE_SCHEMA: schema,
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: prefix,
    SERVICE_API_BASE_URL: emulator.url,
    SERVICE_API_TOKEN: emulator.headquartersToken,
    API_MAX_RPS: '60',
    API_MAX_CONCURRENCY: '8',
    API_TIMEOUT_MS: '5000',
    WORKER_CONCURRENCY: '4',
    WORKER_LOCK_MS: '4000',
    OPS_PORT: '0',
    SCHEDULES_ENABLED: '0',
    LOG_LEVEL: 'silent',
    ...overrides,
  });
  const config = (overrides?: Record<string, string>) => loadConfig(env(overrides));
  return {
    emulator,
    schema,
    prefix,
    pool,
    redis,
    env,
    config,
    async runtime(overrides, options = {}) {
      const c = config(overrides);
      const rt = await openRuntime({
        config: c,
        logger: createLogger({ level: c.logLevel }),
        processors: JOBS,
        ...(options.now ? { now: options.now } : {}),
      });
      runtimes.push(rt);
      return rt;
    },
    async close() {
      for (const rt of runtimes) await rt.close().catch(() => undefined);
      await emulator.close();
      await dropSchema(pool, schema);
      await dropQueuePrefix(redis, prefix);
      await pool.end();
      redis.disconnect();
    },
  };
}

/** Starts `punchline <args>` as a subprocess with `env`. */
export function spawnPunchline(args: string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['bin/punchline.js', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Runs `punchline <args>` to the end: exit code, stdout and stderr. */
export async function runPunchline(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawnPunchline(args, env);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += String(d)));
  child.stderr!.on('data', (d) => (stderr += String(d)));
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  return { code, stdout, stderr };
}

/** One category of the comparison: what the emulator has and the warehouse lacks, and the reverse. */
export interface SetDiff {
  expected: number;
  missing: string[];
  extra: string[];
}

function diff(expected: Iterable<string>, actual: Iterable<string>): SetDiff {
  const e = [...expected].sort();
  const a = [...actual].sort();
  // Multisets: adjustments and inconsistencies may repeat the same key on a day.
  const count = (xs: string[]) =>
    xs.reduce((m, x) => m.set(x, (m.get(x) ?? 0) + 1), new Map<string, number>());
  const ce = count(e);
  const ca = count(a);
  const missing: string[] = [];
  const extra: string[] = [];
  for (const [k, n] of ce) for (let i = ca.get(k) ?? 0; i < n; i++) missing.push(k);
  for (const [k, n] of ca) for (let i = ce.get(k) ?? 0; i < n; i++) extra.push(k);
  return { expected: e.length, missing: missing.slice(0, 10), extra: extra.slice(0, 10) };
}

async function rows(pool: pg.Pool, text: string, values: unknown[]): Promise<string[]> {
  const r = await pool.query<{ k: string }>(text, values);
  return r.rows.map((x) => x.k);
}

/**
 * Compares the warehouse with the emulator's ground truth for `[from, to]` (a backfill
 * of every resource over calendar-month windows), by sets of keys and values.
 * `today` caps the hour-bank days.
 */
export async function compareWithTruth(
  h: Harness,
  from: string,
  to: string,
  today: string,
): Promise<Record<string, SetDiff>> {
  const { emulator, pool, schema } = h;
  const t = emulator.truth;
  const s = (table: string) => `"${schema}"."${table}"`;
  const out: Record<string, SetDiff> = {};
  const cnpjs = emulator.companies.map((c) => c.cnpj);
  const windows = monthWindows(from, to);
  const bankDays = daysOf({ from, to: to < today ? to : today });

  out.companies = diff(cnpjs, await rows(pool, `select cnpj as k from ${s('companies')}`, []));

  const exp: Record<string, string[]> = {
    collaborators: [],
    punches: [],
    workDays: [],
    hourTotals: [],
    tardiness: [],
    adjustments: [],
    inconsistencies: [],
    hourBank: [],
    absences: [],
    lookups: [],
  };
  for (const cnpj of cnpjs) {
    const seen = new Set<number>();
    for (const w of windows) {
      for (const id of t.pointIds(cnpj, w.from, w.to)) exp.punches!.push(`${id}`);
      for (const d of t.workDays(cnpj, w.from, w.to)) {
        exp.workDays!.push(`${cnpj}|${d.cpf}|${d.date}|${d.workedSeconds}`);
        seen.add(d.collaboratorId);
      }
      for (const x of t.hourTotals(cnpj, w.from, w.to)) {
        seen.add(x.collaboratorId);
        const vals = Object.keys(x.totals)
          .sort()
          .map((k) => `${k}=${x.totals[k as keyof typeof x.totals]}`);
        exp.hourTotals!.push(`${cnpj}|${x.cpf}|${w.from}|${w.to}|${vals.join(',')}`);
      }
      for (const { cpf, entry: x } of t.dayEntries('tardiness', cnpj, w.from, w.to)) {
        exp.tardiness!.push(
          `${cnpj}|${cpf}|${x.date}|${x.journey_in}|${x.punch_in}|${hourMinuteToSeconds(String(x.minutes_late))}`,
        );
      }
      for (const { cpf, entry: x } of t.dayEntries('adjustment', cnpj, w.from, w.to))
        exp.adjustments!.push(`${cnpj}|${cpf}|${x.date}|${x.type}|${x.status}`);
      for (const { cpf, entry: x } of t.dayEntries('inconsistency', cnpj, w.from, w.to)) {
        exp.inconsistencies!.push(
          `${cnpj}|${cpf}|${x.date}|${x.type}|${durationToSeconds(String(x.value))}|${x.status}`,
        );
      }
    }
    for (const id of new Set(windows.flatMap((w) => t.absenceIds(cnpj, w.from, w.to))))
      exp.absences!.push(`${cnpj}|${id}`);
    for (const d of bankDays) {
      for (const x of t.hourBank(cnpj, d)) {
        seen.add(x.collaboratorId);
        exp.hourBank!.push(
          `${cnpj}|${x.cpf}|${d}|${x.regime}|${x.dayBalanceSeconds}|${x.accumulatedSeconds}|${x.creditSeconds}|${x.debtSeconds}`,
        );
      }
    }
    for (const [table, ids] of Object.entries(t.lookups(cnpj)))
      for (const id of ids) exp.lookups!.push(`${table}|${cnpj}|${id}`);
    // Listed collaborator records, plus those only period data shows (dismissed ones), active = listed.
    for (const c of t.collaborators(cnpj)) {
      if (c.listed || seen.has(c.collaboratorId))
        exp.collaborators!.push(`${cnpj}|${c.national_registry}|${c.admission_date}|active=${c.listed}`);
    }
  }

  out.collaborators = diff(
    exp.collaborators!,
    await rows(
      pool,
      `select company_cnpj || '|' || cpf || '|' || collaborator_record || '|active=' || active as k from ${s('collaborators')}`,
      [],
    ),
  );
  out.punches = diff(
    exp.punches!,
    await rows(
      pool,
      `select point_id::text as k from ${s('punches')} where deleted_at is null and work_date between $1 and $2`,
      [from, to],
    ),
  );
  out.workDays = diff(
    exp.workDays!,
    await rows(
      pool,
      `select company_cnpj || '|' || cpf || '|' || work_date || '|' || worked_seconds as k from ${s('work_days')} where deleted_at is null and work_date between $1 and $2`,
      [from, to],
    ),
  );
  const totalCols = (
    await pool.query<{ column_name: string }>(
      `select column_name from information_schema.columns where table_schema = $1 and table_name = 'hour_totals' and column_name like '%\\_seconds' order by column_name`,
      [schema],
    )
  ).rows.map((r) => r.column_name);
  const totalsExpr = totalCols
    .map((c) => `'${c.replace(/_seconds$/, '')}=' || ${c}`)
    .sort()
    .join(` || ',' || `);
  out.hourTotals = diff(
    exp.hourTotals!,
    await rows(
      pool,
      `select company_cnpj || '|' || cpf || '|' || period_start || '|' || period_end || '|' || ${totalsExpr} as k from ${s('hour_totals')} where deleted_at is null and period_start >= $1 and period_end <= $2`,
      [from, to],
    ),
  );
  out.tardiness = diff(
    exp.tardiness!,
    await rows(
      pool,
      `select company_cnpj || '|' || cpf || '|' || work_date || '|' || to_char(journey_in, 'HH24:MI') || '|' || to_char(punch_in, 'HH24:MI') || '|' || late_seconds as k from ${s('tardiness')} where work_date between $1 and $2`,
      [from, to],
    ),
  );
  out.adjustments = diff(
    exp.adjustments!,
    await rows(
      pool,
      `select company_cnpj || '|' || cpf || '|' || request_date || '|' || adjustment_type || '|' || status as k from ${s('adjustment_requests')} where request_date between $1 and $2`,
      [from, to],
    ),
  );
  out.inconsistencies = diff(
    exp.inconsistencies!,
    await rows(
      pool,
      `select company_cnpj || '|' || cpf || '|' || occurrence_date || '|' || inconsistency_type || '|' || value_seconds || '|' || status as k from ${s('inconsistencies')} where occurrence_date between $1 and $2`,
      [from, to],
    ),
  );
  out.hourBank = diff(
    exp.hourBank!,
    await rows(
      pool,
      `select company_cnpj || '|' || cpf || '|' || balance_date || '|' || regime || '|' || day_balance_seconds || '|' || accumulated_balance_seconds || '|' || credit_seconds || '|' || debt_seconds as k from ${s('hour_bank_balances')} where deleted_at is null and balance_date between $1 and $2`,
      [from, to],
    ),
  );
  out.absences = diff(
    exp.absences!,
    await rows(
      pool,
      `select company_cnpj || '|' || absence_id as k from ${s('absences')} where deleted_at is null and begins_at_local <= $2::timestamp and ends_at_local >= $1::timestamp`,
      [`${from} 00:00:00`, `${to} 23:59:59`],
    ),
  );
  const lookupTables = Object.keys(t.lookups(cnpjs[0]!));
  const lookupRows: string[] = [];
  for (const table of lookupTables) {
    lookupRows.push(
      ...(await rows(
        pool,
        `select '${table}|' || company_cnpj || '|' || id as k from ${s(table)} where active`,
        [],
      )),
    );
  }
  out.lookups = diff(exp.lookups!, lookupRows);
  return out;
}

/** Most starts inside any window [t, t + 1000 ms). */
export function maxInAnySecond(starts: readonly number[]): number {
  const s = [...starts].sort((a, b) => a - b);
  let best = 0;
  let j = 0;
  for (let i = 0; i < s.length; i++) {
    while (s[j]! <= s[i]! - 1000) j++;
    best = Math.max(best, i - j + 1);
  }
  return best;
}
