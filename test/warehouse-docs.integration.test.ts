/**
 * docs/warehouse.md and src/warehouse/database.ts cannot drift from the migrations: the
 * dictionary and the kysely types are what the current sql/ produces, rendered from the
 * catalog of a freshly migrated schema.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { introspectSchema, type RelationInfo } from '../src/warehouse/introspection.js';
import {
  GENERATED_MARKER,
  composeWarehouseDoc,
  deriveRelations,
  handWrittenPart,
  renderDatabaseTypes,
  renderDictionary,
} from '../src/warehouse/dictionary.js';
import { migrate } from '../src/migrations/migrate.js';
import { RESOURCE_SUMMARIES } from '../src/resources/index.js';
import { warehouseDocQuestions } from '../bench/example-questions.js';
import { connectPostgres, dropSchema, TEST_DATABASE_URL, uniqueName } from './support/isolation.js';

const DOC = join(import.meta.dirname, '..', 'docs', 'warehouse.md');
const TYPES = join(import.meta.dirname, '..', 'src', 'warehouse', 'database.ts');
const schema = uniqueName('wh_docs');
let pool: pg.Pool;
let relations: RelationInfo[];

beforeAll(async () => {
  pool = await connectPostgres();
  await migrate(TEST_DATABASE_URL, schema);
  relations = await introspectSchema(pool, schema);
});

afterAll(async () => {
  await dropSchema(pool, schema);
  await pool?.end();
});

describe('docs/warehouse.md', () => {
  it('is what the current migrations produce (regenerate it with `npm run docs:warehouse`)', () => {
    const committed = readFileSync(DOC, 'utf8');
    const expected = composeWarehouseDoc(handWrittenPart(committed), relations, RESOURCE_SUMMARIES);
    expect(
      committed,
      'docs/warehouse.md is out of date with sql/: run `npm run docs:warehouse` and commit it',
    ).toBe(expected);
  });

  it('describes every table and view with every column, its type and its comment', () => {
    const lines = renderDictionary(relations, RESOURCE_SUMMARIES).split('\n');
    const asCell = (text: string | null) => (text ?? '').replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|');
    for (const r of relations) {
      const at = lines.indexOf(`### ${r.name}`);
      expect(lines[at + 2], r.name).toBe(asCell(r.comment));
      const end = lines.indexOf(
        '',
        lines.findIndex((l, i) => i > at && l.startsWith('| `')),
      );
      const rows = lines.slice(at, end).filter((l) => l.startsWith('| `'));
      expect(rows.length, r.name).toBe(r.columns.length);
      r.columns.forEach((c, i) => {
        expect(rows[i]!.startsWith(`| \`${c.name}\` | ${c.type} |`), `${r.name}.${c.name}`).toBe(true);
        expect(rows[i]!.endsWith(` | ${asCell(c.comment)} |`), `${r.name}.${c.name}`).toBe(true);
      });
    }
  });
});

describe('src/warehouse/database.ts', () => {
  it('is what the current migrations produce (regenerate it with `npm run docs:warehouse`)', () => {
    expect(
      readFileSync(TYPES, 'utf8'),
      'src/warehouse/database.ts is out of date with sql/: run `npm run docs:warehouse` and commit it',
    ).toBe(renderDatabaseTypes(relations));
  });

  it('types each column as the warehouse pool reads it: null where allowed, defaults and computed columns apart', () => {
    const types = renderDatabaseTypes(relations);
    const block = (name: string) =>
      types.slice(
        types.indexOf(`export interface ${name} {`),
        types.indexOf('\n}\n', types.indexOf(`export interface ${name} {`)),
      );
    expect(block('SyncRuns')).toContain('  id: Generated<Int8>;');
    expect(block('SyncRuns')).toContain('  company_cnpj: string | null;');
    expect(block('SyncRuns')).toContain('  window_start: string | null;');
    expect(block('SyncRuns')).toContain('  started_at: Generated<Timestamptz>;');
    expect(block('SyncRuns')).toContain('  finished_at: Timestamptz | null;');
    expect(block('Erasures')).toContain('  tombstone: GeneratedAlways<string>;');
    expect(block('Erasures')).toContain('  names: string[] | null;');
    expect(block('RejectedRecords')).toContain('  record: Json;');
    expect(block('SyncFreshness')).toContain('  last_success_at: Timestamptz | null;');
    expect(
      block('Database')
        .split('\n')
        .slice(1)
        .map((l) => l.trim().split(':')[0]),
    ).toEqual(relations.map((r) => r.name));
  });

  it('refuses a column of a Postgres type it has no TypeScript type for, naming it', () => {
    const odd: RelationInfo = {
      ...relations[0]!,
      columns: [
        { name: 'at', type: 'interval', udt: 'interval', nullable: false, filled: null, comment: null },
      ],
    };
    expect(() => renderDatabaseTypes([odd])).toThrow(
      `${odd.name}.at: no TypeScript type for the Postgres type interval`,
    );
  });
});

describe('the example questions of the marts', () => {
  it('cover what analysts ask first, and each runs on the migrated schema', async () => {
    const questions = warehouseDocQuestions(schema);
    expect(questions.map((q) => q.name)).toEqual([
      'headcount and turnover by department',
      'headcount bridge by department',
      'transfers between companies',
      'voluntary turnover over 12 months',
      'absenteeism by department',
      'Bradford top 20',
      'business days lost per state holiday',
      'hours and overtime by department and month',
      'absence days by type',
      'lateness ranking',
      'hour-bank trend',
      'short rests by department last month',
      'people with a seventh day worked',
      'night hours by company',
      'overtime above 2 h by week',
    ]);
    for (const q of questions) {
      expect(q.sql, q.name).not.toContain('workforce.');
      await expect(pool.query(q.sql), q.name).resolves.toBeDefined();
    }
  });
});

describe('the relations of the ER diagram', () => {
  it('join facts to collaborators and companies by their shared key columns', () => {
    const edges = deriveRelations(
      relations,
      RESOURCE_SUMMARIES.flatMap((r) => r.tables),
    ).map((e) => `${e.parent} <- ${e.child} (${e.columns.join(', ')}) ${e.cardinality}`);
    expect(edges).toEqual(
      expect.arrayContaining([
        'collaborators <- punches (company_cnpj, cpf, collaborator_record) many',
        'collaborators <- hour_totals (company_cnpj, cpf, collaborator_record) many',
        'collaborators <- employments (company_cnpj, cpf, collaborator_record) one',
        'collaborators <- employee_daily (company_cnpj, cpf, collaborator_record) many',
        'collaborators <- quality_checks (company_cnpj, cpf) many',
        'companies <- collaborators (company_cnpj) many',
        'companies <- departments (company_cnpj) many',
        'punches <- audit_photos (point_id) one',
        'absences <- absence_collaborators (absence_id) many',
        'absence_types <- absences (company_cnpj, absence_type_id) many',
      ]),
    );
  });

  it('leave out references another one implies', () => {
    const edges = deriveRelations(
      relations,
      RESOURCE_SUMMARIES.flatMap((r) => r.tables),
    ).map((e) => `${e.parent} <- ${e.child}`);
    // punches -> companies is implied by punches -> collaborators; audit_photos -> companies by audit_photos -> punches.
    expect(edges).not.toContain('companies <- punches');
    expect(edges).not.toContain('companies <- audit_photos');
    expect(edges).not.toContain('punches <- punches');
  });
});

describe('the page without its marker line', () => {
  it('is refused with an error naming the line to add', () => {
    expect(() => handWrittenPart('# no marker here\n')).toThrow(GENERATED_MARKER);
  });
});
