import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { analystSchemaOf, buildAnalystView } from '../src/privacy/analyst-views.js';
import type { RelationInfo } from '../src/warehouse/introspection.js';
import { collisionCondition, erasurePlanOf } from '../src/privacy/erasure-functions.js';
import { classifyColumn, looksPersonal, PERSONAL_DATA } from '../src/privacy/personal-data.js';
import { keyIdOf, pseudonymOf } from '../src/privacy/pseudonyms.js';

const KEY = 'k'.repeat(40);

/** A catalog relation for the pure builders. */
function relation(
  name: string,
  columns: [string, string, boolean?][],
  keys: Omit<RelationInfo['keys'][number], 'kind'>[] = [],
): RelationInfo {
  return {
    name,
    kind: 'table',
    comment: `The ${name} table.`,
    columns: columns.map(([n, udt, notNull]) => ({
      name: n,
      type: udt,
      udt,
      nullable: !(notNull ?? false),
      filled: null,
      comment: `${n} column`,
    })),
    keys: keys.map((k) => ({ ...k, kind: 'unique' as const })),
    foreignKeys: [],
  };
}

describe('pseudonymOf', () => {
  it('is HMAC-SHA-256 of the CPF under the key, cut to 20 hex digits', () => {
    const expected = createHmac('sha256', KEY).update('cpf:00123456789').digest('hex').slice(0, 20);
    expect(pseudonymOf(KEY, '00123456789')).toBe(expected);
    expect(pseudonymOf(KEY, '00123456789')).toMatch(/^[0-9a-f]{20}$/);
  });

  it('gives the same CPF the same pseudonym, and another key another one', () => {
    expect(pseudonymOf(KEY, '00123456789')).toBe(pseudonymOf(KEY, '00123456789'));
    expect(pseudonymOf(KEY, '00123456789')).not.toBe(pseudonymOf(KEY, '00123456788'));
    expect(pseudonymOf(`${KEY}x`, '00123456789')).not.toBe(pseudonymOf(KEY, '00123456789'));
  });

  it('fingerprints a key without containing it', () => {
    expect(keyIdOf(KEY)).toMatch(/^[0-9a-f]{16}$/);
    expect(keyIdOf(KEY)).not.toBe(keyIdOf(`${KEY}x`));
    expect(KEY).not.toContain(keyIdOf(KEY));
  });
});

describe('classifyColumn', () => {
  it('follows the classification where there is one', () => {
    expect(classifyColumn('collaborators', 'name', 'text')).toMatchObject({
      category: 'name',
      analyst: 'omitted',
      source: 'classified',
    });
    expect(classifyColumn('collaborators', 'department', 'text')).toMatchObject({
      category: 'employment',
      analyst: 'shown',
    });
    expect(classifyColumn('companies', 'name', 'text')).toMatchObject({ category: null, analyst: 'shown' });
  });

  it('pseudonymises any unclassified CPF column', () => {
    expect(classifyColumn('later_records', 'cpf', 'text')).toMatchObject({
      analyst: 'pseudonym',
      source: 'presumed',
    });
    expect(classifyColumn('new_table', 'manager_cpf', 'text')).toMatchObject({ analyst: 'pseudonym' });
  });

  it('leaves out an unclassified column that looks personal by name or type, shows the others', () => {
    for (const [column, type] of [
      ['collaborator_name', 'text'],
      ['home_address', 'text'],
      ['reason', 'text'],
      ['payload', 'jsonb'],
      ['anything', 'bytea'],
      ['checked_by', 'text'],
    ] as const) {
      expect(classifyColumn('later_records', column, type), column).toMatchObject({
        analyst: 'omitted',
        source: 'presumed',
      });
    }
    expect(classifyColumn('later_records', 'received_at', 'timestamptz')).toMatchObject({ analyst: 'shown' });
    expect(classifyColumn('later_records', 'resource', 'text')).toMatchObject({ analyst: 'shown' });
  });

  it('reads names by their words, not substrings', () => {
    expect(looksPersonal('domain', 'text')).toBe(false); // contains "name"'s letters, not the word
    expect(looksPersonal('zip_code', 'text')).toBe(true);
    expect(looksPersonal('email', 'text')).toBe(true);
  });
});

describe('buildAnalystView', () => {
  const rejected = relation('later_records', [
    ['id', 'int8', true],
    ['company_cnpj', 'text', true],
    ['cpf', 'text'],
    ['reason', 'text', true],
    ['payload', 'jsonb'],
    ['received_at', 'timestamptz', true],
  ]);

  it('shows an unclassified table without its personal-looking columns and with the CPF pseudonymised', () => {
    const view = buildAnalystView(rejected, 'wh')!;
    expect(view.columns).toEqual(['id', 'company_cnpj', 'cpf_pseudonym', 'received_at']);
    expect(view.omitted).toEqual(['reason', 'payload']);
    expect(view.create).toContain('CREATE OR REPLACE VIEW "wh_analyst"."later_records" AS');
    expect(view.create).toContain('LEFT JOIN "wh".cpf_pseudonyms p1 ON p1.cpf = t."cpf"');
    expect(view.create).toContain(
      `CASE WHEN t."cpf" LIKE 'erased-%' THEN t."cpf" ELSE p1.pseudonym END AS "cpf_pseudonym"`,
    );
    expect(view.create).not.toMatch(/t\."(reason|payload)"/);
    expect(view.comments[0]).toContain('without reason, payload');
  });

  it('gives no view to a relation excluded from analysts', () => {
    for (const name of [
      'audit_photos',
      'absence_attachments',
      'erasures',
      'cpf_pseudonyms',
      'schema_migrations',
    ]) {
      expect(PERSONAL_DATA[name]!.excludedFromAnalysts, name).toBeTruthy();
      expect(buildAnalystView(relation(name, [['id', 'int4']]), 'wh'), name).toBeNull();
    }
  });

  it('quotes comments as SQL literals', () => {
    const view = buildAnalystView({ ...rejected, comment: "the API's refusals" }, 'wh')!;
    expect(view.comments[0]).toContain("the API''s refusals");
  });
});

describe('analystSchemaOf', () => {
  it('names the analyst schema after the warehouse schema, within the 63-byte identifier limit', () => {
    expect(analystSchemaOf('workforce')).toBe('workforce_analyst');
    expect(() => analystSchemaOf('w'.repeat(60))).toThrow(/WAREHOUSE_SCHEMA w+ is too long.*at most 55/);
  });
});

describe('erasure builders', () => {
  it('keeps the rows with their omitted columns blanked where it can', () => {
    expect(
      erasurePlanOf(
        relation('punches', [
          ['cpf', 'text', true],
          ['latitude', 'float8'],
          ['method', 'text', true],
        ]),
      ),
    ).toEqual({
      mode: 'keep-rows',
      blank: ['latitude'],
    });
  });

  it('deletes the rows of files, of tables with a NOT NULL personal column, or with an expression key', () => {
    expect(
      erasurePlanOf(
        relation('audit_photos', [
          ['point_id', 'int8'],
          ['content', 'bytea'],
        ]),
      ),
    ).toMatchObject({ mode: 'delete-rows' });
    expect(
      erasurePlanOf(
        relation('later_records', [
          ['cpf', 'text'],
          ['payload', 'jsonb', true],
        ]),
      ),
    ).toEqual({
      mode: 'delete-rows',
      reason: 'personal column payload is NOT NULL',
    });
    expect(
      erasurePlanOf(
        relation(
          't',
          [['cpf', 'text']],
          [{ name: 'lower_idx', columns: [], hasExpressions: true, where: null }],
        ),
      ),
    ).toEqual({ mode: 'delete-rows', reason: 'unique index lower_idx uses expressions' });
  });

  it('detects collisions on every unique key holding the CPF, partial ones evaluated on both rows', () => {
    const history = relation(
      'collaborator_history',
      [
        ['company_cnpj', 'text'],
        ['cpf', 'text'],
        ['valid_from', 'timestamptz'],
      ],
      [
        { name: 'pkey', columns: ['company_cnpj', 'cpf', 'valid_from'], hasExpressions: false, where: null },
        {
          name: 'open',
          columns: ['company_cnpj', 'cpf'],
          hasExpressions: false,
          where: '(valid_to IS NULL)',
        },
        { name: 'other', columns: ['valid_from'], hasExpressions: false, where: null },
      ],
    );
    expect(collisionCondition(history, 'm', 'g')).toBe(
      '((m."company_cnpj" = g."company_cnpj" AND m."valid_from" = g."valid_from") OR ' +
        '(m."company_cnpj" = g."company_cnpj" AND EXISTS (SELECT FROM (SELECT m.*) AS r WHERE (valid_to IS NULL)) ' +
        'AND EXISTS (SELECT FROM (SELECT g.*) AS r WHERE (valid_to IS NULL))))',
    );
    expect(
      collisionCondition(
        relation(
          'punches',
          [
            ['point_id', 'int8'],
            ['cpf', 'text'],
          ],
          [{ name: 'pkey', columns: ['point_id'], hasExpressions: false, where: null }],
        ),
        'm',
        'g',
      ),
    ).toBeNull();
  });
});
