import { describe, expect, it } from 'vitest';
import { addSeenCollaborators, loadCollaborators } from '../src/warehouse/load-collaborators.js';
import { LoadError } from '../src/warehouse/errors.js';
import { block, CNPJ_A, CNPJ_B, CPF_1, CPF_2, useMigratedWarehouse } from './warehouse-fixtures.js';

const CPF_3 = '00000000191';

describe('collaborators', () => {
  const t = useMigratedWarehouse('wh_collab');

  const current = async () =>
    (await t.w.pool.query(`SELECT xmin::text AS version, * FROM "${t.schema}".collaborators ORDER BY company_cnpj, cpf`)).rows;
  const history = async (cpf: string, company = CNPJ_A) =>
    (
      await t.admin.query(
        `SELECT department, name, valid_from, valid_to FROM "${t.schema}".collaborator_history
          WHERE company_cnpj = $1 AND cpf = $2 ORDER BY valid_from`,
        [company, cpf],
      )
    ).rows;

  describe('loadCollaborators with the authoritative list', () => {
    it('inserts current rows as active and opens one history version each', async () => {
      const stats = await loadCollaborators(t.w, CNPJ_A, [block(CPF_1), block(CPF_2)]);
      expect(stats.byTable).toEqual({
        collaborators: { inserted: 2, updated: 0, deleted: 0, unchanged: 0 },
        collaborator_history: { inserted: 2, updated: 0, deleted: 0, unchanged: 0 },
      });
      const rows = await current();
      expect(rows.map((r) => [r.cpf, r.active, r.source, r.admission_date])).toEqual([
        [CPF_1, true, 'list', '2020-01-15'],
        [CPF_2, true, 'list', '2020-01-15'],
      ]);
      expect(await history(CPF_1)).toEqual([expect.objectContaining({ department: 'Operations', valid_to: null })]);
    });

    it('changes nothing when the same list is loaded again', async () => {
      const before = await current();
      const historyBefore = await history(CPF_1);
      const stats = await loadCollaborators(t.w, CNPJ_A, [block(CPF_1), block(CPF_2)]);
      expect(stats).toMatchObject({ inserted: 0, updated: 0, deleted: 0, unchanged: 4 });
      expect(await current()).toEqual(before);
      expect(await history(CPF_1)).toEqual(historyBefore);
    });

    it('closes the open version and opens a new one when the department changes', async () => {
      const stats = await loadCollaborators(t.w, CNPJ_A, [block(CPF_1, { department: 'Finance' }), block(CPF_2)]);
      expect(stats.byTable).toEqual({
        collaborators: { inserted: 0, updated: 1, deleted: 0, unchanged: 1 },
        collaborator_history: { inserted: 1, updated: 1, deleted: 0, unchanged: 1 },
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
      const stats = await loadCollaborators(t.w, CNPJ_A, [block(CPF_1, { department: 'Finance', pis: '999' }), block(CPF_2)]);
      expect(stats.byTable!.collaborators!.updated).toBe(1);
      expect(stats.byTable!.collaborator_history).toEqual({ inserted: 0, updated: 0, deleted: 0, unchanged: 2 });
    });

    it('marks a collaborator no longer listed inactive, never deleting it, and active again when listed', async () => {
      const stats = await loadCollaborators(t.w, CNPJ_A, [block(CPF_1, { department: 'Finance', pis: '999' })]);
      expect(stats.byTable!.collaborators).toEqual({ inserted: 0, updated: 0, deleted: 1, unchanged: 1 });
      expect((await current()).map((r) => [r.cpf, r.active])).toEqual([
        [CPF_1, true],
        [CPF_2, false],
      ]);
      await loadCollaborators(t.w, CNPJ_A, [block(CPF_1, { department: 'Finance', pis: '999' }), block(CPF_2)]);
      expect((await current()).map((r) => [r.cpf, r.active])).toEqual([
        [CPF_1, true],
        [CPF_2, true],
      ]);
      expect((await history(CPF_2)).length).toBe(1);
    });

    it('keeps the same CPF apart per company (spec 1.4 rule 7)', async () => {
      await loadCollaborators(t.w, CNPJ_B, [block(CPF_1, { department: 'Branch dept' }, CNPJ_B)]);
      const rows = await current();
      expect(rows.filter((r) => r.cpf === CPF_1).map((r) => [r.company_cnpj, r.department])).toEqual([
        [CNPJ_A, 'Finance'],
        [CNPJ_B, 'Branch dept'],
      ]);
      // Company B's list does not deactivate company A's collaborators.
      expect(rows.filter((r) => r.company_cnpj === CNPJ_A).every((r) => r.active)).toBe(true);
    });

    it('refuses a list holding another company’s collaborator, writing nothing', async () => {
      const before = await current();
      const err = await loadCollaborators(t.w, CNPJ_A, [block(CPF_3, {}, CNPJ_B)]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LoadError);
      expect((err as LoadError).code).toBe('foreign_company');
      expect(await current()).toEqual(before);
    });
  });

  describe('addSeenCollaborators with blocks from period data', () => {
    it('adds a collaborator the list lacks as inactive, source period, without history', async () => {
      const stats = await addSeenCollaborators(t.w, CNPJ_A, [block(CPF_3, { name: 'Dismissed' })]);
      expect(stats).toMatchObject({ inserted: 1, updated: 0, deleted: 0, unchanged: 0 });
      const row = (await current()).find((r) => r.cpf === CPF_3);
      expect([row.active, row.source, row.name]).toEqual([false, 'period', 'Dismissed']);
      expect(await history(CPF_3)).toEqual([]);
    });

    it('never overwrites a listed collaborator nor opens history from old records', async () => {
      const before = await current();
      const stats = await addSeenCollaborators(t.w, CNPJ_A, [
        block(CPF_1, { department: 'Old department', name: 'Old name' }),
        block(CPF_3, { name: 'Renamed later' }),
      ]);
      expect(stats).toMatchObject({ inserted: 0, updated: 0, unchanged: 2 });
      expect(await current()).toEqual(before);
      expect((await history(CPF_1)).map((v) => v.department)).toEqual(['Operations', 'Finance']);
    });

    it('lets the authoritative list take over a collaborator first seen in period data', async () => {
      await loadCollaborators(t.w, CNPJ_A, [block(CPF_1, { department: 'Finance', pis: '999' }), block(CPF_2), block(CPF_3, { name: 'Back' })]);
      const row = (await current()).find((r) => r.cpf === CPF_3);
      expect([row.active, row.source, row.name]).toEqual([true, 'list', 'Back']);
      expect((await history(CPF_3)).map((v) => v.name)).toEqual(['Back']);
    });
  });
});
