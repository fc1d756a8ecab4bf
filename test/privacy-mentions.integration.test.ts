/**
 * What other rows say of an erased person (`erase_mentions`, erasure-functions.ts): the
 * manager's name on someone else's punch, the CPF in any form in a free text, a JSON value
 * or a list, are replaced at forget and at every later load of the company — while a
 * namesake keeps their own name, and a JSON value that mentions the person is dropped.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { eraseMentions, forgetPerson } from '../src/privacy/erasures.js';
import {
  block,
  CNPJ_A,
  CPF_1,
  CPF_2,
  loadWith,
  point,
  pointsOf,
  useMigratedWarehouse,
} from './warehouse-fixtures.js';

const t = useMigratedWarehouse('privacy_mentions');
const NAME = 'Ana Souza Lima';
const CPF_3 = '11122233396';
const MARCH = { window: { from: '2026-03-01', to: '2026-03-31' } };

/** CPF_3's punch, adjusted by the person to be erased, who is named (with their CPF) in its reason. */
const answer = () => ({
  'point/getFromPeriod': [
    pointsOf(CPF_1, { '2026-03-02': [point(1, '2026-03-02 08:00:00')] }),
    pointsOf(CPF_3, {
      '2026-03-02': [
        point(2, '2026-03-02 08:05:00', {
          is_adjusted: true,
          adjusted_by: NAME,
          adjustment_reason: `pedido de ana souza  lima, CPF 001.234.567-89`,
        }),
      ],
    }),
  ],
});
const collaborators = () => ({
  collaborator: [
    block(CPF_1, { name: NAME }),
    block(CPF_2, { name: NAME }),
    block(CPF_3, { name: 'Bruno Reis' }),
  ],
});

const q = async <T>(sql: string, values: unknown[] = []): Promise<T[]> =>
  (await t.admin.query(sql.replaceAll('$S', `"${t.schema}"`), values)).rows as T[];

let tombstone: string;

beforeAll(async () => {
  await loadWith(t, 'collaborators', {}, collaborators());
  await loadWith(t, 'punches', MARCH, answer());
  [{ tombstone }] = await forgetPerson(t.admin, t.schema, { cpf: CPF_1, company: CNPJ_A, by: 'dpo' });
});

describe('forget', () => {
  it('replaces the person as the manager of someone else’s punch, and their name and CPF in its free text', async () => {
    expect(await q(`select cpf, adjusted_by, adjustment_reason from $S.punches where point_id = 2`)).toEqual([
      { cpf: CPF_3, adjusted_by: tombstone, adjustment_reason: `pedido de ${tombstone}, CPF ${tombstone}` },
    ]);
  });

  it('learns the names in the register, owner only, and leaves a namesake their own name', async () => {
    expect(await q(`select names from $S.erasures`)).toEqual([{ names: [NAME] }]);
    expect(await q(`select cpf, name from $S.collaborators order by cpf`)).toEqual([
      { cpf: CPF_2, name: NAME },
      { cpf: CPF_3, name: 'Bruno Reis' },
      { cpf: tombstone, name: null },
    ]);
  });
});

describe('a later load of the company', () => {
  it('erases the mentions the API sends again before they are merged, namesakes untouched', async () => {
    await loadWith(t, 'collaborators', {}, collaborators());
    await loadWith(t, 'punches', MARCH, answer());
    expect(await q(`select adjusted_by, adjustment_reason from $S.punches where point_id = 2`)).toEqual([
      { adjusted_by: tombstone, adjustment_reason: `pedido de ${tombstone}, CPF ${tombstone}` },
    ]);
    expect(await q(`select name from $S.collaborators where cpf = $1`, [CPF_2])).toEqual([{ name: NAME }]);
  });
});

describe('erase_mentions on any table', () => {
  it('replaces mentions in text and lists, drops a JSON value that mentions the person, and counts the rows', async () => {
    const c = await t.admin.connect();
    try {
      await c.query(
        `CREATE TEMP TABLE later_notes (company_cnpj text, note text, tags text[], payload jsonb, kept jsonb NOT NULL)`,
      );
      await c.query(
        `INSERT INTO later_notes VALUES
           ($1, 'visto por ANA SOUZA LIMA em 2026', ARRAY['x', '00123456789', 'Ana Souza Limaaa'], '{"n": 123456789}', '{"ok": true}'),
           ($1, 'nada', ARRAY['y'], '{"who": "001.234.567-89"}', '{"ok": true}'),
           ($1, 'nada', NULL, NULL, '{"cpf": 123456789}'),
           ('99999999000199', 'ANA SOUZA LIMA', NULL, '{"n": 123456789}', '{"ok": true}')`,
        [CNPJ_A],
      );
      const changed = await eraseMentions(c, t.schema, CNPJ_A, 'pg_temp.later_notes', 'later_notes', [
        'company_cnpj',
        'note',
        'tags',
        'payload',
        'kept',
      ]);
      const { rows } = await c.query(
        `SELECT company_cnpj, note, tags, payload, kept FROM later_notes ORDER BY company_cnpj, note`,
      );
      expect(rows).toEqual([
        { company_cnpj: CNPJ_A, note: 'nada', tags: ['y'], payload: null, kept: { ok: true } },
        {
          company_cnpj: CNPJ_A,
          note: `visto por ${tombstone} em 2026`,
          tags: ['x', tombstone, 'Ana Souza Limaaa'],
          payload: null,
          kept: { ok: true },
        },
        // another company's rows are not this erasure's
        {
          company_cnpj: '99999999000199',
          note: 'ANA SOUZA LIMA',
          tags: null,
          payload: { n: 123456789 },
          kept: { ok: true },
        },
      ]);
      expect(changed).toBe(5);
    } finally {
      c.release();
    }
  });
});
