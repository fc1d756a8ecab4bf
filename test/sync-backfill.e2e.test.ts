/**
 * End to end: emulator over HTTP → BullMQ on real Redis → real Postgres. A 3-month
 * backfill of a small group must leave the warehouse equal to the emulator's own data,
 * a second run must change nothing, and source mutations must reach the warehouse as
 * deleted_at and history rows.
 */
import { CATALOG } from '../src/resources/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBackfillArgs } from '../src/backfill/args.js';
import { runBackfill, type BackfillSummary } from '../src/backfill/run.js';
import type { SyncRuntime } from '../src/runtime/runtime.js';
import { compareWithTruth, startHarness, type Harness } from './sync-harness.js';

const FROM = '2026-05-01';
const TO = '2026-07-31';
const EMULATOR_TODAY = '2026-10-31';

/** Digest of a table's content without synced_at (which a reload may touch). */
async function digest(h: Harness, table: string): Promise<string> {
  const r = await h.pool.query<{ d: string | null; n: string }>(
    `select md5(string_agg(j, ',' order by j)) as d, count(*) as n
       from (select (to_jsonb(t) - 'synced_at')::text as j from "${h.schema}"."${table}" t) x`,
  );
  return `${r.rows[0]!.n}:${r.rows[0]!.d}`;
}

/** Every table the catalog's resources write (their own, and those `afterMerge` writes, named by their privacy), from the declarations. */
const TABLES = [
  ...new Set(
    Object.values(CATALOG).flatMap((d) => [
      ...Object.values(d.tables).map((t) => t.table),
      ...Object.keys(d.privacy ?? {}),
    ]),
  ),
].sort();

describe('backfill of a small group (emulator → Redis → Postgres)', () => {
  let h: Harness;
  let rt: SyncRuntime;
  let first: BackfillSummary;

  beforeAll(async () => {
    h = await startHarness('backfill', { today: EMULATOR_TODAY });
    rt = await h.runtime();
    first = await runBackfill(rt, parseBackfillArgs({ from: FROM, to: TO }, rt.config), { pollMs: 200 });
  }, 180_000);
  afterAll(async () => {
    await h?.close();
  });

  it('succeeds on every job, each run recorded in sync_runs', async () => {
    expect(first.failed, JSON.stringify(first.failures)).toBe(0);
    expect(first.succeeded).toBe(first.total);
    expect(first.inserted).toBeGreaterThan(1000);
    const runs = await h.pool.query<{ status: string; n: string; requests: string }>(
      `select status, count(*) as n, sum(requests) as requests from "${h.schema}".sync_runs group by status`,
    );
    expect(runs.rows.map((r) => r.status)).toEqual(['succeeded']);
    expect(Number(runs.rows[0]!.n)).toBe(first.total);
    expect(Number(runs.rows[0]!.requests)).toBe(first.requests);
    const worker = await h.pool.query(`select distinct worker from "${h.schema}".sync_runs`);
    expect(worker.rows[0].worker).toMatch(/^.+:\d+$/);
  });

  it('finds no schema drift in answers that follow the spec (every field and value of spec 2 is known)', async () => {
    const drift = await h.pool.query(
      `select kind, endpoint, field, value from "${h.schema}".schema_drift order by 1, 2, 3`,
    );
    expect(drift.rows).toEqual([]);
  });

  it('leaves the warehouse equal to the emulator data, set by set', async () => {
    const diffs = await compareWithTruth(h, FROM, TO, EMULATOR_TODAY);
    for (const [category, d] of Object.entries(diffs)) {
      expect({ category, missing: d.missing, extra: d.extra }).toEqual({ category, missing: [], extra: [] });
    }
    for (const category of [
      'companies',
      'collaborators',
      'punches',
      'workDays',
      'hourTotals',
      'tardiness',
      'adjustments',
      'inconsistencies',
      'hourBank',
      'absences',
      'lookups',
    ]) {
      expect(diffs[category]!.expected, category).toBeGreaterThan(0);
    }
    // dismissed collaborators are there too, inactive
    const dismissed = await h.pool.query(
      `select count(*)::int as n from "${h.schema}".collaborators where not active`,
    );
    expect(dismissed.rows[0].n).toBeGreaterThan(0);
    expect(h.emulator.companies.length).toBeGreaterThan(1);
    // every absence with has_attachment got its attachments through the follow-up jobs
    const attachments = await h.pool.query<{ with_flag: number; without_rows: number }>(
      `select count(*)::int as with_flag,
              count(*) filter (where not exists (select 1 from "${h.schema}".absence_attachments x where x.absence_id = a.absence_id))::int as without_rows
         from "${h.schema}".absences a where a.has_attachment and a.deleted_at is null`,
    );
    expect(attachments.rows[0]!.with_flag).toBeGreaterThan(0);
    expect(attachments.rows[0]!.without_rows).toBe(0);
  });

  it('records the settled windows as done, and a second run skips them and changes nothing', async () => {
    const windows = await h.pool.query(`select count(*)::int as n from "${h.schema}".sync_windows`);
    expect(windows.rows[0].n).toBeGreaterThan(0);
    const before = await Promise.all(TABLES.map((t) => digest(h, t)));
    const again = await runBackfill(rt, parseBackfillArgs({ from: FROM, to: TO }, rt.config), {
      pollMs: 200,
    });
    expect(again.failed).toBe(0);
    expect(again.skipped).toBe(windows.rows[0].n);
    expect(again.inserted + again.updated + again.deleted).toBe(0);
    expect(await Promise.all(TABLES.map((t) => digest(h, t)))).toEqual(before);
  }, 120_000);

  it('re-syncs everything with --force and still changes nothing', async () => {
    const before = await Promise.all(TABLES.map((t) => digest(h, t)));
    const forced = await runBackfill(rt, parseBackfillArgs({ from: FROM, to: TO, force: true }, rt.config), {
      pollMs: 200,
    });
    expect(forced.failed).toBe(0);
    expect(forced.skipped).toBe(0);
    expect(forced.total).toBe(first.total);
    expect({ inserted: forced.inserted, updated: forced.updated, deleted: forced.deleted }).toEqual({
      inserted: 0,
      updated: 0,
      deleted: 0,
    });
    expect(await Promise.all(TABLES.map((t) => digest(h, t)))).toEqual(before);
  }, 120_000);

  describe('after the source changes (a punch deleted, a collaborator moved)', () => {
    it('sets deleted_at on the punch and opens a history row for the move', async () => {
      const cnpj = h.emulator.companies[0]!.cnpj;
      const pointId = h.emulator.truth.pointIds(cnpj, '2026-06-01', '2026-06-30')[3]!;
      const listed = h.emulator.truth.collaborators(cnpj).find((c) => c.listed)!;
      const post = (path: string, body: unknown) =>
        fetch(`${h.emulator.url}/__emulator/mutations/${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }).then((r) => expect(r.status).toBe(200));
      await post('delete-punch', { point_id: pointId });
      await post('update-collaborator', {
        cnpj,
        cpf: listed.national_registry,
        department: 'Departamento Novo',
      });

      const resync = await runBackfill(
        rt,
        parseBackfillArgs(
          {
            from: '2026-06-01',
            to: '2026-06-30',
            resources: 'collaborators,punches',
            force: true,
            company: cnpj,
          },
          rt.config,
        ),
        { pollMs: 200 },
      );
      expect(resync.failed).toBe(0);
      expect(resync.deleted).toBeGreaterThanOrEqual(1);

      const punch = await h.pool.query(`select deleted_at from "${h.schema}".punches where point_id = $1`, [
        pointId,
      ]);
      expect(punch.rows[0].deleted_at).toBeInstanceOf(Date);
      const history = await h.pool.query<{ department: string; valid_to: Date | null }>(
        `select department, valid_to from "${h.schema}".collaborator_history
          where company_cnpj = $1 and cpf = $2 order by valid_from`,
        [cnpj, listed.national_registry],
      );
      expect(history.rows).toHaveLength(2);
      expect(history.rows[0]!.department).toBe(listed.department);
      expect(history.rows[0]!.valid_to).toBeInstanceOf(Date);
      expect(history.rows[1]).toMatchObject({ department: 'Departamento Novo', valid_to: null });

      const diffs = await compareWithTruth(h, FROM, TO, EMULATOR_TODAY);
      expect(diffs.punches!.missing).toEqual([]);
      expect(diffs.punches!.extra).toEqual([]);
    }, 120_000);
  });
});
