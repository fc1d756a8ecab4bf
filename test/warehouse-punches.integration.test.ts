import { describe, expect, it } from 'vitest';
import type { CollaboratorPoints } from '../src/api/schemas.js';
import { CompanyMismatchError } from '../src/load/errors.js';
import {
  absenceOf,
  catchUpMartsOf,
  block,
  CNPJ_A,
  CNPJ_B,
  CPF_1,
  CPF_2,
  loadWith,
  point,
  pointsOf,
  useMigratedWarehouse,
} from './warehouse-fixtures.js';

const MARCH = { from: '2024-03-01', to: '2024-03-31' };
const APRIL = { from: '2024-04-01', to: '2024-04-30' };

describe('punches through the load engine', () => {
  const t = useMigratedWarehouse('wh_punch');

  /** Loads `data` as the answer of point/getFromPeriod for company A's window (or `company`'s). */
  const loadPoints = (
    window: { from: string; to: string },
    data: CollaboratorPoints[],
    company = CNPJ_A,
    timezone?: string,
  ) =>
    loadWith(
      t,
      'punches',
      { company, window, ...(timezone ? { timezone } : {}) },
      { 'point/getFromPeriod': data },
    );

  /** Every column of punches and work_days, plus the tuple version (xmin), by key. */
  async function snapshot() {
    const punches = await t.admin.query(
      `SELECT xmin::text AS version, * FROM "${t.schema}".punches ORDER BY point_id`,
    );
    const days = await t.admin.query(
      `SELECT xmin::text AS version, * FROM "${t.schema}".work_days ORDER BY company_cnpj, cpf, work_date`,
    );
    return { punches: punches.rows, days: days.rows };
  }

  const march = [
    pointsOf(CPF_1, {
      '2024-03-04': [
        point(101, '2024-03-04 08:00:00'),
        point(102, '2024-03-04 12:00:00'),
        point(103, '2024-03-04 17:30:00'),
      ],
      '2024-03-05': [
        point(104, '2024-03-05 08:10:00', {
          is_adjusted: true,
          adjustment_reason: 'forgot',
          adjusted_by: 'Boss "B"',
        }),
      ],
    }),
    pointsOf(CPF_2, { '2024-03-04': [point(201, '2024-03-04 09:00:00', { origin: 'REP' })] }),
  ];

  describe('when the same window is loaded twice', () => {
    it('changes nothing the second time: no row rewritten, stats all unchanged', async () => {
      const first = await loadPoints(MARCH, march);
      expect(first.tables).toEqual({
        punches: { received: 5, inserted: 5, updated: 0, deleted: 0, unchanged: 0 },
        work_days: { received: 3, inserted: 3, updated: 0, deleted: 0, unchanged: 0 },
        collaborators: { received: 2, inserted: 2, updated: 0, deleted: 0, unchanged: 0 },
      });
      const before = await snapshot();
      const second = await loadPoints(MARCH, march);
      expect(second.tables).toEqual({
        punches: { received: 5, inserted: 0, updated: 0, deleted: 0, unchanged: 5 },
        work_days: { received: 3, inserted: 0, updated: 0, deleted: 0, unchanged: 3 },
        collaborators: { received: 2, inserted: 0, updated: 0, deleted: 0, unchanged: 2 },
      });
      expect(await snapshot()).toEqual(before);
    });

    it('stores the values as sent, CPF with its leading zeros', async () => {
      const { rows } = await t.admin.query(
        `SELECT point_id, company_cnpj, cpf, work_date::text, punched_at_local::text, hour_local, origin, is_adjusted,
                adjustment_reason, adjusted_by, accuracy_meters, latitude, longitude, deleted_at
           FROM "${t.schema}".punches WHERE point_id IN (104, 201) ORDER BY point_id`,
      );
      expect(rows).toEqual([
        {
          point_id: '104',
          company_cnpj: CNPJ_A,
          cpf: CPF_1,
          work_date: '2024-03-05',
          punched_at_local: '2024-03-05 08:10:00',
          hour_local: '08:10',
          origin: 'App Mobile',
          is_adjusted: true,
          adjustment_reason: 'forgot',
          adjusted_by: 'Boss "B"',
          accuracy_meters: 12.5,
          latitude: -23.55,
          longitude: -46.63,
          deleted_at: null,
        },
        {
          point_id: '201',
          company_cnpj: CNPJ_A,
          cpf: CPF_2,
          work_date: '2024-03-04',
          punched_at_local: '2024-03-04 09:00:00',
          hour_local: '09:00',
          origin: 'REP',
          is_adjusted: false,
          adjustment_reason: null,
          adjusted_by: null,
          accuracy_meters: 12.5,
          latitude: -23.55,
          longitude: -46.63,
          deleted_at: null,
        },
      ]);
    });
  });

  describe('when a changed punch comes back', () => {
    it('updates only that row', async () => {
      const before = await snapshot();
      const changed = structuredClone(march);
      changed[0]!.days[0]!.points[1]!.address = 'Rua Nova, 1';
      const stats = await loadPoints(MARCH, changed);
      expect(stats.tables.punches).toEqual({
        received: 5,
        inserted: 0,
        updated: 1,
        deleted: 0,
        unchanged: 4,
      });
      const after = await snapshot();
      const rewritten = after.punches
        .filter((r, i) => r.version !== before.punches[i].version)
        .map((r) => r.point_id);
      expect(rewritten).toEqual(['102']);
      expect(after.punches.find((r) => r.point_id === '102').address).toBe('Rua Nova, 1');
      expect(after.days).toEqual(before.days);
      await loadPoints(MARCH, march);
    });
  });

  describe('when a punch is missing from a later load of the same window', () => {
    const outsideWindow = [pointsOf(CPF_1, { '2024-04-02': [point(301, '2024-04-02 08:00:00')] })];
    const otherCompany = [pointsOf(CPF_1, { '2024-03-04': [point(401, '2024-03-04 07:00:00')] }, CNPJ_B)];

    it('marks it deleted_at, and leaves punches outside the window or of another company untouched', async () => {
      await loadPoints(APRIL, outsideWindow);
      await loadPoints(MARCH, otherCompany, CNPJ_B);
      const before = await snapshot();

      const without103 = structuredClone(march);
      without103[0]!.days[0]!.points.pop();
      const stats = await loadPoints(MARCH, without103);
      expect(stats.tables.punches).toEqual({
        received: 4,
        inserted: 0,
        updated: 0,
        deleted: 1,
        unchanged: 4,
      });

      const after = await snapshot();
      const gone = after.punches.find((r) => r.point_id === '103');
      expect(gone.deleted_at).toBeInstanceOf(Date);
      for (const id of ['301', '401']) {
        expect(
          after.punches.find((r) => r.point_id === id),
          `punch ${id}`,
        ).toEqual(before.punches.find((r) => r.point_id === id));
      }
      expect(after.punches.filter((r) => r.deleted_at !== null).map((r) => r.point_id)).toEqual(['103']);
    });

    it('clears deleted_at when it returns', async () => {
      const stats = await loadPoints(MARCH, march);
      expect(stats.tables.punches).toEqual({
        received: 5,
        inserted: 0,
        updated: 1,
        deleted: 0,
        unchanged: 4,
      });
      const { rows } = await t.admin.query(
        `SELECT deleted_at FROM "${t.schema}".punches WHERE point_id = 103`,
      );
      expect(rows).toEqual([{ deleted_at: null }]);
    });

    it('marks a whole day deleted when the API returns the window empty (twice)', async () => {
      const stats = await loadPoints(APRIL, []);
      expect(stats.tables).toMatchObject({
        punches: { received: 0, inserted: 0, updated: 0, deleted: 1, unchanged: 0 },
        work_days: { received: 0, inserted: 0, updated: 0, deleted: 1, unchanged: 0 },
      });
      const { rows } = await t.admin.query(
        `SELECT deleted_at IS NOT NULL AS deleted FROM "${t.schema}".punches WHERE point_id = 301`,
      );
      expect(rows).toEqual([{ deleted: true }]);
      await loadPoints(APRIL, outsideWindow);
    });
  });

  describe('date-times', () => {
    const cases = [
      // São Paulo 2018-11-04: clocks jumped 00:00 → 01:00 (-03 → -02); 00:30 does not exist.
      { tz: 'America/Sao_Paulo', local: '2018-11-03 23:59:59', utc: '2018-11-04T02:59:59.000Z' },
      { tz: 'America/Sao_Paulo', local: '2018-11-04 00:30:00', utc: '2018-11-04T03:30:00.000Z' },
      { tz: 'America/Sao_Paulo', local: '2018-11-04 01:00:00', utc: '2018-11-04T03:00:00.000Z' },
      // São Paulo 2019-02-16: clocks fell back 24:00 → 23:00; 23:30 happened twice (the earlier is kept).
      { tz: 'America/Sao_Paulo', local: '2019-02-16 23:30:00', utc: '2019-02-17T01:30:00.000Z' },
      { tz: 'America/Sao_Paulo', local: '2019-02-17 00:00:00', utc: '2019-02-17T03:00:00.000Z' },
      // New York 2024-03-10 02:30 does not exist; 2024-11-03 01:30 happened twice.
      { tz: 'America/New_York', local: '2024-03-10 01:59:59', utc: '2024-03-10T06:59:59.000Z' },
      { tz: 'America/New_York', local: '2024-03-10 03:00:00', utc: '2024-03-10T07:00:00.000Z' },
      { tz: 'America/New_York', local: '2024-11-03 01:30:00', utc: '2024-11-03T05:30:00.000Z' },
      { tz: 'America/New_York', local: '2024-11-03 02:30:00', utc: '2024-11-03T07:30:00.000Z' },
    ];

    it.each(cases)('stores $local in $tz as sent and as the instant $utc', async ({ tz, local, utc }) => {
      const id = 900_000 + cases.findIndex((c) => c.local === local && c.tz === tz);
      const day = local.slice(0, 10);
      await loadPoints(
        { from: day, to: day },
        [pointsOf(CPF_2, { [day]: [point(id, local)] }, CNPJ_B)],
        CNPJ_B,
        tz,
      );
      const { rows } = await t.admin.query(
        `SELECT punched_at_local::text AS local, punched_at FROM "${t.schema}".punches WHERE point_id = $1`,
        [id],
      );
      expect(rows[0].local).toBe(local);
      expect((rows[0].punched_at as Date).toISOString()).toBe(utc);
    });
  });

  describe('worked time', () => {
    it('stores HH:MM:SS and decimal hours (decimal_format=1) as signed seconds', async () => {
      const data = [
        {
          ...pointsOf(CPF_1, {}),
          days: [
            { date: '2024-05-02', shift: 'x', worked_time: 8.5, points: [] },
            { date: '2024-05-03', shift: 'x', worked_time: '-101:02:03', points: [] },
          ],
        },
      ];
      await loadPoints({ from: '2024-05-01', to: '2024-05-31' }, data);
      const { rows } = await t.admin.query(
        `SELECT work_date::text, worked_seconds FROM "${t.schema}".work_days
          WHERE company_cnpj = $1 AND work_date BETWEEN '2024-05-01' AND '2024-05-31' ORDER BY 1`,
        [CNPJ_A],
      );
      expect(rows).toEqual([
        { work_date: '2024-05-02', worked_seconds: 30600 },
        { work_date: '2024-05-03', worked_seconds: -(101 * 3600 + 2 * 60 + 3) },
      ]);
    });
  });

  describe('when a record belongs to another company', () => {
    it('refuses the whole load and writes nothing', async () => {
      const before = await snapshot();
      const mixed = [
        ...march,
        pointsOf(CPF_2, { '2024-03-06': [point(999, '2024-03-06 08:00:00')] }, CNPJ_B),
      ];
      const err = await loadPoints(MARCH, mixed).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CompanyMismatchError);
      expect((err as CompanyMismatchError).code).toBe('company_mismatch');
      expect((err as Error).message).toContain(`data[2] belongs to company ${CNPJ_B}`);
      // Never the CPF: this message is kept in Redis, sync_runs and alerts.
      expect((err as Error).message).not.toContain(CPF_2);
      expect(await snapshot()).toEqual(before);
    });
  });

  describe('the daily_attendance view', () => {
    it('gives one row per collaborator and day with first in, last out, count, hours, tardiness and leave', async () => {
      const withIdleDays = structuredClone(march);
      withIdleDays[1]!.days.push(
        { date: '2024-03-09', shift: 'Folga', worked_time: '00:00:00', points: [] },
        { date: '2024-03-11', shift: '08:00-12:00 / 13:00-17:00', worked_time: '00:00:00', points: [] },
        { date: '2024-03-12', shift: '08:00-12:00 / 13:00-17:00', worked_time: '00:00:00', points: [] },
      );
      await loadPoints(MARCH, withIdleDays);
      await loadWith(
        t,
        'collaborators',
        {},
        { collaborator: [block(CPF_1, { name: 'Ana' }), block(CPF_2, { name: 'Bia' })] },
      );
      await loadWith(
        t,
        'tardiness',
        { window: MARCH },
        {
          tardiness: [
            {
              ...block(CPF_1),
              tardiness: [
                {
                  date: '2024-03-05',
                  journey_in: '08:00',
                  punch_in: '08:10',
                  minutes_late: '00:10',
                  all_points: ['08:10'],
                },
              ],
            },
          ],
        },
      );
      await loadWith(
        t,
        'absences',
        { window: MARCH },
        {
          'absence/getFromPeriod': [
            absenceOf(77, '2024-03-04 00:00:00', '2024-03-04 23:59:59', [CPF_2]),
            absenceOf(78, '2024-03-12 00:00:00', '2024-03-12 23:59:59', [CPF_2], { type: 'Férias' }),
          ],
        },
      );
      await catchUpMartsOf(t);
      const { rows } = await t.admin.query(
        `SELECT cpf, collaborator_name, work_date::text, first_in_local::text, last_out_local::text, punch_count,
                worked_seconds, worked_hours::text, late_seconds, is_late, is_scheduled, is_absent, on_leave, absence_type
           FROM "${t.schema}".daily_attendance WHERE company_cnpj = $1 AND work_date < '2024-04-01' ORDER BY cpf, work_date`,
        [CNPJ_A],
      );
      const day = (
        cpf: string,
        name: string,
        date: string,
        first: string | null,
        last: string | null,
        count: number,
        worked: number,
        hours: string,
      ) => ({
        cpf,
        collaborator_name: name,
        work_date: date,
        first_in_local: first,
        last_out_local: last,
        punch_count: count,
        worked_seconds: worked,
        worked_hours: hours,
        late_seconds: 0,
        is_late: false,
        is_scheduled: true,
        is_absent: false,
        on_leave: false,
        absence_type: null,
      });
      expect(rows).toEqual([
        day(CPF_1, 'Ana', '2024-03-04', '2024-03-04 08:00:00', '2024-03-04 17:30:00', 3, 28800, '8.00'),
        {
          ...day(CPF_1, 'Ana', '2024-03-05', '2024-03-05 08:10:00', null, 1, 28800, '8.00'),
          late_seconds: 600,
          is_late: true,
        },
        {
          ...day(CPF_2, 'Bia', '2024-03-04', '2024-03-04 09:00:00', null, 1, 28800, '8.00'),
          on_leave: true,
          absence_type: 'Atestado médico',
        },
        { ...day(CPF_2, 'Bia', '2024-03-09', null, null, 0, 0, '0.00'), is_scheduled: false },
        { ...day(CPF_2, 'Bia', '2024-03-11', null, null, 0, 0, '0.00'), is_absent: true },
        {
          ...day(CPF_2, 'Bia', '2024-03-12', null, null, 0, 0, '0.00'),
          on_leave: true,
          absence_type: 'Férias',
        },
      ]);
      await loadPoints(MARCH, march);
    });
  });
});
