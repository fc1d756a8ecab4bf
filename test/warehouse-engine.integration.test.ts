import { describe, expect, it } from 'vitest';
import type { CollaboratorPoints, CollaboratorTardiness } from '../src/api/schemas.js';
import { CATALOG } from '../src/resources/index.js';
import { SuspiciousAnswerError } from '../src/load/errors.js';
import type { Removal } from '../src/plan/job-data.js';
import { loadResource } from '../src/load/load-resource.js';
import { mergeStaged } from '../src/warehouse/merge.js';
import { StagedTable, openStaging, type StagedRow } from '../src/warehouse/staging.js';
import type { TableSpec } from '../src/warehouse/table-spec.js';
import { withTransaction } from '../src/warehouse/transaction.js';
import { FixtureApi } from './support/fixture-api.js';
import {
  absenceOf,
  block,
  CNPJ_A,
  CPF_1,
  CPF_2,
  engineOf,
  loadWith,
  point,
  pointsOf,
  TZ,
  useMigratedWarehouse,
} from './warehouse-fixtures.js';

const MARCH = { from: '2024-03-01', to: '2024-03-31' };
const APRIL = { from: '2024-04-01', to: '2024-04-30' };

describe('the load engine', () => {
  const t = useMigratedWarehouse('wh_engine');
  const rows = async (sql: string, params: unknown[] = []) =>
    (await t.admin.query(sql.replaceAll('$S', `"${t.schema}"`), params)).rows;
  const punchesSnapshot = async () => ({
    punches: await rows(`SELECT xmin::text AS version, * FROM $S.punches ORDER BY point_id`),
    days: await rows(
      `SELECT xmin::text AS version, * FROM $S.work_days ORDER BY company_cnpj, cpf, work_date`,
    ),
  });

  describe('staging with COPY in bounded batches', () => {
    /** Every column type a load sends. */
    const spec: TableSpec = {
      table: 'every_type',
      key: ['n'],
      columns: {
        n: 'int4',
        big: 'int8',
        x: 'float8',
        label: 'text',
        flag: 'bool',
        day: 'date',
        local: 'timestamp',
        instant: 'timestamptz',
        clock: 'time',
        bytes: 'bytea',
        tags: 'text[]',
        clocks: 'time[]',
      },
    };
    const awkward = [
      'plain',
      'tab\there',
      'line\nbreak',
      'cr\r',
      'back\\slash',
      '\\N',
      'say "hi"',
      '{a,b}',
      'ação ✓ 😀',
      '',
    ];
    const rowOf = (n: number): StagedRow => ({
      n,
      big: 2 ** 40 + n,
      x: n / 7,
      label: awkward[n % awkward.length]!,
      flag: n % 2 === 0,
      day: '2024-02-29',
      local: '2024-03-04 08:00:00',
      instant: '2024-03-04 08:00:00-03:00',
      clock: '23:59:59',
      bytes: Buffer.from([n % 256, 0, 92]),
      tags: [awkward[(n + 1) % awkward.length]!, null, 'x\ty'],
      clocks: ['08:00', '12:30'],
      ...(n % 7 === 0 ? { label: null, tags: null } : {}),
    });

    it('gives the same rows, in the order added, when sent in many small batches as in one', async () => {
      const staged = await withTransaction(t.w.pool, async (client) => {
        const batches: Record<string, number> = {};
        const onBatch = (stage: string) => (_table: string) =>
          void (batches[stage] = (batches[stage] ?? 0) + 1);
        const small = openStaging(client, [spec], {
          batchBytes: 64,
          stages: ['stage_small'],
          onBatch: onBatch('small'),
        });
        const one = openStaging(client, [spec], { stages: ['stage_one'], onBatch: onBatch('one') });
        for (let n = 0; n < 120; n++) {
          small.table('every_type').add(rowOf(n));
          await small.flushFull();
          one.table('every_type').add(rowOf(n));
          await one.flushFull();
        }
        await small.finish();
        await one.finish();
        const read = async (stage: string) =>
          (await client.query(`SELECT * FROM ${stage} ORDER BY ctid`)).rows;
        return { batches, small: await read('stage_small'), one: await read('stage_one') };
      });
      expect(staged.batches.one).toBe(1);
      expect(staged.batches.small).toBeGreaterThan(50);
      expect(staged.small).toHaveLength(120);
      expect(staged.small).toEqual(staged.one);
      expect(staged.small.map((r) => r.n)).toEqual(Array.from({ length: 120 }, (_, n) => n));
      expect(staged.small[5]).toEqual({
        n: 5,
        big: 2 ** 40 + 5,
        x: 5 / 7,
        label: '\\N',
        flag: false,
        day: '2024-02-29',
        local: '2024-03-04 08:00:00',
        instant: new Date('2024-03-04T11:00:00Z'),
        clock: '23:59:59',
        bytes: Buffer.from([5, 0, 92]),
        tags: ['say "hi"', null, 'x\ty'],
        clocks: ['08:00:00', '12:30:00'],
      });
      expect(staged.small.slice(0, 10).map((r) => r.label)).toEqual([
        null,
        ...awkward.slice(1, 7),
        null,
        ...awkward.slice(8),
      ]);
    });

    it('creates a stage when rows are first sent to it or at the end, and none for a table copied straight in', async () => {
      const exists = async (client: { query: (q: string) => Promise<{ rows: unknown[] }> }, stage: string) =>
        (
          await client.query(
            `SELECT 1 FROM pg_class WHERE relname = '${stage}' AND relpersistence = 't' AND pg_table_is_visible(oid)`,
          )
        ).rows.length === 1;
      const seen = await withTransaction(t.w.pool, async (client) => {
        await client.query(new StagedTable(spec, 'direct_target').createStatement());
        const sent = openStaging(client, [spec], { batchBytes: 64, stages: ['stage_sent'] });
        const empty = openStaging(client, [spec], { stages: ['stage_empty'] });
        const direct = openStaging(client, [spec], { batchBytes: 64, stages: ['stage_direct'] });
        direct.table('every_type').copyInto('direct_target');
        const before = [await exists(client, 'stage_sent'), await exists(client, 'stage_empty')];
        for (let n = 0; n < 20; n++) {
          sent.table('every_type').add(rowOf(n));
          direct.table('every_type').add(rowOf(n));
          await sent.flushFull();
          await direct.flushFull();
        }
        const afterBatches = await exists(client, 'stage_sent');
        await Promise.all([sent.finish(), empty.finish(), direct.finish()]);
        return {
          before,
          afterBatches,
          after: [
            await exists(client, 'stage_sent'),
            await exists(client, 'stage_empty'),
            await exists(client, 'stage_direct'),
          ],
          copied: Number((await client.query('SELECT count(*) AS n FROM direct_target')).rows[0].n),
        };
      });
      expect(seen).toEqual({
        before: [false, false],
        afterBatches: true,
        after: [true, true, false],
        copied: 20,
      });
    });

    it('merges small batches into the warehouse like one', async () => {
      const answer: CollaboratorPoints[] = [CPF_1, CPF_2].map((cpf, c) =>
        pointsOf(
          cpf,
          Object.fromEntries(
            Array.from({ length: 20 }, (_, d) => {
              const date = `2024-05-${String(d + 1).padStart(2, '0')}`;
              return [
                date,
                [
                  point(50_000 + c * 100 + d * 2, `${date} 08:00:00`, { address: `Rua ${d}\tBloco\\B` }),
                  point(50_001 + c * 100 + d * 2, `${date} 17:00:00`),
                ],
              ];
            }),
          ),
        ),
      );
      const declaration = CATALOG.punches;
      const stats = await withTransaction(t.w.pool, async (client) => {
        const staging = openStaging(client, Object.values(declaration.tables), { batchBytes: 64 });
        const api = new FixtureApi({ 'point/getFromPeriod': answer });
        for await (const element of api.stream('point/getFromPeriod', {}, undefined)) {
          if (!element.ok) throw element.error;
          declaration.reads[0]!.rows(
            element.value as never,
            {
              work_days: (r) => staging.table('work_days').add(r),
              punches: (r) => staging.table('punches').add(r),
            },
            {
              company: CNPJ_A,
              toUtc: (local) => `${local}-03:00`,
              storeBinaries: false,
              cpfAsSent: () => null,
              window: { from: '2024-05-01', to: '2024-05-31' },
            },
          );
          await staging.flushFull();
        }
        await staging.finish();
        const scope = { company: CNPJ_A, from: '2024-05-01', to: '2024-05-31' };
        return [
          await mergeStaged(client, t.schema, staging.table('work_days'), scope),
          await mergeStaged(client, t.schema, staging.table('punches'), scope),
        ];
      });
      expect(stats.map((s) => [s.received, s.inserted])).toEqual([
        [40, 40],
        [80, 80],
      ]);
      const before = await punchesSnapshot();
      // The engine, in its default batches, finds every row already as loaded.
      const again = await loadWith(
        t,
        'punches',
        { window: { from: '2024-05-01', to: '2024-05-31' } },
        { 'point/getFromPeriod': answer },
      );
      expect(again.tables.punches).toEqual({
        received: 80,
        inserted: 0,
        updated: 0,
        deleted: 0,
        unchanged: 80,
      });
      expect(again.tables.work_days).toEqual({
        received: 40,
        inserted: 0,
        updated: 0,
        deleted: 0,
        unchanged: 40,
      });
      expect(await punchesSnapshot()).toEqual(before);
      expect((await rows(`SELECT address FROM $S.punches WHERE point_id = 50000`))[0].address).toBe(
        'Rua 0\tBloco\\B',
      );
    });
  });

  describe('when one window answers a key twice', () => {
    it('keeps the last row the API listed (the merge retries without the duplicates)', async () => {
      const twice = [
        pointsOf(CPF_1, {
          '2024-06-03': [
            point(7, '2024-06-03 08:00:00', { address: 'first' }),
            point(8, '2024-06-03 12:00:00'),
          ],
        }),
        pointsOf(CPF_2, { '2024-06-04': [point(7, '2024-06-04 08:01:00', { address: 'last' })] }),
      ];
      const stats = await loadWith(
        t,
        'punches',
        { window: { from: '2024-06-01', to: '2024-06-30' } },
        { 'point/getFromPeriod': twice },
      );
      // received counts distinct keys: point 7 once.
      expect(stats.tables.punches).toMatchObject({
        received: 2,
        inserted: 2,
        updated: 0,
        deleted: 0,
        unchanged: 0,
      });
      expect(
        await rows(
          `SELECT point_id, cpf, work_date::text, punched_at_local::text, address FROM $S.punches WHERE point_id IN (7, 8) ORDER BY 1`,
        ),
      ).toEqual([
        {
          point_id: '7',
          cpf: CPF_2,
          work_date: '2024-06-04',
          punched_at_local: '2024-06-04 08:01:00',
          address: 'last',
        },
        {
          point_id: '8',
          cpf: CPF_1,
          work_date: '2024-06-03',
          punched_at_local: '2024-06-03 12:00:00',
          address: 'Av. Paulista, 1000',
        },
      ]);
      // Loaded again (now an update of an existing row): still the last one.
      const swapped = [twice[1]!, twice[0]!];
      await loadWith(
        t,
        'punches',
        { window: { from: '2024-06-01', to: '2024-06-30' } },
        { 'point/getFromPeriod': swapped },
      );
      expect(await rows(`SELECT cpf, address FROM $S.punches WHERE point_id = 7`)).toEqual([
        { cpf: CPF_1, address: 'first' },
      ]);
    });
  });

  describe('when a window whose scope holds no row yet is loaded', () => {
    const JULY_2023 = { from: '2023-07-01', to: '2023-07-31' };
    const AUGUST_2023 = { from: '2023-08-01', to: '2023-08-31' };
    const punchesOf = async (from: string, to: string) =>
      rows(
        `SELECT point_id, cpf, work_date::text, address, deleted_at FROM $S.punches WHERE work_date BETWEEN '${from}' AND '${to}' ORDER BY 1`,
      );

    it('copies the rows straight in, reading the window once', async () => {
      const api = new FixtureApi({
        'point/getFromPeriod': [
          pointsOf(CPF_1, {
            '2023-07-03': [point(9_001, '2023-07-03 08:00:00'), point(9_002, '2023-07-03 12:00:00')],
          }),
        ],
      });
      const stats = await loadWith(t, 'punches', { window: JULY_2023 }, api);
      expect(api.calls).toHaveLength(1);
      expect(stats.tables.punches).toEqual({
        received: 2,
        inserted: 2,
        updated: 0,
        deleted: 0,
        unchanged: 0,
      });
      expect(stats.tables.work_days).toEqual({
        received: 1,
        inserted: 1,
        updated: 0,
        deleted: 0,
        unchanged: 0,
      });
      expect(await punchesOf(JULY_2023.from, JULY_2023.to)).toEqual([
        expect.objectContaining({ point_id: '9001', cpf: CPF_1, deleted_at: null }),
        expect.objectContaining({ point_id: '9002', cpf: CPF_1, deleted_at: null }),
      ]);
    });

    it('reads the window again and merges it when a key it answers is already stored outside the window', async () => {
      // Point 9001 moved from July to August: the fresh August window meets its key.
      const api = new FixtureApi({
        'point/getFromPeriod': [
          pointsOf(CPF_1, {
            '2023-08-01': [
              point(9_001, '2023-08-01 08:00:00', { address: 'moved' }),
              point(9_003, '2023-08-01 12:00:00'),
            ],
          }),
        ],
      });
      const stats = await loadWith(t, 'punches', { window: AUGUST_2023 }, api);
      expect(api.calls).toHaveLength(2);
      expect(stats.tables.punches).toEqual({
        received: 2,
        inserted: 1,
        updated: 1,
        deleted: 0,
        unchanged: 0,
      });
      expect(await punchesOf(AUGUST_2023.from, AUGUST_2023.to)).toEqual([
        expect.objectContaining({ point_id: '9001', work_date: '2023-08-01', address: 'moved' }),
        expect.objectContaining({ point_id: '9003', work_date: '2023-08-01' }),
      ]);
    });

    it('reads the window again and keeps the last row when the answer holds a key twice', async () => {
      const api = new FixtureApi({
        'point/getFromPeriod': [
          pointsOf(CPF_1, { '2023-09-04': [point(9_010, '2023-09-04 08:00:00', { address: 'first' })] }),
          pointsOf(CPF_2, { '2023-09-05': [point(9_010, '2023-09-05 08:00:00', { address: 'last' })] }),
        ],
      });
      const stats = await loadWith(t, 'punches', { window: { from: '2023-09-01', to: '2023-09-30' } }, api);
      expect(api.calls).toHaveLength(2);
      expect(stats.tables.punches).toMatchObject({ received: 1, inserted: 1 });
      expect(await rows(`SELECT cpf, address FROM $S.punches WHERE point_id = 9010`)).toEqual([
        { cpf: CPF_2, address: 'last' },
      ]);
    });
  });

  describe('the mass-removal guard', () => {
    const days = ['2024-04-01', '2024-04-02', '2024-04-03', '2024-04-04'];
    const late = (dates: string[]): CollaboratorTardiness[] => [
      {
        ...block(CPF_1),
        tardiness: dates.map((date) => ({
          date,
          journey_in: '08:00',
          punch_in: '08:20',
          minutes_late: '00:20',
          all_points: ['08:20'],
        })),
      },
    ];
    /** Tardiness of April answered by `answer(n)` on the n-th call. */
    const loadApril = (answer: (n: number) => CollaboratorTardiness[]) => {
      const api = new FixtureApi({ tardiness: (_q, call) => answer(call.n) });
      return { api, result: loadWith(t, 'tardiness', { window: APRIL, attempts: 1 }, api) };
    };
    const april = async () =>
      rows(
        `SELECT xmin::text AS version, * FROM $S.tardiness WHERE work_date BETWEEN '2024-04-01' AND '2024-04-30' ORDER BY work_date`,
      );

    it('applies a removal of a small share of the window on one answer', async () => {
      await loadApril(() => late(days)).result;
      const { api, result } = loadApril(() => late(days.slice(1)));
      expect((await result).tables.tardiness).toEqual({
        received: 3,
        inserted: 0,
        updated: 0,
        deleted: 1,
        unchanged: 3,
      });
      expect(api.calls).toHaveLength(1);
      await loadApril(() => late(days)).result;
    });

    /** What the guard refused when an answer would have emptied April (set by the test below). */
    let refusedAll: readonly Removal[] = [];

    it('refuses an answer that would empty the window: removes nothing and says what it refused', async () => {
      const before = await april();
      expect(before).toHaveLength(4);
      const { api, result } = loadApril(() => []);
      const err = await result.catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SuspiciousAnswerError);
      expect((err as SuspiciousAnswerError).code).toBe('suspicious_answer');
      expect((err as SuspiciousAnswerError).refused).toEqual([
        { table: 'tardiness', live: 4, removing: 4, digest: expect.stringMatching(/^[0-9a-f]{32}$/) },
      ]);
      refusedAll = (err as SuspiciousAnswerError).refused;
      expect((err as Error).message).toBe(
        "tardiness: the answer would remove 4 of the window's 4 live tardiness rows; nothing was removed, the next attempt reads the window again and removes only if its answer agrees",
      );
      expect(api.calls).toHaveLength(1);
      expect(await april()).toEqual(before);
    });

    it('removes nothing on the next attempt when its answer has the rows', async () => {
      const before = await april();
      const api = new FixtureApi({ tardiness: () => late(days) });
      const stats = await loadWith(t, 'tardiness', { window: APRIL, seenRemovals: refusedAll }, api);
      expect(stats.tables.tardiness).toEqual({
        received: 4,
        inserted: 0,
        updated: 0,
        deleted: 0,
        unchanged: 4,
      });
      expect(await april()).toEqual(before);
    });

    it('refuses again when the next answer differs and is suspicious too, naming both', async () => {
      const before = await april();
      const api = new FixtureApi({ tardiness: () => late(days.slice(0, 1)) });
      const err = await loadWith(
        t,
        'tardiness',
        { window: APRIL, seenRemovals: refusedAll, attempts: 1 },
        api,
      ).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SuspiciousAnswerError);
      expect((err as Error).message).toBe(
        "tardiness: the answer would remove 3 of the window's 4 live tardiness rows; the previous attempt's answer differed (4 of 4 tardiness); nothing was removed, the next attempt reads the window again and removes only if its answer agrees",
      );
      expect(await april()).toEqual(before);
    });

    it('refuses again when the next answer removes as many rows but other ones', async () => {
      const before = await april();
      const first = await loadWith(
        t,
        'tardiness',
        { window: APRIL, attempts: 1 },
        { tardiness: () => late(days.slice(0, 1)) },
      ).catch((e: unknown) => e);
      const refused = (first as SuspiciousAnswerError).refused;
      expect(refused).toEqual([expect.objectContaining({ table: 'tardiness', live: 4, removing: 3 })]);
      // Another 3 of the 4 days: same count, other rows.
      const second = await loadWith(
        t,
        'tardiness',
        { window: APRIL, seenRemovals: refused, attempts: 1 },
        { tardiness: () => late(days.slice(3)) },
      ).catch((e: unknown) => e);
      expect(second).toBeInstanceOf(SuspiciousAnswerError);
      expect((second as SuspiciousAnswerError).refused).toEqual([
        expect.objectContaining({ table: 'tardiness', live: 4, removing: 3 }),
      ]);
      expect((second as SuspiciousAnswerError).refused[0]!.digest).not.toBe(refused[0]!.digest);
      expect(await april()).toEqual(before);
      // The same 3 days again: applied.
      const third = await loadWith(
        t,
        'tardiness',
        { window: APRIL, seenRemovals: (second as SuspiciousAnswerError).refused },
        { tardiness: () => late(days.slice(3)) },
      );
      expect(third.tables.tardiness).toMatchObject({ deleted: 3 });
      await loadApril(() => late(days)).result;
    });

    it('applies the removal on the next attempt when its answer agrees', async () => {
      const api = new FixtureApi({ tardiness: () => [] });
      const stats = await loadWith(t, 'tardiness', { window: APRIL, seenRemovals: refusedAll }, api);
      expect(stats.tables.tardiness).toEqual({
        received: 0,
        inserted: 0,
        updated: 0,
        deleted: 4,
        unchanged: 0,
      });
      expect(await april()).toEqual([]);
    });

    it('judges every table of the resource: both refused at once, both applied when the next answer agrees', async () => {
      const window = { from: '2024-07-01', to: '2024-07-31' };
      await loadWith(
        t,
        'punches',
        { window },
        {
          'point/getFromPeriod': [pointsOf(CPF_1, { '2024-07-01': [point(70_001, '2024-07-01 08:00:00')] })],
        },
      );
      const err = await loadWith(t, 'punches', { window, attempts: 1 }, { 'point/getFromPeriod': [] }).catch(
        (e: unknown) => e,
      );
      const refused = (err as SuspiciousAnswerError).refused;
      expect(refused).toEqual([
        { table: 'work_days', live: 1, removing: 1, digest: expect.any(String) },
        { table: 'punches', live: 1, removing: 1, digest: expect.any(String) },
      ]);
      const stats = await loadWith(
        t,
        'punches',
        { window, seenRemovals: refused },
        { 'point/getFromPeriod': [] },
      );
      expect(stats.tables.work_days).toMatchObject({ deleted: 1 });
      expect(stats.tables.punches).toMatchObject({ deleted: 1 });
    });
  });

  describe('when an element breaks its schema', () => {
    async function rejected() {
      return rows(
        `SELECT endpoint, element_index, json_path, reason, record, resolved_at FROM $S.rejected_records ORDER BY id`,
      );
    }

    it('rejects the one bad punch with its path and reason, loads the rest, and keeps its rows from deletion', async () => {
      await t.admin.query(`DELETE FROM ${t.schema}.rejected_records`);
      await loadWith(
        t,
        'punches',
        { window: MARCH },
        {
          'point/getFromPeriod': [
            pointsOf(CPF_1, { '2024-03-04': [point(301, '2024-03-04 08:00:00')] }),
            pointsOf(CPF_2, { '2024-03-05': [point(305, '2024-03-05 08:00:00')] }),
          ],
        },
      );
      const changed = pointsOf(CPF_1, {
        '2024-03-04': [
          point(301, '2024-03-04 08:00:00', { address: 'changed' }),
          point(303, '2024-03-04 09:00:00'),
        ],
      });
      // CPF_2's punch 305 is gone from the answer, and its other punch is broken.
      const bad = pointsOf(CPF_2, { '2024-03-05': [point(302, '2024-03-05 25:00:00')] });
      const result = await loadWith(
        t,
        'punches',
        { window: MARCH },
        { 'point/getFromPeriod': [changed, bad] },
      );
      expect(result.rejected).toBe(1);
      expect(await rejected()).toEqual([
        {
          endpoint: 'point/getFromPeriod',
          element_index: 1,
          json_path: 'data[1].days[0].points[0]',
          reason: 'datetime: expected a date-time YYYY-MM-DD HH:MM:SS (spec 1.2)',
          record: expect.objectContaining({ point_id: 302, datetime: '2024-03-05 25:00:00' }),
          resolved_at: null,
        },
      ]);
      expect(
        await rows(
          `SELECT point_id, address, deleted_at IS NULL AS live FROM $S.punches WHERE point_id IN (301, 302, 303, 305) ORDER BY 1`,
        ),
      ).toEqual([
        { point_id: '301', address: 'changed', live: true },
        { point_id: '303', address: expect.any(String), live: true },
        // Not taken for deleted: the rejected record stands for CPF_2's rows of the window.
        { point_id: '305', address: expect.any(String), live: true },
      ]);
      // The day of the rejected punch still loads.
      expect(
        await rows(`SELECT cpf FROM $S.work_days WHERE work_date = '2024-03-05' AND deleted_at IS NULL`),
      ).toEqual([{ cpf: CPF_2 }]);

      // A later answer without the broken record resolves the rejection.
      await loadWith(
        t,
        'punches',
        { window: MARCH },
        {
          'point/getFromPeriod': [
            changed,
            pointsOf(CPF_2, { '2024-03-05': [point(302, '2024-03-05 10:00:00')] }),
          ],
        },
      );
      expect((await rejected()).map((r) => r.resolved_at)).toEqual([expect.any(Date)]);
      expect(await rows(`SELECT deleted_at IS NULL AS live FROM $S.punches WHERE point_id = 305`)).toEqual([
        { live: false },
      ]);
    });

    it('follows a record through the shifting windows of a schedule: one open rejection while it stays broken, resolved once it is sent right', async () => {
      await t.admin.query(`DELETE FROM ${t.schema}.rejected_records`);
      const answer = (datetime: string) => ({
        'point/getFromPeriod': [
          pointsOf(CPF_1, {
            '2024-09-04': [point(401, '2024-09-04 08:00:00')],
            '2024-09-05': [point(402, datetime)],
          }),
        ],
      });
      const open = async () =>
        rows(
          `SELECT window_start::text AS from, record->>'point_id' AS id FROM $S.rejected_records WHERE resolved_at IS NULL`,
        );
      // The punches schedule reads the last 7 days: each day's window starts a day later.
      await loadWith(
        t,
        'punches',
        { window: { from: '2024-09-01', to: '2024-09-07' } },
        answer('2024-09-05 25:00:00'),
      );
      expect(await open()).toEqual([{ from: '2024-09-01', id: '402' }]);
      await loadWith(
        t,
        'punches',
        { window: { from: '2024-09-02', to: '2024-09-08' } },
        answer('2024-09-05 25:00:00'),
      );
      expect(await open()).toEqual([{ from: '2024-09-02', id: '402' }]);
      await loadWith(
        t,
        'punches',
        { window: { from: '2024-09-03', to: '2024-09-09' } },
        answer('2024-09-05 17:00:00'),
      );
      expect(await open()).toEqual([]);
      expect(
        await rows(`SELECT count(*)::int AS n FROM $S.rejected_records WHERE record->>'point_id' = '402'`),
      ).toEqual([{ n: 1 }]);
    });

    it('rejects a whole element broken at its own level, and then deletes nothing of the window', async () => {
      await t.admin.query(`DELETE FROM ${t.schema}.rejected_records`);
      const before = await punchesSnapshot();
      const broken = { ...pointsOf(CPF_2, {}), national_registry: 'not a cpf' };
      const result = await loadWith(t, 'punches', { window: MARCH }, { 'point/getFromPeriod': [broken] });
      expect(result.rejected).toBe(1);
      expect((await rejected()).map((r) => [r.json_path, r.reason])).toEqual([
        ['data[0]', 'national_registry: expected a CPF: up to 11 digits (spec 1.2)'],
      ]);
      expect(await punchesSnapshot()).toEqual(before);
    });

    it('takes a CPF sent without its leading zeros, or formatted, as its 11 digits, keeping what was sent', async () => {
      const unpadded = {
        ...pointsOf(CPF_2, { '2024-08-07': [point(306, '2024-08-07 08:00:00')] }),
        national_registry: 45678901,
      };
      const formatted = {
        ...pointsOf(CPF_2, { '2024-08-07': [point(307, '2024-08-07 08:00:00')] }),
        national_registry: '987.654.321-00',
      };
      const result = await loadWith(
        t,
        'punches',
        { window: { from: '2024-08-01', to: '2024-08-31' } },
        { 'point/getFromPeriod': [unpadded, formatted] },
      );
      expect(result.rejected).toBe(0);
      expect(
        await rows(`SELECT point_id, cpf FROM $S.punches WHERE point_id IN (306, 307) ORDER BY 1`),
      ).toEqual([
        { point_id: '306', cpf: '00045678901' },
        { point_id: '307', cpf: '98765432100' },
      ]);
      expect(
        await rows(
          `SELECT cpf, cpf_as_sent FROM $S.collaborators WHERE cpf IN ('00045678901', '98765432100') ORDER BY 1`,
        ),
      ).toEqual([
        { cpf: '00045678901', cpf_as_sent: '45678901' },
        { cpf: '98765432100', cpf_as_sent: '987.654.321-00' },
      ]);
    });
  });

  describe('when several calls of one load each reject an element at the same position', () => {
    const balance = (cpf: string, accumulated: string) => ({
      ...block(cpf),
      regime: 'BH',
      total_overtime: '01:00:00',
      missing_hours: '00:00:00',
      interval_hours: '01:00:00',
      normal_hours: '08:00:00',
      day_balance: '-00:30:00',
      accumulated_balance: accumulated,
      credit: '01:00:00',
      debt: '00:00:00',
    });

    const open = () =>
      rows(
        `SELECT window_start::text AS day, window_end::text AS last, record->>'accumulated_balance' AS value FROM $S.rejected_records WHERE resolved_at IS NULL ORDER BY 1`,
      );

    // Both sit at data[0] of their day's answer and the records are alike (a balance names
    // no day): the day asked tells them apart.
    it('records each rejection, one per day, dated by the day asked', async () => {
      await t.admin.query(`DELETE FROM ${t.schema}.rejected_records`);
      const api = new FixtureApi({ overtime: () => [balance(CPF_1, 'bad'), balance(CPF_2, '01:00:00')] });
      const result = await loadWith(
        t,
        'hour_bank',
        { window: { from: '2024-05-10', to: '2024-05-11' } },
        api,
      );
      expect(result.rejected).toBe(2);
      expect(await open()).toEqual([
        { day: '2024-05-10', last: '2024-05-10', value: 'bad' },
        { day: '2024-05-11', last: '2024-05-11', value: 'bad' },
      ]);
    });

    it("resolves a day's rejection when a later window reads that day right, and keeps the other day's open", async () => {
      // The schedules' windows shift: 05-11..05-12 now, and 05-11 is answered right.
      const api = new FixtureApi({
        overtime: (q) => [
          balance(CPF_1, q.date === '2024-05-11' ? '02:00:00' : 'bad'),
          balance(CPF_2, '01:00:00'),
        ],
      });
      const result = await loadWith(
        t,
        'hour_bank',
        { window: { from: '2024-05-11', to: '2024-05-12' } },
        api,
      );
      expect(result.rejected).toBe(1);
      expect(await open()).toEqual([
        { day: '2024-05-10', last: '2024-05-10', value: 'bad' },
        { day: '2024-05-12', last: '2024-05-12', value: 'bad' },
      ]);
    });
  });

  describe('when a derived value does not fit its column', () => {
    const rejected = () => rows(`SELECT json_path, reason FROM $S.rejected_records ORDER BY id`);

    it('rejects the element, naming table.column, and loads the rest', async () => {
      await t.admin.query(`DELETE FROM ${t.schema}.rejected_records`);
      const huge = {
        ...pointsOf(CPF_1, {}),
        days: [
          { date: '2024-03-06', shift: 'x', worked_time: 1e306, points: [point(308, '2024-03-06 08:00:00')] },
        ],
      };
      const result = await loadWith(
        t,
        'punches',
        { window: { from: '2024-03-06', to: '2024-03-06' } },
        {
          'point/getFromPeriod': [
            pointsOf(CPF_2, { '2024-03-06': [point(304, '2024-03-06 08:00:00')] }),
            huge,
          ],
        },
      );
      expect(result.rejected).toBe(1);
      expect((await rejected()).map((r) => [r.json_path, r.reason])).toEqual([
        ['data[1]', 'work_days.worked_seconds: cannot store the number Infinity'],
      ]);
      // Nothing of the rejected element is stored; the other element is.
      expect(await rows(`SELECT point_id FROM $S.punches WHERE point_id IN (304, 308) ORDER BY 1`)).toEqual([
        { point_id: '304' },
      ]);
    });
  });

  describe('the warehouse schema', () => {
    it('is the one the engine is given, whatever the pool’s search_path', async () => {
      const ctx = {
        ...engineOf(
          t,
          new FixtureApi({
            'absence/getFromPeriod': [absenceOf(20, '2024-03-10 00:00:00', '2024-03-10 23:59:59', [CPF_1])],
          }),
        ),
        pool: t.admin,
      };
      const result = await loadResource(ctx, {
        connection: 'default',
        name: 'absences',
        declaration: CATALOG.absences,
        company: CNPJ_A,
        scope: undefined,
        timezone: TZ,
        window: MARCH,
      });
      expect(result.tables.absences).toMatchObject({ inserted: 1 });
    });
  });
});
