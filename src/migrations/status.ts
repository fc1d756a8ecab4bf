/**
 * Which migrations a schema has against those this punchline ships (`migrate --status`), and
 * the check at a worker's or backfill's start that code and schema of different versions
 * never run together (writing columns that mean something else, or do not exist yet).
 */
import { sql } from 'kysely';
import { quoteIdent, warehouseDb, type SqlRunner } from '../warehouse/db.js';
import { MigrationError } from '../warehouse/errors.js';
import { readMigrations, type MigrationFile } from './files.js';

/** One applied migration (version, file name, when). */
export interface AppliedStatus {
  readonly version: string;
  readonly name: string;
  readonly appliedAt: string;
  /** False when this punchline has no file of that version (the schema is ahead). */
  readonly known: boolean;
  /** True when the file's text differs from the one applied. */
  readonly changed: boolean;
}

/** Applied migrations and files not applied yet of a schema, in version order. */
export interface MigrationStatus {
  readonly schema: string;
  readonly applied: readonly AppliedStatus[];
  readonly pending: readonly Pick<MigrationFile, 'version' | 'name'>[];
}

/** Reads the status of `schema` (no `schema_migrations` table: nothing applied). */
export async function readMigrationStatus(
  db: SqlRunner,
  schema: string,
  files: readonly MigrationFile[] = readMigrations(),
): Promise<MigrationStatus> {
  const wh = warehouseDb(db, schema);
  const table = `${quoteIdent(schema)}.schema_migrations`;
  const {
    rows: [exists],
  } = await sql<{ present: boolean }>`select to_regclass(${table}) is not null as present`.execute(wh);
  const rows = exists?.present
    ? await wh
        .selectFrom('schema_migrations')
        .select(['version', 'name', 'checksum', sql<string>`applied_at::text`.as('applied_at')])
        .orderBy('version')
        .execute()
    : [];
  const byVersion = new Map(files.map((f) => [Number(f.version), f]));
  const applied = rows.map((r): AppliedStatus => {
    const file = byVersion.get(Number(r.version));
    const changed = file !== undefined && file.checksum !== r.checksum;
    return { version: r.version, name: r.name, appliedAt: r.applied_at, known: file !== undefined, changed };
  });
  const done = new Set(applied.map((a) => Number(a.version)));
  const pending = files
    .filter((f) => !done.has(Number(f.version)))
    .map((f) => ({ version: f.version, name: f.name }));
  return { schema, applied, pending };
}

/** One line saying how schema and code differ, or null when they match (pure). */
export function versionSkew(
  status: MigrationStatus,
): { code: 'warehouse_ahead' | 'warehouse_behind' | 'migration_changed'; message: string } | null {
  const s = `the warehouse schema "${status.schema}"`;
  const unknown = status.applied.filter((a) => !a.known).map((a) => a.name);
  if (unknown.length > 0) {
    return {
      code: 'warehouse_ahead',
      message: `${s} is ahead of this punchline: migration${unknown.length === 1 ? '' : 's'} ${unknown.join(', ')} applied by a newer version (upgrade punchline before starting it)`,
    };
  }
  const changed = status.applied.filter((a) => a.changed).map((a) => a.name);
  if (changed.length > 0) {
    return {
      code: 'migration_changed',
      message: `${s} was migrated with other text for ${changed.join(', ')} than this punchline ships (run punchline migrate to see which file changed)`,
    };
  }
  if (status.pending.length > 0) {
    const names = status.pending.map((p) => p.name);
    return {
      code: 'warehouse_behind',
      message: `${s} is behind this punchline: ${names.length} migration${names.length === 1 ? '' : 's'} pending (${names.join(', ')}); run punchline migrate first`,
    };
  }
  return null;
}

/** Throws {@link MigrationError} with one line when `schema` and this punchline's migrations differ. */
export async function assertMigrationsCurrent(
  db: SqlRunner,
  schema: string,
  files?: readonly MigrationFile[],
): Promise<void> {
  const skew = versionSkew(await readMigrationStatus(db, schema, files));
  if (skew) throw new MigrationError(skew.code, skew.message);
}
