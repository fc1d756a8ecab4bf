import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { storedFile } from '../src/resources/column-classes.js';
import { localToUtc } from '../src/util/time.js';
import { buildHistoryStatements, TRACKED_ATTRIBUTES } from '../src/warehouse/collaborator-history.js';
import { cell, CellError, escapeCopy } from '../src/warehouse/copy-text.js';
import { MigrationError } from '../src/warehouse/errors.js';
import { createLocalTimeConverter } from '../src/util/local-time.js';
import { buildLiveCount, buildReconcile, buildUpsert } from '../src/warehouse/merge-statement.js';
import {
  checksumOf,
  lineOfPosition,
  planMigrations,
  renderMigration,
  type MigrationFile,
} from '../src/migrations/files.js';
import { toPgArray } from '../src/warehouse/pg-array.js';
import { StagedTable, stageName } from '../src/warehouse/staging.js';
import { inWindow, wholeCompany, type TableSpec } from '../src/warehouse/table-spec.js';
import { CNPJ_A } from './warehouse-fixtures.js';

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

describe('cell (COPY text)', () => {
  it('writes null and a missing value as \\N, whatever the type', () => {
    for (const type of ['int4', 'text', 'bool', 'bytea', 'text[]', 'timestamptz'] as const) {
      expect(cell(type, null)).toBe('\\N');
      expect(cell(type, undefined)).toBe('\\N');
    }
  });

  it('escapes backslash, tab, newline and carriage return, and leaves other text as it is', () => {
    expect(cell('text', 'a\\b\tc\nd\re')).toBe('a\\\\b\\tc\\nd\\re');
    expect(cell('text', '\\N')).toBe('\\\\N');
    expect(cell('text', 'say "hi", {x} ação ✓')).toBe('say "hi", {x} ação ✓');
    expect(cell('text', '')).toBe('');
    expect(escapeCopy('plain')).toBe('plain');
  });

  it('sends dates and times as they are (Postgres checks them)', () => {
    expect(cell('date', '2024-02-29')).toBe('2024-02-29');
    expect(cell('timestamptz', '2024-03-04 08:00:00-03:00')).toBe('2024-03-04 08:00:00-03:00');
    expect(cell('time', '08:00')).toBe('08:00');
  });

  it('writes booleans as t/f and finite numbers as they print', () => {
    expect([cell('bool', true), cell('bool', false)]).toEqual(['t', 'f']);
    expect([
      cell('int4', 42),
      cell('int8', -7),
      cell('float8', -2.5),
      cell('float8', 1e-7),
      cell('int4', 0),
    ]).toEqual(['42', '-7', '-2.5', '1e-7', '0']);
  });

  it('refuses a number Postgres cannot store with a CellError', () => {
    for (const n of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      const err = (() => {
        try {
          cell('float8', n);
        } catch (e) {
          return e;
        }
      })();
      expect(err).toBeInstanceOf(CellError);
      expect(err).toBeInstanceOf(RangeError);
      expect((err as Error).message).toBe(`cannot store the number ${n}`);
    }
  });

  it('refuses a value of another type than its column', () => {
    expect(() => cell('int4', '42')).toThrow(new CellError('cannot store a string as int4'));
    expect(() => cell('bool', 'true')).toThrow(CellError);
    expect(() => cell('text', 5)).toThrow(new CellError('cannot store a number as text'));
    expect(() => cell('bytea', 'AAEC')).toThrow(CellError);
    expect(() => cell('text[]', 'a')).toThrow(CellError);
  });

  it('stores a text without the NUL characters Postgres refuses, counting each value that had one', () => {
    const cleaning = { removed: 0 };
    expect(cell('text', 'Depto\u0000 de\tvendas\u0000', cleaning)).toBe('Depto de\\tvendas');
    expect(cell('text', 'limpo', cleaning)).toBe('limpo');
    expect(cell('text[]', ['a\u0000b', 'c'], cleaning)).toBe('{"ab","c"}');
    expect(cleaning.removed).toBe(2);
    expect(cell('text', '\u0000')).toBe('');
  });

  it('writes bytes as hex bytea, its backslash escaped for COPY', () => {
    expect(cell('bytea', Buffer.from([0, 255, 92]))).toBe('\\\\x00ff5c');
    expect(cell('bytea', Buffer.alloc(0))).toBe('\\\\x');
  });

  it('writes arrays as array literals escaped for COPY', () => {
    expect(cell('text[]', ['a b', 'say "hi"', null])).toBe('{"a b","say \\\\"hi\\\\"",null}');
    expect(cell('text[]', ['line\nbreak', 'back\\slash'])).toBe('{"line\\nbreak","back\\\\\\\\slash"}');
    expect(cell('time[]', ['08:00', '12:30'])).toBe('{"08:00","12:30"}');
    expect(cell('time[]', [])).toBe('{}');
  });
});

describe('merge statements', () => {
  const scope = { company: CNPJ_A, from: '2024-03-01', to: '2024-03-31' };
  const spec = (over: Partial<TableSpec> = {}): TableSpec => ({
    table: 't1',
    key: ['id'],
    columns: { id: 'int8', label: 'text', tags: 'text[]' },
    ...over,
  });
  const softDeleted = spec({
    softDelete: true,
    fixed: { active: 'true' },
    missing: { mode: 'soft-delete', where: inWindow('work_date') },
  });

  it('counts the live rows of the scope', () => {
    expect(buildLiveCount('s', softDeleted, scope)).toEqual({
      text: 'SELECT count(*)::int AS live FROM "s"."t1" t WHERE (t.company_cnpj = $1 AND t.work_date BETWEEN $2::date AND $3::date) AND t.deleted_at IS NULL',
      values: [CNPJ_A, '2024-03-01', '2024-03-31'],
    });
    expect(
      buildLiveCount('s', spec({ missing: { mode: 'deactivate', where: wholeCompany } }), scope).text,
    ).toMatch(/WHERE \(t\.company_cnpj = \$1\) AND t\.active$/);
  });

  it('reconciles the scope against the stage by natural key before any upsert', () => {
    const q = buildReconcile('s', softDeleted, 'stage_t1', scope);
    expect(q.values).toEqual([CNPJ_A, '2024-03-01', '2024-03-31']);
    expect(q.text).toBe(
      'WITH gone AS (UPDATE "s"."t1" AS t SET deleted_at = now(), synced_at = now() WHERE ' +
        '(t.company_cnpj = $1 AND t.work_date BETWEEN $2::date AND $3::date) AND t.deleted_at IS NULL AND ' +
        'NOT EXISTS (SELECT 1 FROM "stage_t1" s WHERE s."id" = t."id") RETURNING concat_ws(E\'\\x1f\', t."id"::text) AS k) ' +
        "SELECT count(*)::int AS removed, md5(coalesce(string_agg(k, E'\\x1e' ORDER BY k), '')) AS digest FROM gone",
    );
  });

  it('deactivates or deletes instead, as the spec says, matching every key column', () => {
    const twoKeys = {
      key: ['company_cnpj', 'id'],
      columns: { company_cnpj: 'text', id: 'int4', name: 'text' },
    } as const;
    const deactivate = buildReconcile(
      's',
      spec({ ...twoKeys, missing: { mode: 'deactivate', where: wholeCompany } }),
      'st',
      scope,
    ).text;
    expect(deactivate).toContain(
      'UPDATE "s"."t1" AS t SET active = false, synced_at = now() WHERE (t.company_cnpj = $1) AND t.active AND ',
    );
    expect(deactivate).toContain(
      'NOT EXISTS (SELECT 1 FROM "st" s WHERE s."company_cnpj" = t."company_cnpj" AND s."id" = t."id")',
    );
    const remove = buildReconcile(
      's',
      spec({ missing: { mode: 'delete', where: wholeCompany } }),
      'st',
      scope,
    ).text;
    expect(remove).toMatch(
      /^WITH gone AS \(DELETE FROM "s"\."t1" AS t WHERE \(t\.company_cnpj = \$1\) AND true AND NOT EXISTS/,
    );
  });

  it('refuses to reconcile a table without a missing rule', () => {
    expect(() => buildReconcile('s', spec(), 'st', scope)).toThrow('t1: no reconciliation declared');
    expect(() => buildLiveCount('s', spec(), scope)).toThrow('t1: no reconciliation declared');
  });

  it('upserts by natural key, rewriting only rows whose old and new values differ', () => {
    const q = buildUpsert('s', softDeleted, 'stage_t1');
    expect(q.values).toEqual([]);
    expect(q.text).toContain('INSERT INTO "s"."t1" AS t ("id", "label", "tags", "active", "synced_at")');
    expect(q.text).toContain('SELECT s."id", s."label", s."tags", true, now() FROM "stage_t1" s');
    expect(q.text).toContain(
      'ON CONFLICT ("id") DO UPDATE SET "label" = excluded."label", "tags" = excluded."tags", "active" = true, deleted_at = NULL, synced_at = excluded.synced_at',
    );
    expect(q.text).toContain(
      'WHERE ROW(t."label", t."tags", t."active", t.deleted_at) IS DISTINCT FROM ROW(excluded."label", excluded."tags", true, NULL::timestamptz)',
    );
    expect(q.text).toContain('RETURNING (xmax = 0) AS inserted');
    expect(q.text).toMatch(
      /SELECT count\(\*\) FILTER \(WHERE inserted\)::int AS inserted, count\(\*\) FILTER \(WHERE NOT inserted\)::int AS updated FROM up$/,
    );
    expect(buildUpsert('s', spec({ columns: { id: 'int8', label: 'text' } }), 'st').text).toContain(
      'WHERE ROW(t."label") IS DISTINCT FROM ROW(excluded."label")',
    );
  });

  it('does nothing on conflict for insert-only and key-only tables', () => {
    for (const s of [
      spec({ onConflict: 'nothing', fixed: { active: 'false' } }),
      spec({ columns: { id: 'int8' } }),
    ]) {
      const q = buildUpsert('s', s, 'st');
      expect(q.text).toContain('ON CONFLICT ("id") DO NOTHING');
      expect(q.text).not.toContain('DO UPDATE');
    }
  });

  it('reads the stage with one row per key, the last staged, when asked to dedupe', () => {
    const two = spec({
      key: ['company_cnpj', 'id'],
      columns: { company_cnpj: 'text', id: 'int8', label: 'text' },
    });
    expect(buildUpsert('s', two, 'st').text).toContain('FROM "st" s\n');
    expect(buildUpsert('s', two, 'st', { dedupe: true }).text).toContain(
      'FROM (SELECT DISTINCT ON ("company_cnpj", "id") * FROM "st" ORDER BY "company_cnpj", "id", ctid DESC) s',
    );
  });

  it('closes changed history versions and opens missing ones from the staged list', () => {
    const { close, open } = buildHistoryStatements('s', CNPJ_A, 'stage_collaborators');
    const tracked = (a: string) => `ROW(${TRACKED_ATTRIBUTES.map((x) => `${a}.${x}`).join(', ')})`;
    expect([close.values, open.values]).toEqual([[CNPJ_A], [CNPJ_A]]);
    expect(close.text).toContain(`h.valid_to IS NULL AND ${tracked('h')} IS DISTINCT FROM ${tracked('s')}`);
    expect(open.text).toContain(
      'SELECT DISTINCT ON (s.cpf, s.collaborator_record) $1, s.cpf, s.collaborator_record, now(), NULL,',
    );
    expect(open.text).toContain(
      'WHERE NOT EXISTS (SELECT 1 FROM "s".collaborator_history h WHERE h.company_cnpj = $1 AND h.cpf = s.cpf AND h.collaborator_record = s.collaborator_record AND h.valid_to IS NULL)',
    );
  });
});

describe('StagedTable', () => {
  const spec: TableSpec = {
    table: 'punches',
    key: ['id'],
    columns: { id: 'int8', note: 'text', ok: 'bool', tags: 'text[]' },
  };

  it('creates a temporary stage with the spec’s columns and types, dropped at commit, and copies into it', () => {
    const t = new StagedTable(spec, stageName('punches'));
    expect(t.stage).toBe('stage_punches');
    expect(t.createStatement()).toBe(
      'CREATE TEMP TABLE "stage_punches" ("id" int8, "note" text, "ok" bool, "tags" text[]) ON COMMIT DROP',
    );
    expect(t.copyStatement()).toBe('COPY "stage_punches" ("id", "note", "ok", "tags") FROM STDIN');
  });

  it('encodes each row as one COPY line, columns in spec order, missing ones as \\N', () => {
    const t = new StagedTable(spec, 'st');
    t.add({ tags: ['x'], ok: true, note: 'a\tb', id: 1 });
    t.add({ id: 2 });
    expect(t.rows).toBe(2);
    const text = '1\ta\\tb\tt\t{"x"}\n2\t\\N\t\\N\t\\N\n';
    expect(t.pendingBytes).toBe(text.length);
    expect(Buffer.concat(t.take()).toString('utf8')).toBe(text);
    expect(t.pendingBytes).toBe(0);
    expect(t.take().length).toBe(0);
    expect(t.rows).toBe(2);
  });

  it('names table.column in a CellError and keeps nothing of the refused row', () => {
    const t = new StagedTable(spec, 'st');
    t.add({ id: 1 });
    expect(() => t.add({ id: 2, note: 'fine', ok: 'yes' as never })).toThrow(
      new CellError('punches.ok: cannot store a string as bool'),
    );
    expect(() => t.add({ id: Number.NaN })).toThrow(CellError);
    expect(t.rows).toBe(1);
    expect(Buffer.concat(t.take()).toString('utf8')).toBe('1\t\\N\t\\N\t\\N\n');
  });

  it('says which columns had values stored without a NUL character, and how many', () => {
    const t = new StagedTable(spec, 'st');
    t.add({ id: 1, note: 'a\u0000b', tags: ['c\u0000'] });
    t.add({ id: 2, note: '\u0000' });
    t.add({ id: 3, note: 'clean' });
    expect(t.cleaned()).toEqual([
      { column: 'note', values: 2 },
      { column: 'tags', values: 1 },
    ]);
    expect(Buffer.concat(t.take()).toString('utf8')).toBe(
      '1\tab\t\\N\t{"c"}\n2\t\t\\N\t\\N\n3\tclean\t\\N\t\\N\n',
    );
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
    for (const local of minutesOf(day))
      expect(instant(convert(local)), local).toBe(localToUtc(local, tz).toISOString());
  });

  it('gives the wall time with its offset, which Postgres reads whatever the session time zone', () => {
    expect(createLocalTimeConverter('America/Sao_Paulo')('2024-03-04 08:00:00')).toBe(
      '2024-03-04 08:00:00-03:00',
    );
    expect(createLocalTimeConverter('Asia/Kolkata')('2024-03-04 08:00:00')).toBe('2024-03-04 08:00:00+05:30');
  });

  it('refuses a value that is not a date-time', () => {
    expect(() => createLocalTimeConverter('UTC')('2024-02-30 10:00:00')).toThrow(RangeError);
  });
});

describe('migration plan', () => {
  const file = (version: string, sql = `-- ${version}`): MigrationFile => ({
    version,
    name: `${version}_x`,
    path: `/x/${version}_x.sql`,
    sql,
    checksum: checksumOf(sql),
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
    expect(code(() => planMigrations([file('001', 'SELECT 1;'), b], [applied(a)], 's'))).toBe(
      'migration_changed',
    );
    expect(code(() => planMigrations([b], [applied(a), applied(b)], 's'))).toBe('migration_missing');
    expect(code(() => planMigrations([a, b], [applied(b)], 's'))).toBe('migration_out_of_order');
  });

  it('renders the schema placeholder quoted and finds error lines', () => {
    expect(renderMigration('GRANT USAGE ON SCHEMA {{schema}} TO r; -- {{schema}}', 'wf')).toBe(
      'GRANT USAGE ON SCHEMA "wf" TO r; -- "wf"',
    );
    expect(lineOfPosition('a\nbb\nccc', 1)).toBe(1);
    expect(lineOfPosition('a\nbb\nccc', 4)).toBe(2);
    expect(lineOfPosition('a\nbb\nccc', 7)).toBe(3);
  });
});

describe('storedFile', () => {
  it('gives size and SHA-256 always, and bytes only when binaries are stored', () => {
    const bytes = Buffer.from('certificate');
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    expect(storedFile(bytes.toString('base64'), false)).toEqual({ size_bytes: 11, sha256, content: null });
    expect(storedFile(bytes.toString('base64'), true)).toEqual({ size_bytes: 11, sha256, content: bytes });
  });
});

describe('StagedTable chunks and rollback', () => {
  const spec: TableSpec = { table: 'notes', key: ['id'], columns: { id: 'int8', note: 'text' } };

  it('keeps multi-byte text whole across many chunks, and rolls back to a mark across a chunk boundary', () => {
    const t = new StagedTable(spec, 'st');
    const long = 'ção😀'.repeat(2000);
    const expected: string[] = [];
    for (let i = 0; i < 40; i++) {
      t.add({ id: i, note: long });
      expected.push(`${i}\t${long}\n`);
    }
    const mark = t.mark();
    for (let i = 40; i < 60; i++) t.add({ id: i, note: long });
    t.rollback(mark);
    t.add({ id: 99, note: 'last' });
    expected.push('99\tlast\n');
    expect(t.rows).toBe(41);
    const chunks = t.take();
    expect(chunks.length).toBeGreaterThan(1);
    const text = Buffer.concat(chunks).toString('utf8');
    expect(text).toBe(expected.join(''));
    expect(t.pendingBytes).toBe(0);
  });
});
