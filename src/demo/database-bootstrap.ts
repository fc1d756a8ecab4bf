import pg from 'pg';
import {
  PG_DATABASE_MISSING,
  ServiceUnavailableError,
  assertPostgresReachable,
  redactUrl,
} from '../probes/services.js';
import { quoteIdent } from '../warehouse/db.js';

/** Postgres SQLSTATE for "database already exists" (another process created it first). */
const PG_DUPLICATE_DATABASE = '42P04';

/**
 * First-run help: creates the database of `databaseUrl` through the server's `postgres` database when the
 * server runs but the database is missing (true when it did); else ServiceUnavailableError.
 */
export async function ensureDatabase(databaseUrl: string, timeoutMs = 3000): Promise<boolean> {
  try {
    await assertPostgresReachable(databaseUrl, timeoutMs);
    return false;
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause;
    if (!(err instanceof ServiceUnavailableError) || cause?.code !== PG_DATABASE_MISSING) throw err;
  }
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.slice(1));
  url.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: url.toString(), connectionTimeoutMillis: timeoutMs });
  admin.on('error', () => undefined);
  try {
    await admin.connect();
    await admin.query(`create database ${quoteIdent(name)}`);
    return true;
  } catch (err) {
    if ((err as { code?: string }).code === PG_DUPLICATE_DATABASE) return false;
    throw new ServiceUnavailableError(
      'postgres',
      `Postgres at ${redactUrl(databaseUrl)} has no database "${name}" and it could not be created ` +
        `(${(err as Error).message}); create it with \`createdb ${name}\` or point DATABASE_URL at an existing one`,
      { cause: err },
    );
  } finally {
    await admin.end().catch(() => undefined);
  }
}
