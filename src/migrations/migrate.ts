/**
 * src/migrations/ — the migrations of sql/: reading, checksums, applying, status.
 *
 * `punchline migrate`: applies the pending migrations in order, each in its transaction,
 * under an advisory lock so concurrent workers cannot race, recording each version with
 * its checksum in `schema_migrations`.
 */
import pg from 'pg';
import type { Logger } from '../logger.js';
import { MigrationError } from '../warehouse/errors.js';
import { quoteIdent } from '../warehouse/db.js';
import {
  checksumsToUpdate,
  lineOfPosition,
  planMigrations,
  readMigrations,
  renderMigration,
  type AppliedMigration,
  type MigrationFile,
} from './files.js';
import { redactUrl } from '../util/database-url.js';
import { refreshPrivacyObjects, type PrivacyRefresh } from '../privacy/privacy-objects.js';
import { readMigrationStatus, type MigrationStatus } from './status.js';

/** Options of {@link migrate}. */
export interface MigrateOptions {
  /** Directory of the migration files (default: the `sql/` shipped with punchline). */
  dir?: string;
}

/** Outcome of {@link migrate}. */
export interface MigrateResult {
  /** Migrations applied by this run (file names without `.sql`), in order. */
  applied: string[];
  alreadyApplied: number;
  /** The analyst views and erasure functions regenerated afterwards (null without 011_privacy). */
  privacy: PrivacyRefresh | null;
}

/** First key of the advisory lock: "punchline migrate"; the second is the schema's hash. */
const LOCK_CLASS = 0x70756e63; // "punc"

const BOOTSTRAP = `
CREATE TABLE schema_migrations (
  version     text PRIMARY KEY,
  name        text NOT NULL,
  checksum    text NOT NULL,
  applied_at  timestamptz NOT NULL DEFAULT now(),
  duration_ms integer NOT NULL
);
COMMENT ON TABLE schema_migrations IS 'Migrations (sql/NNN_name.sql files) applied to this schema by punchline migrate. Bookkeeping, not API data.';
COMMENT ON COLUMN schema_migrations.version IS 'Numeric prefix of the migration file, e.g. 003. Key.';
COMMENT ON COLUMN schema_migrations.name IS 'File name without .sql.';
COMMENT ON COLUMN schema_migrations.checksum IS 'SHA-256 (hex) of the file''s SQL (comment lines and blank lines left out) when applied; migrate refuses to run if the SQL changed since.';
COMMENT ON COLUMN schema_migrations.applied_at IS 'When the migration was applied.';
COMMENT ON COLUMN schema_migrations.duration_ms IS 'How long applying it took, in milliseconds.';
`;

/** Runs `fn` on a connection of its own to `databaseUrl`, closed afterwards. */
async function withClient<T>(databaseUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: 'punchline migrate' });
  // A server restart mid-migration errors the running query; without a listener the
  // client's 'error' event would also crash the process.
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (err) {
    await client.end().catch(() => undefined);
    throw new MigrationError(
      'warehouse_unreachable',
      `cannot connect to the warehouse at ${redactUrl(databaseUrl)}: ${(err as Error).message} (check DATABASE_URL and that Postgres is running)`,
      { cause: err },
    );
  }
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function inTransaction<T>(client: pg.Client, fn: () => Promise<T>): Promise<T> {
  await client.query('BEGIN');
  try {
    const result = await fn();
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

/** Waits up to 10 minutes for another migration of the same schema to finish. */
async function acquireLock(client: pg.Client, schema: string, timeoutMs = 600_000): Promise<void> {
  await client.query(`SET lock_timeout = ${timeoutMs}`);
  try {
    await client.query('SELECT pg_advisory_lock($1, hashtext($2))', [LOCK_CLASS, schema]);
  } catch (err) {
    if ((err as { code?: string }).code === '55P03') {
      throw new MigrationError(
        'migration_lock_timeout',
        `another punchline migrate of schema ${schema} held the migration lock for more than ${Math.round(timeoutMs / 1000)} s; wait for it or look for a stuck session in pg_stat_activity`,
        { cause: err },
      );
    }
    throw err;
  } finally {
    await client.query('RESET lock_timeout');
  }
}

async function bootstrap(client: pg.Client, schema: string): Promise<AppliedMigration[]> {
  const q = quoteIdent(schema);
  const { rows } = await client.query<{ has_schema: boolean; has_table: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1) AS has_schema,
            to_regclass($2) IS NOT NULL AS has_table`,
    [schema, `${q}.schema_migrations`],
  );
  if (!rows[0]!.has_table) {
    await inTransaction(client, async () => {
      if (!rows[0]!.has_schema) await client.query(`CREATE SCHEMA IF NOT EXISTS ${q}`);
      await client.query(`SET LOCAL search_path TO ${q}`);
      await client.query(BOOTSTRAP);
    });
  }
  const applied = await client.query<AppliedMigration>(
    `SELECT version, name, checksum FROM ${q}.schema_migrations ORDER BY version`,
  );
  return applied.rows;
}

async function apply(client: pg.Client, schema: string, file: MigrationFile): Promise<number> {
  const q = quoteIdent(schema);
  const sql = renderMigration(file.sql, schema);
  const started = performance.now();
  await inTransaction(client, async () => {
    await client.query(`SET LOCAL search_path TO ${q}`);
    try {
      await client.query(sql);
    } catch (err) {
      const e = err as { message: string; position?: string };
      const where = e.position ? ` at line ${lineOfPosition(sql, Number(e.position))}` : '';
      throw new MigrationError(
        'migration_failed',
        `migration ${file.name}.sql failed${where}: ${e.message}`,
        {
          cause: err,
          file: `${file.name}.sql`,
        },
      );
    }
    await client.query(
      `INSERT INTO ${q}.schema_migrations (version, name, checksum, duration_ms) VALUES ($1, $2, $3, $4)`,
      [file.version, file.name, file.checksum, Math.round(performance.now() - started)],
    );
  });
  return Math.round(performance.now() - started);
}

/** Records the current checksum of migrations applied under an accepted older one (only comments changed since). */
async function recordCurrentChecksums(
  client: pg.Client,
  schema: string,
  rows: AppliedMigration[],
  log?: Logger,
): Promise<void> {
  if (rows.length === 0) return;
  await inTransaction(client, async () => {
    for (const r of rows) {
      await client.query(
        `UPDATE ${quoteIdent(schema)}.schema_migrations SET checksum = $2 WHERE version = $1`,
        [r.version, r.checksum],
      );
    }
  });
  log?.info(
    { schema, migrations: rows.map((r) => r.name) },
    'recorded the current checksum of migrations whose comments changed',
  );
}

/**
 * Brings `schema` up to date with the migration files. Idempotent (a concurrent run waits
 * for the lock, then finds nothing to do); refuses to run when an applied file changed.
 */
export async function migrate(
  databaseUrl: string,
  schema: string,
  log?: Logger,
  options: MigrateOptions = {},
): Promise<MigrateResult> {
  const files = readMigrations(options.dir);
  return withClient(databaseUrl, async (client) => {
    await acquireLock(client, schema);
    try {
      const applied = await bootstrap(client, schema);
      const pending = planMigrations(files, applied, schema);
      await recordCurrentChecksums(client, schema, checksumsToUpdate(files, applied), log);
      const done: string[] = [];
      for (const file of pending) {
        const ms = await apply(client, schema, file);
        log?.info({ schema, migration: file.name, ms }, 'applied migration');
        done.push(file.name);
      }
      // Every run, not only when a migration was applied: a new classification in
      // src/privacy/personal-data.ts reaches the analyst views with the next migrate.
      const privacy = await inTransaction(client, () => refreshPrivacyObjects(client, schema));
      if (privacy)
        log?.info(
          { schema: privacy.analystSchema, views: privacy.views, dropped: privacy.dropped },
          'analyst views refreshed',
        );
      return { applied: done, alreadyApplied: applied.length, privacy };
    } finally {
      await client
        .query('SELECT pg_advisory_unlock($1, hashtext($2))', [LOCK_CLASS, schema])
        .catch(() => undefined);
    }
  });
}

/** Applied and pending migrations of `schema` (`punchline migrate --status`); changes nothing. */
export async function migrationStatus(
  databaseUrl: string,
  schema: string,
  options: Pick<MigrateOptions, 'dir'> = {},
): Promise<MigrationStatus> {
  const files = readMigrations(options.dir);
  return withClient(databaseUrl, (client) => readMigrationStatus(client, schema, files));
}
