import { hostname } from 'node:os';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createScratchDatabase,
  dropAbandonedScratchDatabases,
  isAbandoned,
  parseScratchDatabaseName,
  processIsRunning,
  scratchComment,
  scratchDatabaseName,
  withDatabase,
} from '../src/warehouse/scratch-database.js';
import { quoteIdent } from '../src/warehouse/db.js';
import { TEST_DATABASE_URL } from './support/isolation.js';

const made: string[] = [];

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: withDatabase(TEST_DATABASE_URL, 'postgres') });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

async function databases(): Promise<string[]> {
  return admin(async (c) =>
    (await c.query<{ datname: string }>('SELECT datname FROM pg_database')).rows.map((r) => r.datname),
  );
}

/** A database named and commented as a run of `pid` on `host` left it. */
async function leftover(pid: number, host: string | null): Promise<string> {
  const name = scratchDatabaseName('test', pid);
  made.push(name);
  await admin(async (c) => {
    await c.query(`CREATE DATABASE ${quoteIdent(name)}`);
    if (host !== null)
      await c.query(
        `COMMENT ON DATABASE ${quoteIdent(name)} IS ${pg.escapeLiteral(scratchComment('test', host, pid))}`,
      );
  });
  return name;
}

afterAll(async () => {
  await admin(async (c) => {
    for (const name of made) await c.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`);
  });
});

describe('scratch database names', () => {
  it('carry the purpose and the pid, and nothing else parses as one', () => {
    const name = scratchDatabaseName('bench', 4711, '0a1b2c3d');
    expect(name).toBe('punchline_bench_4711_0a1b2c3d');
    expect(parseScratchDatabaseName(name)).toEqual({ purpose: 'bench', pid: 4711 });
    for (const other of [
      'punchline',
      'punchline_test',
      'punchline_test_12_xyz',
      'punchline_prod_1_0a1b2c3d',
      'ops_demo_0a1b2c3d',
    ]) {
      expect(parseScratchDatabaseName(other)).toBeNull();
    }
  });

  it('are abandoned only when made on this host by a process that is gone', () => {
    const name = scratchDatabaseName('test', 99);
    const dead = () => false;
    expect(isAbandoned(name, scratchComment('test', 'here', 99), 'here', dead)).toBe(true);
    expect(isAbandoned(name, scratchComment('test', 'here', 99), 'here', () => true)).toBe(false);
    expect(isAbandoned(name, scratchComment('test', 'elsewhere', 99), 'here', dead)).toBe(false);
    expect(isAbandoned(name, null, 'here', dead)).toBe(false);
    expect(isAbandoned('punchline', scratchComment('test', 'here', 99), 'here', dead)).toBe(false);
  });

  it('see this process as running', () => {
    expect(processIsRunning(process.pid)).toBe(true);
  });
});

describe('createScratchDatabase', () => {
  it('creates an empty database of this process that drop() removes', async () => {
    const db = await createScratchDatabase(TEST_DATABASE_URL, 'test');
    made.push(db.name);
    expect(parseScratchDatabaseName(db.name)).toEqual({ purpose: 'test', pid: process.pid });
    const client = new pg.Client({ connectionString: db.url });
    client.on('error', () => undefined);
    await client.connect();
    const { rows } = await client.query<{ db: string; comment: string }>(
      `SELECT current_database() AS db, shobj_description(oid, 'pg_database') AS comment FROM pg_database WHERE datname = current_database()`,
    );
    expect(rows).toEqual([{ db: db.name, comment: scratchComment('test', hostname(), process.pid) }]);
    // drop() does not wait for sessions to go: a test run's stray connection must not keep its database.
    await db.drop();
    await client.end().catch(() => undefined);
    expect(await databases()).not.toContain(db.name);
  });
});

describe('dropAbandonedScratchDatabases', () => {
  it("drops this host's leftovers of dead runs and keeps live, foreign and unmarked ones", async () => {
    const deadPid = 4_000_000 + Math.floor(Math.random() * 100_000);
    const livePid = deadPid + 1;
    const dead = await leftover(deadPid, hostname());
    const live = await leftover(livePid, hostname());
    const foreign = await leftover(deadPid, `not-${hostname()}`);
    const unmarked = await leftover(deadPid, null);
    // Only our invented pids are judged by the test; every real one by the process table.
    const isRunning = (pid: number) =>
      pid === deadPid ? false : pid === livePid ? true : processIsRunning(pid);
    const dropped = await dropAbandonedScratchDatabases(TEST_DATABASE_URL, isRunning);
    expect(dropped).toContain(dead);
    const left = await databases();
    expect(left).not.toContain(dead);
    expect(left).toEqual(expect.arrayContaining([live, foreign, unmarked]));
    expect(left).toContain(new URL(TEST_DATABASE_URL).pathname.slice(1));
  });
});
