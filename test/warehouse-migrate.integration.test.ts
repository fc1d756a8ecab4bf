import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MigrationError } from '../src/warehouse/errors.js';
import { migrate } from '../src/warehouse/migrate.js';
import { defaultMigrationsDir } from '../src/warehouse/migrations.js';
import { connectPostgres, dropSchema, TEST_DATABASE_URL, uniqueName } from './support/isolation.js';

const run = promisify(execFile);
const CONTRACT_CHECK = '/work/shared/checks/warehouse-contract.sh';
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
    const files = readdirSync(defaultMigrationsDir()).filter((f) => f.endsWith('.sql')).sort();
    expect(first.applied).toEqual(files.map((f) => f.replace(/\.sql$/, '')));
    const { rows } = await admin.query(`SELECT version, name, checksum FROM "${schema}".schema_migrations ORDER BY version`);
    expect(rows.map((r) => r.name)).toEqual(first.applied);
    for (const r of rows) expect(r.checksum).toMatch(/^[0-9a-f]{64}$/);
  });

  it('creates every table and view of DESIGN.md §5', async () => {
    const rels = await relations(schema);
    for (const t of ['companies', 'collaborators', 'collaborator_history', 'punches', 'work_days', 'hour_totals', 'tardiness',
      'adjustment_requests', 'inconsistencies', 'hour_bank_balances', 'absences', 'absence_collaborators',
      'absence_attachments', 'audit_photos', 'departments', 'occupations', 'cost_centers', 'units', 'journeys',
      'point_rules', 'collaborator_settings', 'digital_fences', 'dismissal_types', 'absence_types', 'sync_runs',
      'sync_windows', 'daily_attendance', 'monthly_hours', 'sync_freshness']) {
      expect(rels).toContain(t);
    }
  });

  it('gives every table, view and column a non-empty COMMENT (pg_description)', async () => {
    const { rows } = await admin.query<{ what: string }>(
      `SELECT c.relname AS what FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         LEFT JOIN pg_description d ON d.objoid = c.oid AND d.classoid = 'pg_class'::regclass AND d.objsubid = 0
        WHERE n.nspname = $1 AND c.relkind IN ('r', 'v') AND coalesce(d.description, '') = ''
       UNION ALL
       SELECT c.relname || '.' || a.attname FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
         JOIN pg_namespace n ON n.oid = c.relnamespace
         LEFT JOIN pg_description d ON d.objoid = c.oid AND d.classoid = 'pg_class'::regclass AND d.objsubid = a.attnum
        WHERE n.nspname = $1 AND c.relkind IN ('r', 'v') AND a.attnum > 0 AND NOT a.attisdropped
          AND coalesce(d.description, '') = ''`,
      [schema],
    );
    expect(rows.map((r) => r.what)).toEqual([]);
    const { rows: counted } = await admin.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_description d JOIN pg_class c ON c.oid = d.objoid
        JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND d.classoid = 'pg_class'::regclass`,
      [schema],
    );
    expect(counted[0]!.n).toBeGreaterThan(300);
  });

  it('lets workforce_reader read every table and view (but the CPF of the erasure register), and write none', async () => {
    const { rows } = await admin.query<{ relname: string; can_read: boolean; can_write: boolean }>(
      `SELECT c.relname, has_table_privilege('workforce_reader', c.oid, 'SELECT') AS can_read,
              has_table_privilege('workforce_reader', c.oid, 'INSERT,UPDATE,DELETE') AS can_write
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = $1 AND c.relkind IN ('r', 'v')`,
      [schema],
    );
    expect(rows.length).toBeGreaterThan(25);
    // docs/privacy.md: erasures is readable column by column, all but cpf
    expect(rows.filter((r) => !r.can_read).map((r) => r.relname)).toEqual(['erasures']);
    const erasures = await admin.query<{ attname: string; can_read: boolean }>(
      `SELECT attname, has_column_privilege('workforce_reader', attrelid, attname, 'SELECT') AS can_read
         FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped`,
      [`"${schema}".erasures`],
    );
    expect(erasures.rows.filter((r) => !r.can_read).map((r) => r.attname)).toEqual(['cpf']);
    expect(rows.filter((r) => r.can_write).map((r) => r.relname)).toEqual([]);
    const role = await admin.query(`SELECT rolcanlogin, has_schema_privilege('workforce_reader', $1, 'USAGE') AS usage
                                      FROM pg_roles WHERE rolname = 'workforce_reader'`, [schema]);
    expect(role.rows).toEqual([{ rolcanlogin: false, usage: true }]);
  });

  it('passes the shared warehouse contract check', async () => {
    const { stdout } = await run('bash', [CONTRACT_CHECK], {
      env: { ...process.env, DATABASE_URL: TEST_DATABASE_URL, WAREHOUSE_SCHEMA: schema },
    });
    const last = stdout.trim().split('\n').at(-1)!;
    expect(last).toMatch(/^contract tables 25\/25, views 3\/3, commented columns (\d+)\/\1, commented relations (\d+)\/\2$/);
  });

  it('does nothing on a second run', async () => {
    const before = await admin.query(`SELECT version, applied_at FROM "${schema}".schema_migrations ORDER BY version`);
    const second = await migrate(TEST_DATABASE_URL, schema);
    expect(second).toMatchObject({ applied: [], alreadyApplied: first.applied.length });
    const after = await admin.query(`SELECT version, applied_at FROM "${schema}".schema_migrations ORDER BY version`);
    expect(after.rows).toEqual(before.rows);
  });
});

describe('two concurrent migrate runs', () => {
  it('both succeed and the schema is migrated once', async () => {
    const schema = schemaName();
    const [a, b] = await Promise.all([migrate(TEST_DATABASE_URL, schema), migrate(TEST_DATABASE_URL, schema)]);
    const total = readdirSync(defaultMigrationsDir()).filter((f) => f.endsWith('.sql')).length;
    // One run applied everything; the other waited for the lock and found nothing to do.
    expect([a.applied.length, b.applied.length].sort()).toEqual([0, total]);
    const { rows } = await admin.query(`SELECT count(*)::int AS n FROM "${schema}".schema_migrations`);
    expect(rows[0].n).toBe(total);
  });
});

describe('when an applied migration file changed', () => {
  it('refuses with a clear error naming the file, and applies nothing', async () => {
    const schema = schemaName();
    const dir = copyOfSql();
    await migrate(TEST_DATABASE_URL, schema, undefined, { dir });
    appendFileSync(join(dir, '003_lookups.sql'), '\n-- edited after the fact\n');
    writeFileSync(join(dir, '999_later.sql'), `-- 999_later: a pending migration\nCREATE TABLE later_table (id int);\n`);
    const err = await migrate(TEST_DATABASE_URL, schema, undefined, { dir }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MigrationError);
    expect((err as MigrationError).code).toBe('migration_changed');
    expect((err as Error).message).toContain('003_lookups.sql was changed after it was applied');
    expect(await relations(schema)).not.toContain('later_table');
  });
});

describe('when a migration fails', () => {
  it('rolls that file back, keeps the earlier ones, and names the file and line', async () => {
    const schema = schemaName();
    const dir = mkdtempSync(join(tmpdir(), 'punchline-sql-'));
    dirs.push(dir);
    writeFileSync(join(dir, '001_ok.sql'), '-- 001_ok\nCREATE TABLE ok_table (id int);\n');
    writeFileSync(join(dir, '002_bad.sql'), '-- 002_bad\nCREATE TABLE half_done (id int);\nSELECT * FROM no_such_table;\n');
    const err = await migrate(TEST_DATABASE_URL, schema, undefined, { dir }).catch((e: unknown) => e);
    expect((err as MigrationError).code).toBe('migration_failed');
    expect((err as Error).message).toMatch(/002_bad\.sql failed at line 3: relation "no_such_table" does not exist/);
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
    const env = { ...process.env, DATABASE_URL: TEST_DATABASE_URL, WAREHOUSE_SCHEMA: schema, LOG_LEVEL: 'silent' };
    const bin = join(ROOT, 'bin', 'punchline.js');
    const first = await run(process.execPath, [bin, 'migrate'], { env, cwd: ROOT });
    expect(first.stdout).toMatch(new RegExp(`^schema ${schema}: applied \\d+ migrations \\(001_reader_role, `));
    const second = await run(process.execPath, [bin, 'migrate'], { env, cwd: ROOT });
    expect(second.stdout).toMatch(new RegExp(`^schema ${schema} is up to date \\(\\d+ migrations applied\\)`));
  });
});

describe('when Postgres is unreachable', () => {
  it('fails with an error naming DATABASE_URL, without the password', async () => {
    const err = await migrate('postgres://someone:s3cret@127.0.0.1:1/punchline', 'x').catch((e: unknown) => e);
    expect((err as MigrationError).code).toBe('warehouse_unreachable');
    expect((err as Error).message).toMatch(/^cannot connect to the warehouse at postgres:\/\/someone:\*\*\*@127\.0\.0\.1:1\/punchline: .*check DATABASE_URL/);
    expect((err as Error).message).not.toContain('s3cret');
  });
});
