import { execFile } from 'node:child_process';
import {
  cpSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
  appendFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MigrationError } from '../src/warehouse/errors.js';
import { migrate } from '../src/migrations/migrate.js';
import { EARLIER_CHECKSUMS, rawChecksum } from '../src/migrations/checksums.js';
import { defaultMigrationsDir, readMigrations } from '../src/migrations/files.js';
import { connectPostgres, dropSchema, TEST_DATABASE_URL, uniqueName } from './support/isolation.js';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..');

let admin: pg.Pool;
const schemas: string[] = [];
const dirs: string[] = [];

function schemaName(): string {
  const s = uniqueName('wh_mig');
  schemas.push(s);
  return s;
}

function copyOfSql(): string {
  const dir = mkdtempSync(join(tmpdir(), 'punchline-sql-'));
  cpSync(defaultMigrationsDir(), dir, { recursive: true });
  dirs.push(dir);
  return dir;
}

async function relations(schema: string): Promise<string[]> {
  const { rows } = await admin.query<{ relname: string }>(
    `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = $1 AND c.relkind IN ('r', 'v') ORDER BY 1`,
    [schema],
  );
  return rows.map((r) => r.relname);
}

beforeAll(async () => {
  admin = await connectPostgres();
});

afterAll(async () => {
  for (const s of schemas) await dropSchema(admin, s);
  await admin?.end();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('migrate on an empty database schema', () => {
  const schema = schemaName();
  let first: Awaited<ReturnType<typeof migrate>>;

  beforeAll(async () => {
    first = await migrate(TEST_DATABASE_URL, schema);
  });

  it('applies every sql/ file in order and records each version with its checksum', async () => {
    const files = readdirSync(defaultMigrationsDir())
      .filter((f) => f.endsWith('.sql'))
      .sort();
    expect(first.applied).toEqual(files.map((f) => f.replace(/\.sql$/, '')));
    const { rows } = await admin.query(
      `SELECT version, name, checksum FROM "${schema}".schema_migrations ORDER BY version`,
    );
    expect(rows.map((r) => r.name)).toEqual(first.applied);
    for (const r of rows) expect(r.checksum).toMatch(/^[0-9a-f]{64}$/);
  });

  it('does nothing on a second run', async () => {
    const before = await admin.query(
      `SELECT version, applied_at FROM "${schema}".schema_migrations ORDER BY version`,
    );
    const second = await migrate(TEST_DATABASE_URL, schema);
    expect(second).toMatchObject({ applied: [], alreadyApplied: first.applied.length });
    const after = await admin.query(
      `SELECT version, applied_at FROM "${schema}".schema_migrations ORDER BY version`,
    );
    expect(after.rows).toEqual(before.rows);
  });
});

describe('two concurrent migrate runs', () => {
  it('both succeed and the schema is migrated once', async () => {
    const schema = schemaName();
    const [a, b] = await Promise.all([
      migrate(TEST_DATABASE_URL, schema),
      migrate(TEST_DATABASE_URL, schema),
    ]);
    const total = readdirSync(defaultMigrationsDir()).filter((f) => f.endsWith('.sql')).length;
    // One run applied everything; the other waited for the lock and found nothing to do.
    expect([a.applied.length, b.applied.length].sort()).toEqual([0, total]);
    const { rows } = await admin.query(`SELECT count(*)::int AS n FROM "${schema}".schema_migrations`);
    expect(rows[0].n).toBe(total);
  });
});

describe('when an applied migration file changed', () => {
  it('refuses a change to its SQL with a clear error naming the file, and applies nothing', async () => {
    const schema = schemaName();
    const dir = copyOfSql();
    await migrate(TEST_DATABASE_URL, schema, undefined, { dir });
    appendFileSync(
      join(dir, '003_lookups.sql'),
      '\nCREATE INDEX departments_description_idx ON departments (description);\n',
    );
    writeFileSync(
      join(dir, '999_later.sql'),
      `-- 999_later: a pending migration\nCREATE TABLE later_table (id int);\n`,
    );
    const err = await migrate(TEST_DATABASE_URL, schema, undefined, { dir }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MigrationError);
    expect((err as MigrationError).code).toBe('migration_changed');
    expect((err as Error).message).toContain('003_lookups.sql was changed after it was applied');
    expect(await relations(schema)).not.toContain('later_table');
  });

  it('accepts a change to its comments only', async () => {
    const schema = schemaName();
    const dir = copyOfSql();
    await migrate(TEST_DATABASE_URL, schema, undefined, { dir });
    const file = join(dir, '003_lookups.sql');
    writeFileSync(
      file,
      `-- reworded after the fact\n\n${readFileSync(file, 'utf8').replace(/^--.*$/gm, '-- said better')}`,
    );
    expect(await migrate(TEST_DATABASE_URL, schema, undefined, { dir })).toMatchObject({
      applied: [],
      alreadyApplied: readMigrations().length,
    });
  });
});

describe('a schema migrated when checksums covered the raw file text', () => {
  /** Records `checksum` for `version` as an earlier punchline would have. */
  async function recordChecksum(schema: string, version: string, checksum: string): Promise<void> {
    await admin.query(`UPDATE "${schema}".schema_migrations SET checksum = $2 WHERE version = $1`, [
      version,
      checksum,
    ]);
  }

  it('is accepted for the shipped files, and then carries the current checksums', async () => {
    const schema = schemaName();
    await migrate(TEST_DATABASE_URL, schema);
    for (const [version, earlier] of Object.entries(EARLIER_CHECKSUMS))
      await recordChecksum(schema, version, earlier[0]!.raw);
    expect(await migrate(TEST_DATABASE_URL, schema)).toMatchObject({
      applied: [],
      alreadyApplied: readMigrations().length,
    });
    const { rows } = await admin.query<{ version: string; checksum: string }>(
      `SELECT version, checksum FROM "${schema}".schema_migrations ORDER BY version`,
    );
    expect(rows).toEqual(readMigrations().map((f) => ({ version: f.version, checksum: f.checksum })));
  });

  it('is accepted when the file is byte for byte what was applied', async () => {
    const schema = schemaName();
    const dir = copyOfSql();
    writeFileSync(join(dir, '999_later.sql'), '-- 999_later\nCREATE TABLE later_table (id int);\n');
    await migrate(TEST_DATABASE_URL, schema, undefined, { dir });
    await recordChecksum(schema, '999', rawChecksum(readFileSync(join(dir, '999_later.sql'), 'utf8')));
    expect((await migrate(TEST_DATABASE_URL, schema, undefined, { dir })).applied).toEqual([]);
  });

  it('is still refused when the SQL of the file changed since', async () => {
    const schema = schemaName();
    const dir = copyOfSql();
    await migrate(TEST_DATABASE_URL, schema, undefined, { dir });
    await recordChecksum(schema, '003', EARLIER_CHECKSUMS['003']![0]!.raw);
    appendFileSync(
      join(dir, '003_lookups.sql'),
      '\nCREATE INDEX departments_description_idx ON departments (description);\n',
    );
    const err = await migrate(TEST_DATABASE_URL, schema, undefined, { dir }).catch((e: unknown) => e);
    expect((err as MigrationError).code).toBe('migration_changed');
    const { rows } = await admin.query(
      `SELECT checksum FROM "${schema}".schema_migrations WHERE version = '003'`,
    );
    expect(rows).toEqual([{ checksum: EARLIER_CHECKSUMS['003']![0]!.raw }]);
  });
});

describe('when a migration fails', () => {
  it('rolls that file back, keeps the earlier ones, and names the file and line', async () => {
    const schema = schemaName();
    const dir = mkdtempSync(join(tmpdir(), 'punchline-sql-'));
    dirs.push(dir);
    writeFileSync(join(dir, '001_ok.sql'), '-- 001_ok\nCREATE TABLE ok_table (id int);\n');
    writeFileSync(
      join(dir, '002_bad.sql'),
      '-- 002_bad\nCREATE TABLE half_done (id int);\nSELECT * FROM no_such_table;\n',
    );
    const err = await migrate(TEST_DATABASE_URL, schema, undefined, { dir }).catch((e: unknown) => e);
    expect((err as MigrationError).code).toBe('migration_failed');
    expect((err as Error).message).toMatch(
      /002_bad\.sql failed at line 3: relation "no_such_table" does not exist/,
    );
    const rels = await relations(schema);
    expect(rels).toContain('ok_table');
    expect(rels).not.toContain('half_done');
    const { rows } = await admin.query(`SELECT name FROM "${schema}".schema_migrations`);
    expect(rows.map((r) => r.name)).toEqual(['001_ok']);
  });
});

describe('punchline migrate (CLI)', () => {
  it('migrates WAREHOUSE_SCHEMA, then reports it up to date', async () => {
    const schema = schemaName();
    const env = {
      ...process.env,
      DATABASE_URL: TEST_DATABASE_URL,
      WAREHOUSE_SCHEMA: schema,
      LOG_LEVEL: 'silent',
    };
    const bin = join(ROOT, 'bin', 'punchline.js');
    const first = await run(process.execPath, [bin, 'migrate'], { env, cwd: ROOT });
    expect(first.stdout).toMatch(
      new RegExp(`^schema ${schema}: applied \\d+ migrations \\(001_reader_role, `),
    );
    const second = await run(process.execPath, [bin, 'migrate'], { env, cwd: ROOT });
    expect(second.stdout).toMatch(
      new RegExp(`^schema ${schema} is up to date \\(\\d+ migrations applied\\)`),
    );
  });
});

describe('when Postgres is unreachable', () => {
  it('fails with an error naming DATABASE_URL, without the password', async () => {
    const err = await migrate('postgres://someone:s3cret@127.0.0.1:1/punchline', 'x').catch(
      (e: unknown) => e,
    );
    expect((err as MigrationError).code).toBe('warehouse_unreachable');
    expect((err as Error).message).toMatch(
      /^cannot connect to the warehouse at postgres:\/\/someone:\*\*\*@127\.0\.0\.1:1\/punchline: .*check DATABASE_URL/,
    );
    expect((err as Error).message).not.toContain('s3cret');
  });
});
