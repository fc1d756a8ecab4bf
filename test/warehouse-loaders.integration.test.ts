import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../src/api/errors.js';
import type { Params } from '../src/api/query.js';
import type {
  CollaboratorAdjustments,
  CollaboratorTardiness,
  Company,
  OvertimeBalance,
} from '../src/api/schemas.js';
import type { CollaboratorInconsistencies } from '../src/resources/inconsistencies.js';
import { PermanentSyncError } from '../src/load/errors.js';
import { toPgArray } from '../src/warehouse/pg-array.js';
import { FixtureApi, type Answers } from './support/fixture-api.js';
import {
  absenceOf,
  block,
  CNPJ_A,
  CNPJ_B,
  CPF_1,
  CPF_2,
  loadWith,
  point,
  pointsOf,
  totalsOf,
  useMigratedWarehouse,
} from './warehouse-fixtures.js';

const MARCH = { from: '2024-03-01', to: '2024-03-31' };
const FEBRUARY = { from: '2024-02-01', to: '2024-02-29' };
const APRIL = { from: '2024-04-01', to: '2024-04-30' };

describe('warehouse loads through the engine', () => {
  const t = useMigratedWarehouse('wh_load');
  const rows = async (sql: string, params: unknown[] = []) =>
    (await t.w.pool.query(sql.replaceAll('$S', `"${t.schema}"`), params)).rows;

  describe('array literals (toPgArray)', () => {
    it('round-trip awkward text, numbers, booleans and bytes through Postgres unchanged', async () => {
      const texts = [
        'plain',
        'say "hi"',
        'back\\slash',
        'line\nbreak\ttab\r',
        '\\n literally',
        'NULL',
        '',
        null,
        '{braces}, commas',
        'ação ✓ 😀',
        ' padded ',
      ];
      const [{ t: got }] = await rows('SELECT $1::text[] AS t', [toPgArray(texts)]);
      expect(got).toEqual(texts);
      const [{ n, b, x }] = await rows('SELECT $1::float8[] AS n, $2::bool[] AS b, $3::bytea[] AS x', [
        toPgArray([1, -2.5, 0, 1e-7, null]),
        toPgArray([true, false, null]),
        toPgArray([Buffer.from([0, 1, 255]), null]),
      ]);
      expect(n).toEqual([1, -2.5, 0, 1e-7, null]);
      expect(b).toEqual([true, false, null]);
      expect(x).toEqual([Buffer.from([0, 1, 255]), null]);
    });
  });

  describe('hour totals', () => {
    const data = [
      totalsOf(CPF_1, { bank_time: '-123:45:06', worked_time: '176:00:00' }),
      totalsOf(CPF_2, { bank_time: -1.5 }, 2.25),
    ];

    it('round-trips a negative duration over 99 hours and decimal hours as signed seconds', async () => {
      const stats = await loadWith(t, 'hour_totals', { window: MARCH }, { 'collaborator/totalHours': data });
      expect(stats.tables.hour_totals).toEqual({
        received: 2,
        inserted: 2,
        updated: 0,
        deleted: 0,
        unchanged: 0,
      });
      const got =
        await rows(`SELECT cpf, period_start, period_end, bank_time_seconds, worked_time_seconds, over_time_holiday_night_reduced_seconds
                                FROM $S.hour_totals ORDER BY cpf`);
      expect(got).toEqual([
        {
          cpf: CPF_1,
          period_start: '2024-03-01',
          period_end: '2024-03-31',
          bank_time_seconds: -(123 * 3600 + 45 * 60 + 6),
          worked_time_seconds: 176 * 3600,
          over_time_holiday_night_reduced_seconds: 3600,
        },
        {
          cpf: CPF_2,
          period_start: '2024-03-01',
          period_end: '2024-03-31',
          bank_time_seconds: -5400,
          worked_time_seconds: 8100,
          over_time_holiday_night_reduced_seconds: 8100,
        },
      ]);
      const hours = await rows(
        `SELECT cpf, month, periods, bank_time_hours, worked_time_hours FROM $S.monthly_hours ORDER BY cpf`,
      );
      expect(hours).toEqual([
        {
          cpf: CPF_1,
          month: '2024-03-01',
          periods: 1,
          bank_time_hours: '-123.75',
          worked_time_hours: '176.00',
        },
        { cpf: CPF_2, month: '2024-03-01', periods: 1, bank_time_hours: '-1.50', worked_time_hours: '2.25' },
      ]);
    });

    it('changes nothing when the period is loaded again', async () => {
      const before = await rows(`SELECT xmin::text, * FROM $S.hour_totals ORDER BY cpf`);
      const stats = await loadWith(t, 'hour_totals', { window: MARCH }, { 'collaborator/totalHours': data });
      expect(stats.tables.hour_totals).toEqual({
        received: 2,
        inserted: 0,
        updated: 0,
        deleted: 0,
        unchanged: 2,
      });
      expect(await rows(`SELECT xmin::text, * FROM $S.hour_totals ORDER BY cpf`)).toEqual(before);
    });

    it('replaces overlapping periods of the company, so current rows never overlap', async () => {
      const stats = await loadWith(
        t,
        'hour_totals',
        { window: { from: '2024-03-01', to: '2024-03-15' } },
        { 'collaborator/totalHours': [totalsOf(CPF_1, {}, '10:00:00')] },
      );
      expect(stats.tables.hour_totals).toMatchObject({ inserted: 1, deleted: 2 });
      await loadWith(
        t,
        'hour_totals',
        { window: { from: '2024-03-16', to: '2024-03-31' } },
        { 'collaborator/totalHours': [totalsOf(CPF_1, {}, '20:00:00')] },
      );
      await loadWith(
        t,
        'hour_totals',
        { window: APRIL },
        { 'collaborator/totalHours': [totalsOf(CPF_1, {}, '01:00:00')] },
      );
      expect(
        await rows(`SELECT cpf, month, periods, worked_time_hours FROM $S.monthly_hours ORDER BY cpf, month`),
      ).toEqual([
        { cpf: CPF_1, month: '2024-03-01', periods: 2, worked_time_hours: '30.00' },
        { cpf: CPF_1, month: '2024-04-01', periods: 1, worked_time_hours: '1.00' },
      ]);
    });
  });

  describe('replaced lists (tardiness, adjustments, inconsistencies)', () => {
    const tardiness = (late: string): CollaboratorTardiness[] => [
      {
        ...block(CPF_1),
        tardiness: [
          {
            date: '2024-03-04',
            journey_in: '08:00',
            punch_in: '08:25',
            minutes_late: late,
            all_points: ['08:25', '12:00', '13:00', '17:00'],
          },
          {
            date: '2024-03-05',
            journey_in: '08:00',
            punch_in: '08:05',
            minutes_late: '00:05',
            all_points: ['08:05'],
          },
        ],
      },
    ];
    const loadTardiness = (window: { from: string; to: string }, data: CollaboratorTardiness[]) =>
      loadWith(t, 'tardiness', { window }, { tardiness: data });

    it('loads tardiness with times of day and lateness in seconds, and a reload rewrites nothing', async () => {
      expect((await loadTardiness(MARCH, tardiness('00:25'))).tables.tardiness).toMatchObject({
        inserted: 2,
      });
      const before = await rows(`SELECT xmin::text, * FROM $S.tardiness ORDER BY work_date`);
      expect(
        before.map((r) => [r.work_date, r.journey_in, r.punch_in, r.late_seconds, r.all_points]),
      ).toEqual([
        ['2024-03-04', '08:00:00', '08:25:00', 1500, ['08:25:00', '12:00:00', '13:00:00', '17:00:00']],
        ['2024-03-05', '08:00:00', '08:05:00', 300, ['08:05:00']],
      ]);
      expect((await loadTardiness(MARCH, tardiness('00:25'))).tables.tardiness).toEqual({
        received: 2,
        inserted: 0,
        updated: 0,
        deleted: 0,
        unchanged: 2,
      });
      expect(await rows(`SELECT xmin::text, * FROM $S.tardiness ORDER BY work_date`)).toEqual(before);
    });

    it('removes tardiness of the window the API no longer returns, keeping other windows', async () => {
      await loadTardiness(APRIL, [
        {
          ...block(CPF_1),
          tardiness: [
            {
              date: '2024-04-01',
              journey_in: '08:00',
              punch_in: '08:30',
              minutes_late: '00:30',
              all_points: [],
            },
          ],
        },
      ]);
      const stats = await loadTardiness(MARCH, [
        { ...block(CPF_1), tardiness: tardiness('00:25')[0]!.tardiness.slice(1) },
      ]);
      expect(stats.tables.tardiness).toMatchObject({ deleted: 1, unchanged: 1 });
      expect((await rows(`SELECT work_date FROM $S.tardiness ORDER BY 1`)).map((r) => r.work_date)).toEqual([
        '2024-03-05',
        '2024-04-01',
      ]);
    });

    it("rejects a clock time that is not a time of day, keeping that collaborator's rows", async () => {
      const before = await rows(`SELECT xmin::text, * FROM $S.tardiness ORDER BY work_date`);
      const bad = [
        {
          ...block(CPF_1),
          tardiness: [
            {
              date: '2024-03-06',
              journey_in: '25:00',
              punch_in: '08:00',
              minutes_late: '00:10',
              all_points: [],
            },
          ],
        },
      ];
      const result = await loadTardiness(MARCH, bad);
      expect(result.rejected).toBe(1);
      expect(
        await rows(
          `SELECT json_path, reason FROM $S.rejected_records WHERE endpoint = 'tardiness' AND resolved_at IS NULL`,
        ),
      ).toEqual([{ json_path: 'data[0]', reason: 'journey_in "25:00" is not a time of day (spec 2.8)' }]);
      // Nothing of CPF_1 is taken for deleted while its record is rejected.
      expect(await rows(`SELECT xmin::text, * FROM $S.tardiness ORDER BY work_date`)).toEqual(before);
    });

    const adjustments = (statuses: string[]): CollaboratorAdjustments[] => [
      {
        ...block(CPF_1),
        adjustments: statuses.map((status, i) => ({
          date: '2024-03-07',
          requests_in_day: statuses.length,
          type: 'Inclusão',
          status: status as 'Pendente',
          collaborator_reason: `reason ${i}`,
          manager_observation: '',
          approved_by: '',
          created_at: '2024-03-07 18:00:00',
          updated_at: '2024-03-08 09:30:00',
        })),
      },
    ];
    const loadAdjustments = (data: CollaboratorAdjustments[]) =>
      loadWith(t, 'adjustments', { window: MARCH }, { adjustment: data });

    it('numbers adjustment requests per collaborator and day, converts their date-times, and a reload rewrites nothing', async () => {
      expect(
        (await loadAdjustments(adjustments(['Pendente', 'Aprovado']))).tables.adjustment_requests,
      ).toMatchObject({ inserted: 2 });
      const before = await rows(`SELECT xmin::text, * FROM $S.adjustment_requests ORDER BY seq`);
      expect(
        before.map((r) => [
          r.seq,
          r.status,
          r.collaborator_reason,
          r.created_at_local,
          r.created_at.toISOString(),
        ]),
      ).toEqual([
        [1, 'Pendente', 'reason 0', '2024-03-07 18:00:00', '2024-03-07T21:00:00.000Z'],
        [2, 'Aprovado', 'reason 1', '2024-03-07 18:00:00', '2024-03-07T21:00:00.000Z'],
      ]);
      expect(
        (await loadAdjustments(adjustments(['Pendente', 'Aprovado']))).tables.adjustment_requests,
      ).toEqual({ received: 2, inserted: 0, updated: 0, deleted: 0, unchanged: 2 });
      expect(await rows(`SELECT xmin::text, * FROM $S.adjustment_requests ORDER BY seq`)).toEqual(before);
    });

    it('replaces the window’s adjustment requests with what the API returns now', async () => {
      const stats = await loadAdjustments(adjustments(['Recusado']));
      expect(stats.tables.adjustment_requests).toEqual({
        received: 1,
        inserted: 0,
        updated: 1,
        deleted: 1,
        unchanged: 0,
      });
      expect(await rows(`SELECT seq, status FROM $S.adjustment_requests`)).toEqual([
        { seq: 1, status: 'Recusado' },
      ]);
    });

    it('replaces inconsistencies per window, with signed values in seconds', async () => {
      const data = (values: string[]): CollaboratorInconsistencies[] => [
        {
          ...block(CPF_2),
          occurrences: values.map((value) => ({
            date: '2024-03-08',
            type: 'Interjornada',
            value,
            justification: null,
            status: 'pending' as const,
          })),
        },
      ];
      const load = async (values: string[]) =>
        (await loadWith(t, 'inconsistencies', { window: MARCH }, { inconsistency: data(values) })).tables
          .inconsistencies;
      expect(await load(['-01:30:00', '02:00:00'])).toMatchObject({ inserted: 2 });
      expect(await load(['-01:30:00', '02:00:00'])).toMatchObject({ unchanged: 2, updated: 0 });
      expect(await load(['-01:30:00'])).toMatchObject({ deleted: 1, unchanged: 1 });
      expect(await rows(`SELECT cpf, seq, value_seconds, status FROM $S.inconsistencies`)).toEqual([
        { cpf: CPF_2, seq: 1, value_seconds: -5400, status: 'pending' },
      ]);
    });
  });

  describe('hour bank', () => {
    const balance = (cpf: string, accumulated: string): OvertimeBalance => ({
      ...block(cpf),
      regime: 'Híbrido (BH)',
      total_overtime: '01:00:00',
      missing_hours: '00:00:00',
      interval_hours: '01:00:00',
      normal_hours: '08:00:00',
      day_balance: '-00:30:00',
      accumulated_balance: accumulated,
      credit: '150:00:00',
      debt: '-210:15:00',
    });

    it('reads a window one call per day, stores balances in seconds, and marks collaborators a day no longer returns deleted', async () => {
      const api = new FixtureApi({
        overtime: (q: Params) =>
          q.date === '2024-03-10'
            ? [balance(CPF_1, '-100:00:01'), balance(CPF_2, '05:00:00')]
            : [balance(CPF_2, '05:00:00')],
      });
      const first = await loadWith(t, 'hour_bank', { window: { from: '2024-03-10', to: '2024-03-11' } }, api);
      expect(
        api
          .callsTo('overtime')
          .map((c) => c.query.date)
          .sort(),
      ).toEqual(['2024-03-10', '2024-03-11']);
      expect(first.tables.hour_bank_balances).toMatchObject({ received: 3, inserted: 3 });
      const day = { from: '2024-03-10', to: '2024-03-10' };
      const stats = await loadWith(
        t,
        'hour_bank',
        { window: day },
        { overtime: [balance(CPF_1, '-100:00:01')] },
      );
      expect(stats.tables.hour_bank_balances).toEqual({
        received: 1,
        inserted: 0,
        updated: 0,
        deleted: 1,
        unchanged: 1,
      });
      expect(
        await rows(`SELECT cpf, balance_date, regime, accumulated_balance_seconds, debt_seconds, deleted_at IS NOT NULL AS deleted
                           FROM $S.hour_bank_balances ORDER BY balance_date, cpf`),
      ).toEqual([
        {
          cpf: CPF_1,
          balance_date: '2024-03-10',
          regime: 'Híbrido (BH)',
          accumulated_balance_seconds: -360001,
          debt_seconds: -756900,
          deleted: false,
        },
        {
          cpf: CPF_2,
          balance_date: '2024-03-10',
          regime: 'Híbrido (BH)',
          accumulated_balance_seconds: 18000,
          debt_seconds: -756900,
          deleted: true,
        },
        {
          cpf: CPF_2,
          balance_date: '2024-03-11',
          regime: 'Híbrido (BH)',
          accumulated_balance_seconds: 18000,
          debt_seconds: -756900,
          deleted: false,
        },
      ]);
    });
  });

  describe('absences', () => {
    const inMarch = absenceOf(10, '2024-03-20 00:00:00', '2024-03-22 23:59:59', [CPF_1, CPF_2]);
    const acrossMonths = absenceOf(11, '2024-02-26 08:00:00', '2024-03-02 18:00:00', [CPF_1]);
    const february = absenceOf(12, '2024-02-05 00:00:00', '2024-02-06 23:59:59', [CPF_2]);
    const loadAbsences = (window: { from: string; to: string }, data: unknown[]) => {
      const api = new FixtureApi({ 'absence/getFromPeriod': data });
      return { api, result: loadWith(t, 'absences', { window }, api) };
    };

    it('stores absences with both date-time forms and arrays, and their collaborators', async () => {
      await loadAbsences(FEBRUARY, [acrossMonths, february]).result;
      const { api, result } = loadAbsences(MARCH, [inMarch, acrossMonths]);
      const stats = await result;
      // spec 4.1: this endpoint takes date-times.
      expect(api.calls.map((c) => c.query)).toEqual([
        { begin_date: '2024-03-01 00:00:00', end_date: '2024-03-31 23:59:59' },
      ]);
      expect(stats.tables).toEqual({
        absences: { received: 2, inserted: 1, updated: 0, deleted: 0, unchanged: 1 },
        absence_collaborators: { received: 3, inserted: 2, updated: 0, deleted: 0, unchanged: 1 },
        collaborators: { received: 2, inserted: 0, updated: 0, deleted: 0, unchanged: 2 },
      });
      const [a] = await rows(`SELECT * FROM $S.absences WHERE absence_id = 11`);
      expect([a.begins_at_local, a.begins_at.toISOString(), a.ends_at_local, a.cid, a.company_cnpj]).toEqual([
        '2024-02-26 08:00:00',
        '2024-02-26T11:00:00.000Z',
        '2024-03-02 18:00:00',
        ['J11', 'J"10\\x'],
        CNPJ_A,
      ]);
    });

    it('marks absences overlapping the window that the API no longer returns, and only those', async () => {
      const stats = await loadAbsences(MARCH, [inMarch]).result;
      expect(stats.tables.absences).toEqual({
        received: 1,
        inserted: 0,
        updated: 0,
        deleted: 1,
        unchanged: 1,
      });
      expect(stats.tables.absence_collaborators).toMatchObject({ deleted: 1 });
      expect(
        await rows(`SELECT absence_id, deleted_at IS NOT NULL AS deleted FROM $S.absences ORDER BY 1`),
      ).toEqual([
        { absence_id: 10, deleted: false },
        { absence_id: 11, deleted: true },
        { absence_id: 12, deleted: false },
      ]);
    });

    it('marks a collaborator an absence no longer lists, and clears it when listed again', async () => {
      await loadAbsences(MARCH, [{ ...inMarch, collaborators: [block(CPF_1)] }]).result;
      const listed = async () =>
        rows(
          `SELECT cpf, deleted_at IS NOT NULL AS deleted FROM $S.absence_collaborators WHERE absence_id = 10 ORDER BY cpf`,
        );
      expect(await listed()).toEqual([
        { cpf: CPF_1, deleted: false },
        { cpf: CPF_2, deleted: true },
      ]);
      await loadAbsences(MARCH, [inMarch]).result;
      expect(await listed()).toEqual([
        { cpf: CPF_1, deleted: false },
        { cpf: CPF_2, deleted: false },
      ]);
    });
  });

  describe('files (absence attachments, audit photos)', () => {
    const pdf = Buffer.from('%PDF-1.4 medical certificate');
    const sha = createHash('sha256').update(pdf).digest('hex');
    const attachment = {
      filename: 'atestado.pdf',
      mime_type: 'application/pdf',
      base64: pdf.toString('base64'),
    };
    const file = async () => (await rows(`SELECT * FROM $S.absence_attachments WHERE absence_id = 10`))[0];
    /** Attachments of the March absences: absence 10 has `files`, any other none. */
    const loadAttachments = (
      files: unknown[],
      options: { storeBinaries?: boolean; force?: boolean } = {},
    ) => {
      const api = new FixtureApi({ 'absence/attachment': (q: Params) => (q.absence_id === 10 ? files : []) });
      return { api, result: loadWith(t, 'absence_attachments', { window: MARCH, ...options }, api) };
    };

    it('keeps name, type, size and SHA-256 without the bytes unless binaries are stored', async () => {
      const first = loadAttachments([attachment]);
      // Absence 11 overlaps March too, but it is deleted: only live absences with attachments are asked.
      expect((await first.result).items).toBe(1);
      expect(first.api.calls.map((c) => c.query)).toEqual([{ absence_id: 10 }]);
      expect(await file()).toMatchObject({
        company_cnpj: CNPJ_A,
        mime_type: 'application/pdf',
        size_bytes: pdf.length,
        sha256: sha,
        content: null,
      });
      expect(
        (await loadAttachments([attachment], { storeBinaries: true, force: true }).result).tables
          .absence_attachments,
      ).toMatchObject({ updated: 1 });
      expect((await file()).content).toEqual(pdf);
      expect(
        (await loadAttachments([attachment], { storeBinaries: true, force: true }).result).tables
          .absence_attachments,
      ).toMatchObject({ unchanged: 1 });
      // Turning binaries off clears the bytes already stored.
      await loadAttachments([attachment], { force: true }).result;
      expect((await file()).content).toBeNull();
    });

    it('asks nothing for absences whose files are stored, unless forced', async () => {
      const { api, result } = loadAttachments([attachment]);
      expect(await result).toEqual({
        tables: { absence_attachments: { received: 0, inserted: 0, updated: 0, deleted: 0, unchanged: 0 } },
        rejected: 0,
        items: 0,
      });
      expect(api.calls).toEqual([]);
    });

    it('skips an absence that is gone (404 not_found) and keeps its files', async () => {
      const api = new FixtureApi({
        'absence/attachment': () => {
          throw new ApiError('not_found', { endpoint: 'absence/attachment', status: 404 });
        },
      });
      const result = await loadWith(t, 'absence_attachments', { window: MARCH, force: true }, api);
      expect(api.calls).toHaveLength(1);
      expect(result.items).toBe(0);
      expect((await file()).deleted_at).toBeNull();
    });

    it('marks a file the absence no longer lists deleted', async () => {
      expect((await loadAttachments([], { force: true }).result).tables.absence_attachments).toMatchObject({
        deleted: 1,
      });
      expect((await file()).deleted_at).toBeInstanceOf(Date);
    });

    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]);
    const photoOf = (pointId: number) => ({
      point_id: pointId,
      filename: 'face.jpg',
      mime_type: 'image/jpeg',
      base64: jpeg.toString('base64'),
    });

    it('stores an audit photo of a punch of the window, with the company of its punch', async () => {
      await loadWith(
        t,
        'punches',
        { window: MARCH },
        {
          'point/getFromPeriod': [
            pointsOf(CPF_1, {
              '2024-03-04': [
                point(5001, '2024-03-04 08:00:00', { has_audit_photo: true }),
                point(5002, '2024-03-04 12:00:00'),
              ],
            }),
          ],
        },
      );
      const api = new FixtureApi({ 'point/audit': (q: Params) => photoOf(Number(q.point_id)) });
      const first = await loadWith(t, 'audit_photos', { window: MARCH }, api);
      expect(api.calls.map((c) => c.query)).toEqual([{ point_id: 5001 }]);
      expect(first.tables.audit_photos).toMatchObject({ inserted: 1 });
      expect(
        (await loadWith(t, 'audit_photos', { window: MARCH, force: true }, api)).tables.audit_photos,
      ).toMatchObject({ unchanged: 1 });
      expect(
        await rows(`SELECT point_id, company_cnpj, size_bytes, sha256, content FROM $S.audit_photos`),
      ).toEqual([
        {
          point_id: 5001,
          company_cnpj: CNPJ_A,
          size_bytes: 7,
          sha256: createHash('sha256').update(jpeg).digest('hex'),
          content: null,
        },
      ]);
    });

    it('refuses a photo of another punch than the one asked, writing nothing', async () => {
      const before = await rows(`SELECT xmin::text, * FROM $S.audit_photos`);
      const err = await loadWith(
        t,
        'audit_photos',
        { window: MARCH, force: true, storeBinaries: true },
        { 'point/audit': photoOf(5002) },
      ).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PermanentSyncError);
      expect((err as PermanentSyncError).code).toBe('response_mismatch');
      expect((err as Error).message).toBe('point/audit: asked for point 5001, the API answered point 5002');
      expect(await rows(`SELECT xmin::text, * FROM $S.audit_photos`)).toEqual(before);
    });
  });

  describe('lookups', () => {
    /** Answers of the ten lookup lists: empty unless given. */
    const lists = (given: Answers): Answers => ({
      department: [],
      occupation: [],
      'cost-center': [],
      unit: [],
      journey: [],
      'point-rule': [],
      'collaborator-settings': [],
      barrier: [],
      'fired-type': [],
      'absence/types': [],
      ...given,
    });
    const state = async () =>
      rows(`SELECT company_cnpj, id, description, active FROM $S.departments ORDER BY 1, 2`);

    it('reads every list once and marks records no longer listed inactive, active again when listed', async () => {
      const api = new FixtureApi(
        lists({
          department: [
            { id: 1, description: 'Ops' },
            { id: 2, description: 'Finance' },
          ],
        }),
      );
      await loadWith(t, 'lookups', {}, api);
      expect(api.calls.map((c) => c.endpoint).sort()).toEqual(Object.keys(lists({})).sort());
      await loadWith(
        t,
        'lookups',
        { company: CNPJ_B },
        lists({ department: [{ id: 1, description: 'Branch ops' }] }),
      );
      const stats = await loadWith(
        t,
        'lookups',
        {},
        lists({ department: [{ id: 1, description: 'Operations' }] }),
      );
      expect(stats.tables.departments).toEqual({
        received: 1,
        inserted: 0,
        updated: 1,
        deleted: 1,
        unchanged: 0,
      });
      expect(await state()).toEqual([
        { company_cnpj: CNPJ_A, id: 1, description: 'Operations', active: true },
        { company_cnpj: CNPJ_A, id: 2, description: 'Finance', active: false },
        { company_cnpj: CNPJ_B, id: 1, description: 'Branch ops', active: true },
      ]);
      const again = await loadWith(
        t,
        'lookups',
        {},
        lists({
          department: [
            { id: 1, description: 'Operations' },
            { id: 2, description: 'Finance' },
          ],
        }),
      );
      expect(again.tables.departments).toMatchObject({ updated: 1, unchanged: 1 });
      expect((await state())[1]!.active).toBe(true);
    });

    it('stores named lookups and the absence type flags', async () => {
      await loadWith(
        t,
        'lookups',
        {},
        lists({
          department: [
            { id: 1, description: 'Operations' },
            { id: 2, description: 'Finance' },
          ],
          unit: [{ id: 7, name: 'Matriz' }],
          'absence/types': [
            {
              id: 3,
              description: 'Atestado',
              paid_leave: true,
              comp_time: false,
              compensation: false,
              can_request_app: true,
            },
          ],
        }),
      );
      expect(await rows(`SELECT id, name FROM $S.units`)).toEqual([{ id: 7, name: 'Matriz' }]);
      expect(await rows(`SELECT id, paid_leave, can_request_app, active FROM $S.absence_types`)).toEqual([
        { id: 3, paid_leave: true, can_request_app: true, active: true },
      ]);
    });

    it('rejects a record without the field of its kind, loads the rest, and deactivates nothing of its list', async () => {
      const result = await loadWith(
        t,
        'lookups',
        {},
        lists({
          department: [{ id: 1, description: 'Renamed' }],
          unit: [
            { id: 7, name: 'Matriz' },
            { id: 8, description: 'wrong field' },
          ],
        }),
      );
      expect(result.rejected).toBe(1);
      const rejected = await rows(
        `SELECT endpoint, json_path, reason FROM $S.rejected_records WHERE resolved_at IS NULL AND endpoint = 'unit'`,
      );
      expect(rejected).toEqual([
        { endpoint: 'unit', json_path: 'data[1]', reason: expect.stringMatching(/^name: /) },
      ]);
      expect(
        await rows(`SELECT description FROM $S.departments WHERE company_cnpj = $1 AND id = 1`, [CNPJ_A]),
      ).toEqual([{ description: 'Renamed' }]);
      // Unit 8 carried its id: that unit is protected, the others of the list follow the answer.
      expect(
        await rows(`SELECT id, active FROM $S.units WHERE company_cnpj = $1 ORDER BY id`, [CNPJ_A]),
      ).toEqual(expect.arrayContaining([{ id: 7, active: true }]));
    });
  });

  describe('companies (the group walk)', () => {
    const company = (cnpj: string, name: string): Company => ({
      name,
      trading_name: `${name} trading`,
      national_registry: cnpj,
      cei: null,
      caepf: null,
      cno: '123',
      address: 'Rua A',
      address_number: '1',
      complement: '',
      neighborhood: 'Centro',
      zip_code: '01001000',
      phone: '1133334444',
      email: 'x@y.z',
    });
    const group = [
      { name: 'HQ', trading_name: 'HQ trading', national_registry: CNPJ_A, is_headquarter: true },
      { name: 'Branch', trading_name: 'Branch trading', national_registry: CNPJ_B, is_headquarter: false },
    ];
    /** The walk of a token whose own company is `own`: `records` are what `include_branches=1` lists. */
    const load = async (records: Company[], entries: typeof group, own = records[0]) =>
      (
        await loadWith(
          t,
          'companies',
          {},
          {
            'economic-group': entries,
            company: (_q, call) => (call.scope?.includeBranches ? records : own!),
          },
        )
      ).tables;

    it('stores details and group membership, and a reload rewrites nothing', async () => {
      expect((await load([company(CNPJ_A, 'HQ'), company(CNPJ_B, 'Branch')], group)).companies).toEqual({
        received: 2,
        inserted: 2,
        updated: 0,
        deleted: 0,
        unchanged: 0,
      });
      const before = await rows(`SELECT xmin::text, * FROM $S.companies ORDER BY cnpj`);
      expect((await load([company(CNPJ_A, 'HQ'), company(CNPJ_B, 'Branch')], group)).companies).toEqual({
        received: 2,
        inserted: 0,
        updated: 0,
        deleted: 0,
        unchanged: 2,
      });
      expect(await rows(`SELECT xmin::text, * FROM $S.companies ORDER BY cnpj`)).toEqual(before);
      expect(
        await rows(
          `SELECT cnpj, name, cno, zip_code, is_headquarter, headquarter_cnpj FROM $S.companies ORDER BY cnpj`,
        ),
      ).toEqual([
        {
          cnpj: CNPJ_A,
          name: 'HQ',
          cno: '123',
          zip_code: '01001000',
          is_headquarter: true,
          headquarter_cnpj: CNPJ_A,
        },
        {
          cnpj: CNPJ_B,
          name: 'Branch',
          cno: '123',
          zip_code: '01001000',
          is_headquarter: false,
          headquarter_cnpj: CNPJ_A,
        },
      ]);
    });

    it('keeps the recorded headquarters when a branch token’s group lists only the branch', async () => {
      const before = await rows(`SELECT xmin::text, * FROM $S.companies ORDER BY cnpj`);
      expect((await load([], [group[1]!], company(CNPJ_B, 'Branch'))).companies).toEqual({
        received: 1,
        inserted: 0,
        updated: 0,
        deleted: 0,
        unchanged: 1,
      });
      expect(await rows(`SELECT xmin::text, * FROM $S.companies ORDER BY cnpj`)).toEqual(before);
    });

    it('keeps the details of a company the walk knows only from the group listing', async () => {
      const before = await rows(`SELECT xmin::text, * FROM $S.companies ORDER BY cnpj`);
      expect((await load([company(CNPJ_A, 'HQ')], group)).companies).toEqual({
        received: 2,
        inserted: 0,
        updated: 0,
        deleted: 0,
        unchanged: 2,
      });
      expect(await rows(`SELECT xmin::text, * FROM $S.companies ORDER BY cnpj`)).toEqual(before);
    });

    it('updates a company whose details changed', async () => {
      const stats = await load(
        [company(CNPJ_A, 'HQ'), { ...company(CNPJ_B, 'Branch'), zip_code: '02002000' }],
        group,
      );
      expect(stats.companies).toEqual({ received: 2, inserted: 0, updated: 1, deleted: 0, unchanged: 1 });
      expect(
        (await rows(`SELECT zip_code, headquarter_cnpj FROM $S.companies WHERE cnpj = $1`, [CNPJ_B]))[0],
      ).toEqual({ zip_code: '02002000', headquarter_cnpj: CNPJ_A });
    });
  });

  describe('the sync_freshness view', () => {
    it('gives the last success and its age per company and resource', async () => {
      await t.w.pool.query(
        `INSERT INTO sync_runs (resource, company_cnpj, status, finished_at) VALUES
           ('punches', $1, 'succeeded', now() - interval '1 hour'),
           ('punches', $1, 'succeeded', now() - interval '1 minute'),
           ('punches', $1, 'failed', now()),
           ('companies', NULL, 'succeeded', now() - interval '2 hours')`,
        [CNPJ_A],
      );
      const fresh = (
        await t.w.pool.query<{ company_cnpj: string | null; resource: string; age_seconds: number }>(
          'SELECT company_cnpj, resource, age_seconds FROM sync_freshness ORDER BY resource',
        )
      ).rows;
      expect(fresh.map((f) => [f.company_cnpj, f.resource])).toEqual([
        [null, 'companies'],
        [CNPJ_A, 'punches'],
      ]);
      expect(fresh[1]!.age_seconds).toBeGreaterThanOrEqual(59);
      expect(fresh[1]!.age_seconds).toBeLessThan(600);
      expect(fresh[0]!.age_seconds).toBeGreaterThanOrEqual(7199);
    });
  });
});
