import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { describe, expect, it } from 'vitest';
import type { CollaboratorBlock } from '../src/api/schemas.js';
import { CompanyMismatchError } from '../src/load/errors.js';
import { LOADER_TIMING_CHANNEL, type LoaderTiming } from '../src/load/timing.js';
import {
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

const CPF_3 = '00000000191';
const CPF_4 = '00000000272';
const MARCH = { from: '2024-03-01', to: '2024-03-31' };
const FEBRUARY = { from: '2024-02-01', to: '2024-02-29' };
const APRIL = { from: '2024-04-01', to: '2024-04-30' };

describe('collaborators through the load engine', () => {
  const t = useMigratedWarehouse('wh_collab');

  /** Loads the authoritative list (`GET collaborator`) of `company`. */
  const loadList = (list: CollaboratorBlock[], company = CNPJ_A) =>
    loadWith(t, 'collaborators', { company }, { collaborator: list });
  /** Loads a punches window whose elements carry these collaborator blocks (period data). */
  const loadSeen = (blocks: CollaboratorBlock[], window = MARCH) =>
    loadWith(
      t,
      'punches',
      { window },
      {
        'point/getFromPeriod': blocks.map((b, i) => ({
          ...b,
          days: [
            {
              date: window.from,
              shift: 'x',
              worked_time: '08:00:00',
              points: [point(7000 + i, `${window.from} 08:00:00`)],
            },
          ],
        })),
      },
    );

  const current = async () =>
    (
      await t.w.pool.query(
        `SELECT xmin::text AS version, * FROM "${t.schema}".collaborators ORDER BY company_cnpj, cpf`,
      )
    ).rows;
  const history = async (cpf: string, company = CNPJ_A) =>
    (
      await t.admin.query(
        `SELECT department, name, valid_from, valid_to FROM "${t.schema}".collaborator_history
          WHERE company_cnpj = $1 AND cpf = $2 ORDER BY valid_from`,
        [company, cpf],
      )
    ).rows;

  describe('the authoritative list', () => {
    it('inserts current rows as active and opens one history version each', async () => {
      const stats = await loadList([block(CPF_1), block(CPF_2)]);
      expect(stats.tables).toEqual({
        collaborators: { received: 2, inserted: 2, updated: 0, deleted: 0, unchanged: 0 },
        collaborator_history: { received: 2, inserted: 2, updated: 0, deleted: 0, unchanged: 0 },
      });
      const rows = await current();
      expect(rows.map((r) => [r.cpf, r.active, r.source, r.admission_date])).toEqual([
        [CPF_1, true, 'list', '2020-01-15'],
        [CPF_2, true, 'list', '2020-01-15'],
      ]);
      expect(await history(CPF_1)).toEqual([
        expect.objectContaining({ department: 'Operations', valid_to: null }),
      ]);
    });

    it('changes nothing when the same list is loaded again', async () => {
      const before = await current();
      const historyBefore = await history(CPF_1);
      const stats = await loadList([block(CPF_1), block(CPF_2)]);
      expect(stats.tables).toEqual({
        collaborators: { received: 2, inserted: 0, updated: 0, deleted: 0, unchanged: 2 },
        collaborator_history: { received: 2, inserted: 0, updated: 0, deleted: 0, unchanged: 2 },
      });
      expect(await current()).toEqual(before);
      expect(await history(CPF_1)).toEqual(historyBefore);
    });

    it('closes the open version and opens a new one when the department changes', async () => {
      const stats = await loadList([block(CPF_1, { department: 'Finance' }), block(CPF_2)]);
      expect(stats.tables).toEqual({
        collaborators: { received: 2, inserted: 0, updated: 1, deleted: 0, unchanged: 1 },
        collaborator_history: { received: 2, inserted: 1, updated: 1, deleted: 0, unchanged: 1 },
      });
      const versions = await history(CPF_1);
      expect(versions.map((v) => [v.department, v.valid_to === null])).toEqual([
        ['Operations', false],
        ['Finance', true],
      ]);
      expect(versions[0].valid_to).toEqual(versions[1].valid_from);
      expect((await history(CPF_2)).length).toBe(1);
      expect((await current()).find((r) => r.cpf === CPF_1).department).toBe('Finance');
    });

    it('opens no version when an untracked attribute (PIS) changes', async () => {
      const stats = await loadList([block(CPF_1, { department: 'Finance', pis: '999' }), block(CPF_2)]);
      expect(stats.tables.collaborators!.updated).toBe(1);
      expect(stats.tables.collaborator_history).toEqual({
        received: 2,
        inserted: 0,
        updated: 0,
        deleted: 0,
        unchanged: 2,
      });
      expect((await current()).find((r) => r.cpf === CPF_1).pis).toBe('999');
    });

    it('marks a collaborator no longer listed inactive, never deleting it, and active again when listed', async () => {
      const stats = await loadList([block(CPF_1, { department: 'Finance', pis: '999' })]);
      expect(stats.tables.collaborators).toEqual({
        received: 1,
        inserted: 0,
        updated: 0,
        deleted: 1,
        unchanged: 1,
      });
      expect((await current()).map((r) => [r.cpf, r.active])).toEqual([
        [CPF_1, true],
        [CPF_2, false],
      ]);
      const back = await loadList([block(CPF_1, { department: 'Finance', pis: '999' }), block(CPF_2)]);
      expect(back.tables.collaborators).toMatchObject({ updated: 1, unchanged: 1 });
      expect((await current()).map((r) => [r.cpf, r.active])).toEqual([
        [CPF_1, true],
        [CPF_2, true],
      ]);
      expect((await history(CPF_2)).length).toBe(1);
    });

    it('keeps the same CPF apart per company (spec 1.4 rule 7)', async () => {
      await loadList([block(CPF_1, { department: 'Branch dept' }, CNPJ_B)], CNPJ_B);
      const rows = await current();
      expect(rows.filter((r) => r.cpf === CPF_1).map((r) => [r.company_cnpj, r.department])).toEqual([
        [CNPJ_A, 'Finance'],
        [CNPJ_B, 'Branch dept'],
      ]);
      // Company B's list does not deactivate company A's collaborators.
      expect(rows.filter((r) => r.company_cnpj === CNPJ_A).every((r) => r.active)).toBe(true);
      expect((await history(CPF_1, CNPJ_B)).map((v) => v.department)).toEqual(['Branch dept']);
    });

    it('refuses a list holding another company’s collaborator, writing nothing', async () => {
      const before = await current();
      const err = await loadList([
        block(CPF_1, { department: 'Finance', pis: '999' }),
        block(CPF_3, {}, CNPJ_B),
      ]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CompanyMismatchError);
      expect((err as CompanyMismatchError).code).toBe('company_mismatch');
      expect((err as Error).message).toContain(`data[1] belongs to company ${CNPJ_B}`);
      // Never the CPF: this message is kept in Redis, sync_runs and alerts.
      expect((err as Error).message).not.toContain(CPF_3);
      expect(await current()).toEqual(before);
    });
  });

  describe('collaborator blocks from period data', () => {
    it('adds a collaborator the list lacks as inactive, source period, without history', async () => {
      const stats = await loadSeen([block(CPF_3, { name: 'Dismissed' })]);
      expect(stats.tables.collaborators).toEqual({
        received: 1,
        inserted: 1,
        updated: 0,
        deleted: 0,
        unchanged: 0,
      });
      const row = (await current()).find((r) => r.cpf === CPF_3);
      expect([row.active, row.source, row.name]).toEqual([false, 'period', 'Dismissed']);
      expect(await history(CPF_3)).toEqual([]);
    });

    it('never overwrites a listed collaborator nor opens history from old records', async () => {
      const before = await current();
      const stats = await loadSeen(
        [
          block(CPF_1, { department: 'Old department', name: 'Old name' }),
          block(CPF_3, { name: 'Renamed before' }),
        ],
        FEBRUARY,
      );
      expect(stats.tables.collaborators).toEqual({
        received: 2,
        inserted: 0,
        updated: 0,
        deleted: 0,
        unchanged: 2,
      });
      expect(await current()).toEqual(before);
      expect((await history(CPF_1)).map((v) => v.department)).toEqual(['Operations', 'Finance']);
    });

    it('gives a collaborator only period data shows the attributes of data as new as its own or newer, without history', async () => {
      const again = await loadSeen([
        block(CPF_1, { name: 'Old name' }),
        block(CPF_3, { name: 'Renamed later' }),
      ]);
      expect(again.tables.collaborators).toEqual({
        received: 2,
        inserted: 0,
        updated: 1,
        deleted: 0,
        unchanged: 1,
      });
      expect((await current()).find((r) => r.cpf === CPF_3)).toMatchObject({
        name: 'Renamed later',
        attributes_as_of: '2024-03-31',
        active: false,
      });
      const newer = await loadSeen([block(CPF_3, { name: 'Renamed in April' })], APRIL);
      expect(newer.tables.collaborators).toMatchObject({ updated: 1 });
      expect((await current()).find((r) => r.cpf === CPF_3)).toMatchObject({
        name: 'Renamed in April',
        attributes_as_of: '2024-04-30',
      });
      expect(await history(CPF_3)).toEqual([]);
    });

    it('adds each collaborator of a window once, however many elements carry it', async () => {
      const stats = await loadWith(
        t,
        'punches',
        { window: { from: '2024-04-01', to: '2024-04-30' } },
        {
          'point/getFromPeriod': [
            pointsOf('11122233344', { '2024-04-01': [] }),
            pointsOf('11122233344', { '2024-04-02': [] }),
          ],
        },
      );
      expect(stats.tables.collaborators).toEqual({
        received: 1,
        inserted: 1,
        updated: 0,
        deleted: 0,
        unchanged: 0,
      });
    });

    it('stages only the blocks of collaborators the warehouse lacks, and counts every one', async () => {
      const spans: string[] = [];
      const listen = (m: unknown) => spans.push((m as LoaderTiming).loader);
      subscribe(LOADER_TIMING_CHANNEL, listen);
      try {
        const known = await loadSeen([block(CPF_1), block(CPF_3)]);
        const knownSpans = spans.splice(0);
        const mixed = await loadSeen([block(CPF_1), block(CPF_4, { name: 'New' })]);
        expect(known.tables.collaborators).toEqual({
          received: 2,
          inserted: 0,
          updated: 0,
          deleted: 0,
          unchanged: 2,
        });
        expect(knownSpans.filter((s) => s.endsWith(':collaborators'))).toEqual([]);
        expect(mixed.tables.collaborators).toEqual({
          received: 2,
          inserted: 1,
          updated: 0,
          deleted: 0,
          unchanged: 1,
        });
        expect(spans.filter((s) => s.endsWith(':collaborators'))).toEqual([
          'copy:collaborators',
          'merge:collaborators',
        ]);
        expect((await current()).find((r) => r.cpf === CPF_4)).toMatchObject({
          active: false,
          source: 'period',
          name: 'New',
        });
      } finally {
        unsubscribe(LOADER_TIMING_CHANNEL, listen);
      }
    });

    it('lets the authoritative list take over a collaborator first seen in period data', async () => {
      await loadList([
        block(CPF_1, { department: 'Finance', pis: '999' }),
        block(CPF_2),
        block(CPF_3, { name: 'Back' }),
      ]);
      const row = (await current()).find((r) => r.cpf === CPF_3);
      expect([row.active, row.source, row.name]).toEqual([true, 'list', 'Back']);
      expect((await history(CPF_3)).map((v) => v.name)).toEqual(['Back']);
    });
  });
});
