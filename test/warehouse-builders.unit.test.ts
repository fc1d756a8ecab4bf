import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { localToUtc } from '../src/util/time.js';
import { describeFile } from '../src/warehouse/binary-file.js';
import { LoadError, MigrationError } from '../src/warehouse/errors.js';
import { buildPunchLoad } from '../src/warehouse/load-punches.js';
import { createLocalTimeConverter } from '../src/warehouse/local-time.js';
import { checksumOf, lineOfPosition, planMigrations, renderMigration, type MigrationFile } from '../src/warehouse/migrations.js';
import { toPgArray } from '../src/warehouse/pg-array.js';
import { ColumnBuffer } from '../src/warehouse/rows.js';
import { buildUpsert } from '../src/warehouse/upsert-statement.js';
import { CNPJ_A, CNPJ_B, CPF_1, point, pointsOf } from './warehouse-fixtures.js';

describe('toPgArray', () => {
  it('quotes strings, escapes quotes and backslashes, and writes nulls, booleans and numbers bare', () => {
    expect(toPgArray(['a b', 'say "hi"', 'back\\slash', null, undefined, '', 'NULL'])).toBe(
      '{"a b","say \\"hi\\"","back\\\\slash",null,null,"","NULL"}',
    );
    expect(toPgArray([1, -2.5, 0, true, false])).toBe('{1,-2.5,0,true,false}');
    expect(toPgArray([])).toBe('{}');
  });

  it('keeps control characters raw inside quotes (JSON escapes would be misread)', () => {
    expect(toPgArray(['a\nb', 'tab\there', null])).toBe('{"a\nb","tab\there",NULL}');
  });

  it('writes bytes as hex bytea', () => {
    expect(toPgArray([Buffer.from([0, 255]), null])).toBe('{"\\\\x00ff",NULL}');
  });

  it('refuses numbers Postgres cannot store', () => {
    expect(() => toPgArray([Number.NaN])).toThrow(/non-finite/);
    expect(() => toPgArray([1, Number.POSITIVE_INFINITY])).toThrow(/non-finite/);
  });
});

describe('buildUpsert', () => {
  const columns = [
    { name: 'id', type: 'int8' as const },
    { name: 'label', type: 'text' as const },
    { name: 'tags', type: 'text[]' as const },
  ];

  it('sends one array per column and compares old and new rows before updating', () => {
    const q = buildUpsert(
      { schema: 's', table: 't1', key: ['id'], columns, softDelete: true, fixed: { active: 'true' } },
      { id: [1, 2], label: ['a', null], tags: ['{x}', '{}'] },
    );
    expect(q.values).toEqual(['{1,2}', '{"a",null}', '{"{x}","{}"}']);
    expect(q.text).toContain('SELECT unnest($1::int8[]) AS "id", unnest($2::text[]) AS "label", unnest($3::text[]) AS "tags"');
    expect(q.text).toContain('s."tags"::text[]');
    expect(q.text).toContain('ON CONFLICT ("id") DO UPDATE');
    expect(q.text).toContain('WHERE ROW(t."label", t."tags", t."active", t.deleted_at) IS DISTINCT FROM ROW(excluded."label", excluded."tags", true, NULL::timestamptz)');
    expect(q.text).not.toContain('gone AS');
  });

  it('reconciles the scope with parameters numbered after the arrays', () => {
    const q = buildUpsert(
      { schema: 's', table: 't1', key: ['id'], columns, missing: { mode: 'soft-delete', where: (p) => `t.company = ${p('X')}` } },
      { id: [], label: [], tags: [] },
    );
    expect(q.values).toEqual(['{}', '{}', '{}', 'X']);
    expect(q.text).toMatch(/UPDATE "s"\."t1" AS t SET deleted_at = now\(\), synced_at = now\(\)\s+WHERE \(t\.company = \$4\) AND t\.deleted_at IS NULL AND NOT EXISTS \(SELECT 1 FROM \(SELECT unnest\(\$1::int8\[\]\) AS "id"\) AS k WHERE k\."id" = t\."id"\)/);
  });

  it('inserts only when asked to leave existing rows alone', () => {
    const q = buildUpsert({ schema: 's', table: 't1', key: ['id'], columns, onConflict: 'nothing' }, { id: [1], label: ['a'], tags: ['{}'] });
    expect(q.text).toContain('ON CONFLICT ("id") DO NOTHING');
  });

  it('rejects ragged columns and a key that is not sent', () => {
    expect(() => buildUpsert({ schema: 's', table: 't1', key: ['id'], columns }, { id: [1, 2], label: ['a'], tags: ['{}', '{}'] })).toThrow(/label has 1 values, expected 2/);
    expect(() => buildUpsert({ schema: 's', table: 't1', key: ['nope'], columns }, { id: [], label: [], tags: [] })).toThrow(/key column nope/);
  });
});

describe('ColumnBuffer', () => {
  it('keeps one row per key, the last one sent, in first-seen order', () => {
    const buffer = new ColumnBuffer([{ name: 'k', type: 'int4' }, { name: 'v', type: 'text' }]);
    for (const [k, v] of [[3, 'a'], [1, 'b'], [3, 'c'], [10, 'd']] as const) buffer.add(k, { k, v });
    expect(buffer.length).toBe(3);
    expect(buffer.data).toEqual({ k: [3, 1, 10], v: ['c', 'b', 'd'] });
  });
});

describe('createLocalTimeConverter', () => {
  const minutesOf = (day: string) =>
    Array.from({ length: (24 * 60) / 5 }, (_, i) => i * 5 + (i % 5)).map(
      (m) => `${day} ${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}:17`,
    );

  it.each([
    ['America/Sao_Paulo', '2018-11-04'],
    ['America/Sao_Paulo', '2019-02-16'],
    ['America/New_York', '2024-03-10'],
    ['America/New_York', '2024-11-03'],
    ['Australia/Lord_Howe', '2024-04-07'],
    ['Australia/Lord_Howe', '2024-10-06'],
  ])('agrees with localToUtc across the day %s %s (a DST change)', (tz, day) => {
    const convert = createLocalTimeConverter(tz);
    const instant = (value: string) => new Date(value.replace(' ', 'T')).toISOString();
    for (const local of minutesOf(day)) expect(instant(convert(local)), local).toBe(localToUtc(local, tz).toISOString());
  });

  it('gives the wall time with its offset, which Postgres reads whatever the session time zone', () => {
    expect(createLocalTimeConverter('America/Sao_Paulo')('2024-03-04 08:00:00')).toBe('2024-03-04 08:00:00-03:00');
    expect(createLocalTimeConverter('Asia/Kolkata')('2024-03-04 08:00:00')).toBe('2024-03-04 08:00:00+05:30');
  });

  it('refuses a value that is not a date-time', () => {
    expect(() => createLocalTimeConverter('UTC')('2024-02-30 10:00:00')).toThrow(RangeError);
  });
});

describe('migration plan', () => {
  const file = (version: string, sql = `-- ${version}`): MigrationFile => ({
    version, name: `${version}_x`, path: `/x/${version}_x.sql`, sql, checksum: checksumOf(sql),
  });
  const applied = (f: MigrationFile) => ({ version: f.version, name: f.name, checksum: f.checksum });

  it('applies what is not applied yet, in order', () => {
    const files = [file('001'), file('002'), file('003')];
    expect(planMigrations(files, [applied(files[0]!)], 's').map((f) => f.version)).toEqual(['002', '003']);
    expect(planMigrations(files, files.map(applied), 's')).toEqual([]);
  });

  it('refuses a changed, a missing or an out-of-order file', () => {
    const code = (fn: () => unknown) => {
      try {
        fn();
      } catch (e) {
        expect(e).toBeInstanceOf(MigrationError);
        return (e as MigrationError).code;
      }
      return 'no error';
    };
    const [a, b] = [file('001'), file('002')];
    expect(code(() => planMigrations([file('001', 'SELECT 1;'), b], [applied(a)], 's'))).toBe('migration_changed');
    expect(code(() => planMigrations([b], [applied(a), applied(b)], 's'))).toBe('migration_missing');
    expect(code(() => planMigrations([a, b], [applied(b)], 's'))).toBe('migration_out_of_order');
  });

  it('renders the schema placeholder quoted and finds error lines', () => {
    expect(renderMigration('GRANT USAGE ON SCHEMA {{schema}} TO r; -- {{schema}}', 'wf')).toBe('GRANT USAGE ON SCHEMA "wf" TO r; -- "wf"');
    expect(lineOfPosition('a\nbb\nccc', 1)).toBe(1);
    expect(lineOfPosition('a\nbb\nccc', 4)).toBe(2);
    expect(lineOfPosition('a\nbb\nccc', 7)).toBe(3);
  });
});

describe('describeFile', () => {
  it('gives size and SHA-256 always, and bytes only when binaries are stored', () => {
    const bytes = Buffer.from('certificate');
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    expect(describeFile(bytes.toString('base64'), false)).toEqual({ sizeBytes: 11, sha256, content: null });
    expect(describeFile(bytes.toString('base64'), true)).toEqual({ sizeBytes: 11, sha256, content: bytes });
  });
});

describe('buildPunchLoad', () => {
  const scope = { companyCnpj: CNPJ_A, from: '2024-03-01', to: '2024-03-31', timezone: 'America/Sao_Paulo' };

  it('refuses a collaborator of another company (spec 1.4 rule 4)', () => {
    expect(() => buildPunchLoad('s', scope, [pointsOf(CPF_1, {}, CNPJ_B)])).toThrow(LoadError);
  });

  it('refuses a CPF that is not 11 digits (the fact tables have no CHECK for it)', () => {
    const bad = { ...pointsOf(CPF_1, {}), national_registry: '123.456.789-09' };
    expect(() => buildPunchLoad('s', scope, [bad])).toThrow(/CPF "123.456.789-09" is not 11 digits/);
  });

  it('refuses a window that ends before it starts or an unknown time zone', () => {
    expect(() => buildPunchLoad('s', { ...scope, from: '2024-04-01' }, [])).toThrow(/ends before it starts/);
    expect(() => buildPunchLoad('s', { ...scope, timezone: 'Mars/Olympus' }, [])).toThrow(/not an IANA time zone/);
  });

  it('keeps one row per point_id, the last one sent', () => {
    const q = buildPunchLoad('s', scope, [
      pointsOf(CPF_1, { '2024-03-04': [point(7, '2024-03-04 08:00:00'), point(7, '2024-03-04 08:01:00')] }),
    ]);
    expect(q.punches!.values[0]).toBe('{7}');
    expect(q.punches!.values[4]).toBe('{"2024-03-04 08:01:00"}');
  });
});
