/**
 * Schema drift a hostile source sends, end to end (emulator over HTTP, real Redis and
 * Postgres): a punch `origin` holding a NUL, one of 4,000 characters, and 10,000 distinct
 * new origins in one answer. Every window loads and every punch lands; the drift is
 * recorded cleaned and capped outside the loads' transactions, and what this process keeps
 * waiting, the `schema_drift` table and `status` stay bounded. Drift the warehouse will
 * not take is dropped with a warning, never put back to fail the next load.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_DRIFT_PER_FIELD } from '../src/api/drift.js';
import { parseBackfillArgs } from '../src/backfill/args.js';
import { runBackfill, type BackfillSummary } from '../src/backfill/run.js';
import { MAX_DRIFT_ROWS, MAX_DRIFT_ROWS_PER_GROUP } from '../src/load/load-records.js';
import { createLogger } from '../src/logger.js';
import type { SyncRuntime } from '../src/runtime/runtime.js';
import { metricsRegistry } from '../src/telemetry/metrics.js';
import { startHarness, type Harness } from './sync-harness.js';
import { statusOf } from './support/status-command.js';

const TODAY = '2025-03-15';
const LONG = `Quiosque ${'x'.repeat(3991)}`;

describe('schema drift from a hostile source', () => {
  let h: Harness;
  let hq: string;
  let summary: BackfillSummary;
  let rt: SyncRuntime;
  /** Drift of `field` this process counted, by kind (each event is counted once, as it is heard). */
  const heard = async (field: string) => {
    const metric = (await metricsRegistry.getMetricsAsJSON()).find(
      (m) => m.name === 'punchline_schema_drift_total',
    );
    const values = (metric?.values ?? []) as { value: number; labels: Record<string, string> }[];
    return Object.fromEntries(
      values.filter((v) => v.labels.field === field).map((v) => [v.labels.kind, v.value]),
    );
  };

  const q = async <T>(sql: string, values: unknown[] = []): Promise<T[]> =>
    (await h.pool.query(sql.replaceAll('$S', `"${h.schema}"`), values)).rows as T[];

  beforeAll(async () => {
    h = await startHarness('driftbounds', { today: TODAY });
    hq = h.emulator.companies[0]!.cnpj;
    rt = await h.runtime();
    const people = await runBackfill(
      rt,
      parseBackfillArgs(
        { from: '2024-11-01', to: '2025-02-28', resources: 'companies,collaborators' },
        rt.config,
      ),
      { pollMs: 200 },
    );
    expect(people.failed, JSON.stringify(people.failures)).toBe(0);
    const punches = { endpoint: 'point/getFromPeriod', company: hq } as const;
    h.emulator.queueFault({ kind: 'odd-origins', ...punches, origin: 'Web\u0000evil' });
    h.emulator.queueFault({ kind: 'odd-origins', ...punches, origin: LONG });
    h.emulator.queueFault({ kind: 'odd-origins', ...punches, origin: 'Origem', values: 10_000 });
    // Four months of punches of every company: the three spoiled answers among them.
    summary = await runBackfill(
      rt,
      parseBackfillArgs(
        { from: '2024-11-01', to: '2025-02-28', resources: 'punches', force: true },
        rt.config,
      ),
      { pollMs: 200 },
    );
  }, 300_000);
  afterAll(async () => {
    await h?.close();
  });

  it('loads every window, each spoiled answer included, and stores every punch', async () => {
    expect(summary.failed, JSON.stringify(summary.failures)).toBe(0);
    expect(h.emulator.queuedFaults()).toEqual([]);
    const windows = await q<{ n: number }>(
      `select count(distinct (company_cnpj, window_start))::int as n from $S.sync_runs
       where resource = 'punches' and status = 'succeeded'`,
    );
    expect(windows[0]!.n).toBe(h.emulator.companies.length * 4);
    const origins = await q<{ origin: string; n: number }>(
      `select case when origin like 'Origem %' then 'Origem n' else left(origin, 20) end as origin, count(*)::int as n
       from $S.punches where company_cnpj = $1 and origin not in ('App Mobile', 'Web', 'REP', 'Manual', 'API')
       group by 1 order by 1`,
      [hq],
    );
    expect(origins.find((o) => o.origin === 'Origem n')?.n).toBe(10_000);
    expect(origins.find((o) => o.origin === 'Webevil')?.n).toBeGreaterThan(0);
    expect(origins.find((o) => o.origin === LONG.slice(0, 20))?.n).toBeGreaterThan(0);
  });

  it('records the drift cleaned of its NUL and a long value as a prefix and a hash', async () => {
    const values = (
      await q<{ value: string }>(
        `select value from $S.schema_drift where kind = 'new_value' and field = 'point.origin'`,
      )
    ).map((r) => r.value);
    expect(values).toContain('Webevil');
    const long = values.filter((v) => v.startsWith('Quiosque'));
    expect(long).toHaveLength(1);
    expect(long[0]).toMatch(/^Quiosque x{55}… \(4000 characters, sha256 [0-9a-f]{16}\)$/);
  });

  it('keeps at most its bound of new values of one field, and says there were too many', async () => {
    const rows = await q<{ kind: string; field: string; n: number }>(
      `select kind, field, count(*)::int as n from $S.schema_drift group by 1, 2 order by 1, 2`,
    );
    expect(rows).toContainEqual({ kind: 'new_value', field: 'point.origin', n: MAX_DRIFT_ROWS_PER_GROUP });
    expect(rows).toContainEqual({ kind: 'too_many', field: 'point.origin', n: 1 });
    expect(rows.reduce((n, r) => n + r.n, 0)).toBeLessThanOrEqual(MAX_DRIFT_ROWS + 10);
    // The runtime heard each field's values up to its bound, then once that there were too many.
    expect(await heard('point.origin')).toEqual({ new_value: MAX_DRIFT_PER_FIELD, too_many: 1 });
    expect(rt.memory.drift.pending).toEqual([]);
  });

  it('shows status with the bounded drift and the too-many line', async () => {
    const { report, text } = await statusOf(h.config());
    const origins = report.schemaDrift!.filter((d) => d.field === 'point.origin');
    expect(origins.length).toBe(MAX_DRIFT_ROWS_PER_GROUP + 1);
    expect(text).toMatch(/too many to list\s+point\.origin/);
    expect(text).toContain('too many to list: the API sent more new values of that field');
    expect(text).not.toContain('\u0000');
  });

  it('drops drift the warehouse will not take with a warning, and the next flush has nothing of it', async () => {
    let log = '';
    const logger = createLogger({
      level: 'warn',
      destination: new Writable({
        write(chunk, _enc, cb) {
          log += String(chunk);
          cb();
        },
      }),
    });
    const drift = rt.memory.drift;
    drift.watch.newValue('adjustment.status', 'Em revisão');
    expect(drift.pending).toHaveLength(1);
    // A schema without schema_drift: the insert fails.
    await drift.flush(h.pool, `${h.schema}_missing`, logger);
    expect(drift.pending).toEqual([]);
    expect(log).toContain('schema drift not recorded (dropped, not retried)');
    expect(log).toContain('adjustment.status');
    expect(log).not.toContain('Em revisão');
    await drift.flush(h.pool, h.schema, logger);
    expect(await q(`select * from $S.schema_drift where field = 'adjustment.status'`)).toEqual([]);
  });
});
