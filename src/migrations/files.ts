/**
 * The migration files of `sql/`: reading, checksums, rendering for a schema and the
 * plan of what to apply. Pure apart from reading the directory; migrate.ts executes.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MigrationError } from '../warehouse/errors.js';
import { quoteIdent } from '../warehouse/db.js';
import { packageRoot } from '../util/package-root.js';
import { isSameMigration, sqlChecksum } from './checksums.js';

/** One `sql/NNN_name.sql` file. */
export interface MigrationFile {
  /** The numeric prefix, e.g. `003`; applied in numeric order. */
  version: string;
  /** File name without `.sql`, e.g. `003_lookups`. */
  name: string;
  path: string;
  /** The file's text, with the `{{schema}}` placeholder. */
  sql: string;
  /** {@link sqlChecksum} of the text: an applied file whose SQL changed is refused. */
  checksum: string;
}

/** A row of `schema_migrations`. */
export type AppliedMigration = Pick<MigrationFile, 'version' | 'name' | 'checksum'>;

const FILE_RE = /^(\d{3,})_([a-z0-9_]+)\.sql$/;

/** The checksum of a migration's text: SHA-256 (hex) of its SQL, comment lines and blank lines left out. */
export { sqlChecksum as checksumOf };

/** The `sql/` beside punchline's package.json, from `src/` (tsx), `dist/src/` or an installed package. */
export function defaultMigrationsDir(): string {
  try {
    const dir = join(packageRoot(), 'sql');
    if (existsSync(dir)) return dir;
  } catch {
    // No package.json above: the same error as no sql/ beside it.
  }
  throw new MigrationError(
    'migration_dir',
    'cannot find the sql/ migrations directory of punchline above its modules',
  );
}

/** Reads every `NNN_name.sql` of `dir`, in version order; other files are ignored. */
export function readMigrations(dir: string = defaultMigrationsDir()): MigrationFile[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch (err) {
    throw new MigrationError(
      'migration_dir',
      `cannot read migrations directory ${dir}: ${(err as Error).message}`,
    );
  }
  const files: MigrationFile[] = [];
  for (const entry of entries) {
    if (!entry.endsWith('.sql')) continue;
    const m = FILE_RE.exec(entry);
    if (!m) {
      throw new MigrationError(
        'migration_invalid_name',
        `migration file ${entry} must be named NNN_lower_case_name.sql`,
        { file: entry },
      );
    }
    const sql = readFileSync(join(dir, entry), 'utf8');
    files.push({
      version: m[1]!,
      name: entry.slice(0, -4),
      path: join(dir, entry),
      sql,
      checksum: sqlChecksum(sql),
    });
  }
  files.sort((a, b) => Number(a.version) - Number(b.version));
  for (let i = 1; i < files.length; i++) {
    if (Number(files[i]!.version) === Number(files[i - 1]!.version)) {
      throw new MigrationError(
        'migration_invalid_name',
        `migrations ${files[i - 1]!.name}.sql and ${files[i]!.name}.sql share version ${files[i]!.version}`,
        { file: `${files[i]!.name}.sql` },
      );
    }
  }
  return files;
}

/** The SQL to run for `schema`: the `{{schema}}` placeholder replaced by the quoted schema name. */
export function renderMigration(sql: string, schema: string): string {
  return sql.split('{{schema}}').join(quoteIdent(schema));
}

/** What to apply, in order; throws when an applied migration's SQL changed or its file is gone. */
export function planMigrations(
  files: readonly MigrationFile[],
  applied: readonly AppliedMigration[],
  schema: string,
): MigrationFile[] {
  const byVersion = new Map(files.map((f) => [Number(f.version), f]));
  for (const a of applied) {
    const file = byVersion.get(Number(a.version));
    if (!file) {
      throw new MigrationError(
        'migration_missing',
        `migration ${a.name}.sql is applied to schema ${schema} but is not in sql/ (is this an older punchline than the one that migrated the warehouse?)`,
        { file: `${a.name}.sql` },
      );
    }
    if (!isSameMigration(file.version, a.checksum, file.sql)) {
      throw new MigrationError(
        'migration_changed',
        `migration ${file.name}.sql was changed after it was applied to schema ${schema} (checksum ${file.checksum.slice(0, 12)}, applied ${a.checksum.slice(0, 12)}): restore the file and put the change in a new migration`,
        { file: `${file.name}.sql` },
      );
    }
  }
  const done = new Set(applied.map((a) => Number(a.version)));
  const pending = files.filter((f) => !done.has(Number(f.version)));
  const last = Math.max(-1, ...done);
  const early = pending.find((f) => Number(f.version) < last);
  if (early) {
    throw new MigrationError(
      'migration_out_of_order',
      `migration ${early.name}.sql is older than the last migration applied to schema ${schema} (version ${last}): renumber it after ${last}`,
      { file: `${early.name}.sql` },
    );
  }
  return pending;
}

/** Applied migrations recorded under an accepted older checksum, with the checksum to record instead. */
export function checksumsToUpdate(
  files: readonly MigrationFile[],
  applied: readonly AppliedMigration[],
): AppliedMigration[] {
  const byVersion = new Map(files.map((f) => [Number(f.version), f]));
  return applied.flatMap((a) => {
    const file = byVersion.get(Number(a.version));
    const stale = file !== undefined && file.checksum !== a.checksum;
    return stale ? [{ version: a.version, name: a.name, checksum: file.checksum }] : [];
  });
}

/** 1-based line of a character position (1-based, as Postgres reports it) in `text`. */
export function lineOfPosition(text: string, position: number): number {
  let line = 1;
  for (let i = 0; i < Math.min(position - 1, text.length); i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}
