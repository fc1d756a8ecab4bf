/**
 * The personal-data classification against the migrated catalog, and docs/privacy.md
 * and docs/warehouse.md against the classification: a column that looks personal must be classified, a
 * classified column must exist, and the committed doc must be what the classification
 * renders (`npm run docs:privacy`).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it, beforeAll } from 'vitest';
import { introspectSchema, type SchemaInfo } from '../src/warehouse/introspection.js';
import { erasurePlanOf } from '../src/privacy/erasure-functions.js';
import { looksPersonal, PERSONAL_DATA } from '../src/privacy/personal-data.js';
import {
  PRIVACY_DOC_MARKERS,
  PRIVACY_DOC_PAGES,
  renderPersonalDataTable,
  withGeneratedBlock,
} from '../src/privacy/privacy-doc.js';
import { useMigratedWarehouse } from './warehouse-fixtures.js';

describe('docs/privacy.md and docs/warehouse.md', () => {
  it.each(PRIVACY_DOC_PAGES)(
    '%s holds the personal-data table the classification renders (run npm run docs:privacy)',
    (name) => {
      const page = readFileSync(new URL(`../${name}`, import.meta.url), 'utf8');
      expect(page).toContain(PRIVACY_DOC_MARKERS.start);
      expect(withGeneratedBlock(page, renderPersonalDataTable())).toBe(page);
    },
  );

  it('lists every personal column with its category and what each role sees', () => {
    const table = renderPersonalDataTable();
    expect(table).toContain(
      '| `punches` | `latitude` | location | yes | no | set to null | where the punch was made |',
    );
    expect(table).toContain(
      '| `collaborators` | `cpf` | identifier | yes | pseudonym, as `cpf_pseudonym` | replaced by the tombstone |',
    );
    expect(table).toContain('| `erasures` | `cpf` | identifier | no (owner only) | no (no analyst view) |');
    expect(table).toContain(
      '| `audit_photos` | `content` | biometric | yes | no (no analyst view) | row deleted |',
    );
  });
});

describe('the classification of src/privacy/personal-data.ts, against the migrated catalog', () => {
  const t = useMigratedWarehouse('privacy_doc');
  let relations: SchemaInfo;

  beforeAll(async () => {
    relations = await introspectSchema(t.admin, t.schema);
  });

  it('classifies every column that looks personal (cpf, name, email, address, latitude, …)', () => {
    const unclassified = relations.flatMap((r) =>
      r.columns
        .filter((c) => looksPersonal(c.name, c.udt) && PERSONAL_DATA[r.name]?.columns[c.name] === undefined)
        .map((c) => `${r.name}.${c.name} (${c.udt})`),
    );
    expect(
      unclassified,
      'classify these in src/privacy/personal-data.ts, then run npm run docs:privacy',
    ).toEqual([]);
    expect(relations.length).toBeGreaterThan(25);
  });

  it('names only tables, views and columns that exist', () => {
    const stale = Object.entries(PERSONAL_DATA).flatMap(([table, cls]) => {
      const r = relations.find((x) => x.name === table);
      if (!r) return [table];
      const linked = cls.person ? relations.find((x) => x.name === cls.person!.table) : r;
      return [
        ...Object.keys(cls.columns)
          .filter((c) => !r.columns.some((x) => x.name === c))
          .map((c) => `${table}.${c}`),
        ...(cls.preserve ?? [])
          .filter((c) => !r.columns.some((x) => x.name === c))
          .map((c) => `${table}.${c} (preserve)`),
        ...(cls.person && !linked?.columns.some((x) => x.name === cls.person!.column)
          ? [`${table} → ${cls.person.table}`]
          : []),
      ];
    });
    expect(stale).toEqual([]);
  });

  it('keeps the rows of every classified table forget erases in place (the aggregates analysts rely on)', () => {
    const aboutPeople = (name: string) => {
      const cls = PERSONAL_DATA[name];
      return (
        cls !== undefined &&
        cls.erase !== 'delete' &&
        (cls.person !== undefined || cls.columns['cpf']?.analyst === 'pseudonym')
      );
    };
    const deleted = relations
      .filter((r) => r.kind === 'table' && aboutPeople(r.name))
      .map((r) => ({ table: r.name, plan: erasurePlanOf(r) }))
      .filter((x) => x.plan.mode === 'delete-rows');
    expect(deleted).toEqual([]);
    expect(relations.filter((r) => r.kind === 'table' && aboutPeople(r.name)).length).toBe(19);
  });
});
