/**
 * Push claims through a transaction-pooling proxy: a real pgbouncer (pool_mode =
 * transaction, two server sessions shared by every client) between the claim runs and
 * Postgres, so no statement can count on the session of the one before. Two runs
 * claiming the same rows at once: exactly one gets each row, the other waits and finds
 * it created; a run's renewals keep its claim past the lease; a run that dies (its
 * database gone, no renewal, no close) loses its claims once the lease passes, and
 * another run takes them over with a read of the API first.
 *
 * pgbouncer comes from Debian package pgbouncer (.ci/run installs it); without it this
 * file fails with a line naming the package, it never skips.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { ClaimRun, databaseNow, type ClaimScope } from '../src/push/claims.js';
import { migrate } from '../src/migrations/migrate.js';
import { TEST_DATABASE_URL, connectPostgres, dropSchema, uniqueName } from './support/isolation.js';
import { findTool } from './support/debian-tools.js';

const schema = uniqueName('push_claims_bouncer');
let admin: pg.Pool;
let dir: string;
let bouncer: ChildProcess | undefined;
let bouncerLog = '';
let bouncerUrl: string;
const pools: pg.Pool[] = [];
let scope: ClaimScope;
let key = 0;
const nextKey = () => `52998224725|2026-11-${String(++key).padStart(2, '0')} 08:00:00`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** pgbouncer, which Debian installs in /usr/sbin; the one line naming its package when it is missing. */
function pgbouncerPath(): string {
  const path = findTool('pgbouncer', {
    PATH: [process.env.PATH ?? '', '/usr/sbin', '/usr/local/sbin'].join(delimiter),
  });
  if (!path)
    throw new Error(
      'pgbouncer is missing: this test needs Debian package pgbouncer (apt-get install pgbouncer)',
    );
  return path;
}

/** A port free on 127.0.0.1 now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** A pool of `max` clients through the bouncer (each client's statements go to whichever server session is free). */
function bouncerPool(max = 4): pg.Pool {
  const pool = new pg.Pool({ connectionString: bouncerUrl, max });
  pool.on('error', () => undefined); // a client of a pool a test ended on purpose
  pools.push(pool);
  return pool;
}

/** Waits until the bouncer answers a query. */
async function bouncerReady(): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const client = new pg.Client({ connectionString: bouncerUrl });
    try {
      await client.connect();
      await client.query('select 1');
      await client.end();
      return;
    } catch (err) {
      await client.end().catch(() => undefined);
      if (Date.now() > deadline || bouncer?.exitCode != null)
        throw new Error(`pgbouncer did not start: ${String(err)}\n${bouncerLog}`, { cause: err });
      await sleep(100);
    }
  }
}

async function receipt(rowKey: string): Promise<Record<string, unknown> | undefined> {
  const r = await admin.query(
    `select state, claim_run::text as claim_run, claim_expires_at is not null as leased from "${schema}".push_receipts where row_key = $1`,
    [rowKey],
  );
  return r.rows[0];
}

beforeAll(async () => {
  const exe = pgbouncerPath();
  admin = await connectPostgres();
  await migrate(TEST_DATABASE_URL, schema);
  scope = { schema, company: '11222333000181', kind: 'punches', connection: 'default', file: 'rows.csv' };

  const target = new URL(TEST_DATABASE_URL);
  const user = decodeURIComponent(target.username || 'root');
  const port = await freePort();
  dir = mkdtempSync(join(tmpdir(), 'punchline-pgbouncer-'));
  chmodSync(dir, 0o755); // pgbouncer refuses to run as root: run as root, it drops to nobody
  const users = join(dir, 'users.txt');
  writeFileSync(users, `"${user}" ""\n`, { mode: 0o644 });
  const ini = join(dir, 'pgbouncer.ini');
  writeFileSync(
    ini,
    [
      '[databases]',
      `* = host=${target.hostname || '127.0.0.1'} port=${target.port || '5432'}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${users}`,
      'pool_mode = transaction',
      // Two server sessions for every client: statements of one client land on either.
      'default_pool_size = 2',
      'max_client_conn = 100',
      'ignore_startup_parameters = extra_float_digits,options,application_name',
      `admin_users = ${user}`,
      '',
    ].join('\n'),
    { mode: 0o644 },
  );
  const asRoot = process.getuid?.() === 0;
  bouncer = spawn(exe, [...(asRoot ? ['-u', 'nobody'] : []), ini], { stdio: ['ignore', 'pipe', 'pipe'] });
  bouncer.stdout?.on('data', (d: Buffer) => (bouncerLog += d.toString()));
  bouncer.stderr?.on('data', (d: Buffer) => (bouncerLog += d.toString()));
  bouncerUrl = `postgres://${encodeURIComponent(user)}@127.0.0.1:${port}${target.pathname}`;
  await bouncerReady();
});

afterAll(async () => {
  for (const pool of pools) if (!pool.ended) await pool.end().catch(() => undefined);
  if (bouncer && bouncer.exitCode === null) {
    const exited = new Promise((r) => bouncer!.once('exit', r));
    bouncer.kill('SIGTERM');
    await exited;
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
  if (admin) {
    await dropSchema(admin, schema);
    await admin.end();
  }
});

describe('claims through pgbouncer in transaction mode', () => {
  it('go through a pooler in transaction mode with two server sessions', async () => {
    // pgbouncer's own console (database pgbouncer) says how it pools the test database.
    const console_ = new pg.Client({ connectionString: bouncerUrl.replace(/\/[^/]*$/, '/pgbouncer') });
    await console_.connect();
    try {
      const { rows } = await console_.query('SHOW POOLS');
      const database = new URL(TEST_DATABASE_URL).pathname.slice(1);
      const pool = rows.find((r: { database: string }) => r.database === database);
      expect(pool?.pool_mode).toBe('transaction');
    } finally {
      await console_.end();
    }
  });

  it('give each row to exactly one of two runs claiming at once; the other finds it created', async () => {
    const a = await ClaimRun.open(bouncerPool(), scope);
    const b = await ClaimRun.open(bouncerPool(), { ...scope, file: 'other.csv' });
    try {
      const checkedAt = await databaseNow(bouncerPool(1));
      const keys = Array.from({ length: 12 }, nextKey);
      const outcomes = await Promise.all(
        keys.map(async (k, i) => {
          const both = [a, b].map((run) =>
            run.claim(k, i + 2, { checkedAt, pollMs: 20 }).then((claim) => ({ run, claim })),
          );
          const first = await Promise.race(both);
          expect(first.claim).toEqual({ kind: 'mine', recheck: false });
          // The winner writes; only then does the other learn the outcome.
          await sleep(30);
          await first.run.created(k, i + 2, `id-${i}`);
          const second = await both[first.run === a ? 1 : 0]!;
          return [first.claim.kind, second.claim.kind];
        }),
      );
      for (const [winner, loser] of outcomes) {
        expect(winner).toBe('mine');
        expect(loser).toBe('created');
      }
      for (const k of keys)
        expect(await receipt(k)).toEqual({ state: 'created', claim_run: null, leased: false });
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("hold past their lease while their run renews them, and go to another run once a dead run's lease passes", async () => {
    const k = nextKey();
    const deadPool = bouncerPool(2);
    const dead = await ClaimRun.open(deadPool, scope, { leaseMs: 1_200 });
    const b = await ClaimRun.open(bouncerPool(), scope, { leaseMs: 1_200 });
    try {
      const checkedAt = await databaseNow(bouncerPool(1));
      expect(await dead.claim(k, 2, { checkedAt })).toEqual({ kind: 'mine', recheck: false });
      let settled = false;
      const started = Date.now();
      const waiting = b.claim(k, 2, { checkedAt, pollMs: 25 }).finally(() => (settled = true));
      // Twice the lease: the owner's renewals keep the claim.
      await sleep(2_400);
      expect(settled).toBe(false);
      expect(await receipt(k)).toEqual({ state: 'claimed', claim_run: dead.run, leased: true });
      // The owner dies: its database is gone, it neither renews nor closes.
      const diedAt = Date.now();
      await deadPool.end();
      const got = await waiting;
      expect(got).toEqual({ kind: 'mine', recheck: true });
      // Taken over only after the lease (1.2 s) that the last renewal (every 0.4 s) gave had passed.
      expect(Date.now() - diedAt).toBeGreaterThanOrEqual(600);
      expect(Date.now() - started).toBeGreaterThanOrEqual(2_400);
      expect(await receipt(k)).toEqual({ state: 'claimed', claim_run: b.run, leased: true });
      // The dead run can no longer settle the claim it lost.
      await b.created(k, 2, '55');
      expect(await receipt(k)).toEqual({ state: 'created', claim_run: null, leased: false });
    } finally {
      await dead.close();
      await b.close();
    }
  });
});
