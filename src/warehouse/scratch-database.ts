/**
 * A database of its own per run of the tests, the benchmark and the docs generator, named
 * after the run's process on a server needing nothing prepared, dropped when the run ends.
 * A killed run's database is dropped by the next run on its host once its process is
 * gone, so a shared server does not fill up and concurrent runs never meet.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import pg from 'pg';
import { quoteIdent, quoteLiteral } from './db.js';
import { redactUrl } from '../util/database-url.js';

/** What a scratch database is for; part of its name. */
const SCRATCH_PURPOSES = ['test', 'bench', 'docs'] as const;
export type ScratchPurpose = (typeof SCRATCH_PURPOSES)[number];

/** The local server the tools use when nothing else is configured (Debian's default cluster, trust auth). */
export const LOCAL_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

const NAME_RE = new RegExp(`^punchline_(${SCRATCH_PURPOSES.join('|')})_(\\d+)_[0-9a-f]{8}$`);

/** Postgres SQLSTATE for "database is being accessed by other users". */
const PG_OBJECT_IN_USE = '55006';

/** A database created for one run (`punchline_test_4711_0a1b2c3d`), with its connection string. */
export interface ScratchDatabase {
  readonly name: string;
  readonly url: string;
  /** Drops the database, closing any session still connected to it (idempotent). */
  drop(): Promise<void>;
}

/** A database name for a run of `purpose` by process `pid` (the suffix keeps two runs of one pid apart). */
export function scratchDatabaseName(
  purpose: ScratchPurpose,
  pid: number,
  suffix = randomBytes(4).toString('hex'),
): string {
  return `punchline_${purpose}_${pid}_${suffix}`;
}

/** The purpose and process of a scratch database name, or `null` for any other name. */
export function parseScratchDatabaseName(name: string): { purpose: ScratchPurpose; pid: number } | null {
  const m = NAME_RE.exec(name);
  return m ? { purpose: m[1] as ScratchPurpose, pid: Number(m[2]) } : null;
}

/** The COMMENT a scratch database carries: which host's process owns it. */
export function scratchComment(purpose: ScratchPurpose, host: string, pid: number): string {
  return `punchline ${purpose} run on host ${host}, pid ${pid}; dropped when the run ends`;
}

/** Whether a database may be dropped: a scratch database of this host whose process is gone (its comment). */
export function isAbandoned(
  name: string,
  comment: string | null,
  host: string,
  isRunning: (pid: number) => boolean,
): boolean {
  const parsed = parseScratchDatabaseName(name);
  if (!parsed || comment !== scratchComment(parsed.purpose, host, parsed.pid)) return false;
  return !isRunning(parsed.pid);
}

/** Whether a process of this host runs with `pid` (one we may not signal still runs). */
export function processIsRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as { code?: string }).code !== 'ESRCH';
  }
}

/** `url` pointing at database `name` of the same server. */
export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${encodeURIComponent(name)}`;
  return u.toString();
}

/** Runs `fn` on a connection to the `postgres` database of the server, closed afterwards. */
async function withAdmin<T>(serverUrl: string, fn: (admin: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({
    connectionString: withDatabase(serverUrl, 'postgres'),
    connectionTimeoutMillis: 5000,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (err) {
    await client.end().catch(() => undefined);
    throw new Error(
      `Postgres is not reachable at ${redactUrl(withDatabase(serverUrl, 'postgres'))} (${(err as Error).message})`,
      {
        cause: err,
      },
    );
  }
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Drops this host's scratch databases whose process is gone, but those in use; resolves their names. */
export async function dropAbandonedScratchDatabases(
  serverUrl: string,
  isRunning: (pid: number) => boolean = processIsRunning,
): Promise<string[]> {
  return withAdmin(serverUrl, async (admin) => {
    const { rows } = await admin.query<{ datname: string; comment: string | null }>(
      `SELECT datname, shobj_description(oid, 'pg_database') AS comment
         FROM pg_database WHERE datname LIKE 'punchline\\_%'`,
    );
    const dropped: string[] = [];
    for (const r of rows) {
      if (!isAbandoned(r.datname, r.comment, hostname(), isRunning)) continue;
      try {
        await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(r.datname)}`);
        dropped.push(r.datname);
      } catch (err) {
        if ((err as { code?: string }).code !== PG_OBJECT_IN_USE) throw err;
      }
    }
    return dropped;
  });
}

/** Creates an empty database for this run on the server of `serverUrl`, after dropping abandoned ones. */
export async function createScratchDatabase(
  serverUrl: string,
  purpose: ScratchPurpose,
): Promise<ScratchDatabase> {
  await dropAbandonedScratchDatabases(serverUrl);
  const name = scratchDatabaseName(purpose, process.pid);
  await withAdmin(serverUrl, async (admin) => {
    await admin.query(`CREATE DATABASE ${quoteIdent(name)}`);
    await admin.query(
      `COMMENT ON DATABASE ${quoteIdent(name)} IS ${quoteLiteral(scratchComment(purpose, hostname(), process.pid))}`,
    );
  });
  return {
    name,
    url: withDatabase(serverUrl, name),
    async drop() {
      const drop = `DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`;
      await withAdmin(serverUrl, (admin) => admin.query(drop));
    },
  };
}
