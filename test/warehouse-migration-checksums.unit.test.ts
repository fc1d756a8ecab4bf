import { describe, expect, it } from 'vitest';
import { EARLIER_CHECKSUMS, isSameMigration, rawChecksum, sqlChecksum } from '../src/migrations/checksums.js';
import { checksumsToUpdate, readMigrations, type MigrationFile } from '../src/migrations/files.js';

const SQL = `-- 042_things: a table of things.
CREATE TABLE things (
  id int PRIMARY KEY  -- the thing's id
);
COMMENT ON TABLE things IS 'Things.';
`;

describe('the checksum of a migration', () => {
  it('ignores comment lines, blank lines, indentation and line endings', () => {
    const edited = `-- 042_things: a table of things (now better explained).\n-- A second line.\n\nCREATE TABLE things (\r\n    id int PRIMARY KEY  -- the thing's id\r\n);\n\n\nCOMMENT ON TABLE things IS 'Things.';`;
    expect(sqlChecksum(edited)).toBe(sqlChecksum(SQL));
  });

  it('changes with the SQL, a COMMENT ON text or a comment at the end of a SQL line', () => {
    expect(sqlChecksum(SQL.replace('id int', 'id bigint'))).not.toBe(sqlChecksum(SQL));
    expect(sqlChecksum(SQL.replace("'Things.'", "'All things.'"))).not.toBe(sqlChecksum(SQL));
    expect(sqlChecksum(SQL.replace("the thing's id", 'its id'))).not.toBe(sqlChecksum(SQL));
    expect(sqlChecksum(`${SQL}CREATE INDEX ON things (id);\n`)).not.toBe(sqlChecksum(SQL));
  });
});

describe('a checksum recorded by an earlier punchline (raw text)', () => {
  const earlier = { '042': [{ raw: rawChecksum(SQL), sql: sqlChecksum(SQL) }] };

  it('is accepted when the file is unchanged', () => {
    expect(isSameMigration('042', rawChecksum(SQL), SQL, {})).toBe(true);
  });

  it('is accepted when it is listed for the version and only comments changed since', () => {
    const reworded = SQL.replace('a table of things', 'what things there are');
    expect(isSameMigration('042', rawChecksum(SQL), reworded, earlier)).toBe(true);
    expect(isSameMigration('042', rawChecksum(SQL), reworded, {})).toBe(false);
    expect(isSameMigration('043', rawChecksum(SQL), reworded, earlier)).toBe(false);
  });

  it('is refused when the SQL changed since', () => {
    expect(isSameMigration('042', rawChecksum(SQL), SQL.replace('id int', 'id bigint'), earlier)).toBe(false);
  });

  it('is brought to the current checksum', () => {
    const file: MigrationFile = {
      version: '042',
      name: '042_things',
      path: '/x',
      sql: SQL,
      checksum: sqlChecksum(SQL),
    };
    expect(
      checksumsToUpdate([file], [{ version: '042', name: '042_things', checksum: rawChecksum(SQL) }]),
    ).toEqual([{ version: '042', name: '042_things', checksum: sqlChecksum(SQL) }]);
    expect(
      checksumsToUpdate([file], [{ version: '042', name: '042_things', checksum: file.checksum }]),
    ).toEqual([]);
  });
});

describe('the earlier checksums listed for sql/', () => {
  it('name shipped migrations whose SQL is still the SQL of that text', () => {
    const files = new Map(readMigrations().map((f) => [f.version, f]));
    expect(Object.keys(EARLIER_CHECKSUMS).length).toBeGreaterThan(0);
    for (const [version, listed] of Object.entries(EARLIER_CHECKSUMS)) {
      const file = files.get(version);
      expect(file, `sql/${version}_*.sql`).toBeDefined();
      expect(
        listed.map((e) => e.sql),
        file!.name,
      ).toContain(sqlChecksum(file!.sql));
    }
  });
});
