/**
 * `punchline demo` as a newcomer runs it: nothing configured but where Postgres and
 * Redis are, a database that does not exist yet. It must create and migrate the
 * warehouse, fill it from its own emulator, serve the dashboard, print where to look,
 * stop cleanly on Ctrl-C, and say what to start when the services are not there.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import type { ChildProcess } from 'node:child_process';
import { DEMO_QUERIES } from '../src/demo/banner.js';
import {
  TEST_DATABASE_URL,
  TEST_REDIS_URL,
  connectRedis,
  dropQueuePrefix,
  uniqueName,
} from './support/isolation.js';
import { spawnPunchline } from './sync-harness.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import type { CommandContext } from '../src/commands/context.js';
import { demoCommand } from '../src/commands/demo.js';
import { ServiceUnavailableError } from '../src/probes/services.js';
import { freePort } from './ops-harness.js';

const database = uniqueName('ops_demo');
const prefix = uniqueName('ops_demo');
const databaseUrl = (() => {
  const u = new URL(TEST_DATABASE_URL);
  u.pathname = `/${database}`;
  return u.toString();
})();

let opsPort: number;
let env: Record<string, string>;
let child: ChildProcess;
let stdout = '';
let stderr = '';
let exited: Promise<number | null>;
let pool: pg.Pool;

/** A command context over `vars`, with its output discarded. */
function context(vars: Record<string, string>): CommandContext {
  return {
    config: loadConfig(vars),
    logger: createLogger({ level: 'silent' }),
    out: new Writable({ write: (_chunk, _enc, cb) => cb() }),
    signal: new AbortController().signal,
  };
}

beforeAll(async () => {
  opsPort = await freePort();
  env = {
    DATABASE_URL: databaseUrl,
    REDIS_URL: TEST_REDIS_URL,
    QUEUE_PREFIX: prefix,
    OPS_PORT: String(opsPort),
    // Configured API credentials are ignored: the demo talks to its own emulator.
    SERVICE_API_BASE_URL: 'http://127.0.0.1:1',
    SERVICE_API_TOKEN: 'not-used-by-the-demo',
  };
  child = spawnPunchline(['demo', '--days', '3'], env);
  child.stdout!.on('data', (d) => (stdout += String(d)));
  child.stderr!.on('data', (d) => (stderr += String(d)));
  exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + 100_000;
  while (!stdout.includes('Press Ctrl-C')) {
    if (child.exitCode !== null) throw new Error(`demo exited with ${child.exitCode}:\n${stdout}\n${stderr}`);
    if (Date.now() > deadline) throw new Error(`demo did not come up:\n${stdout}\n${stderr}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  pool = new pg.Pool({ connectionString: databaseUrl, max: 2, options: '-c search_path=workforce' });
}, 120_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    child.kill('SIGKILL');
    await exited;
  }
  await pool?.end();
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  await admin.query(`drop database if exists "${database}" with (force)`);
  await admin.end();
  const redis = await connectRedis();
  await dropQueuePrefix(redis, prefix);
  redis.disconnect();
});

describe('punchline demo on a fresh machine', () => {
  it('creates the database, migrates it and backfills through its own emulator', () => {
    expect(stdout).toContain(`created database ${database}`);
    expect(stdout).toMatch(/emulator running at http:\/\/127\.0\.0\.1:\d+ \(3 companies/);
    expect(stdout).toMatch(/migrations applied/);
    expect(stdout).toMatch(/backfill finished in .*: (\d+) of \1 jobs succeeded, 0 failed/);
  });

  it('leaves a warehouse with data that the printed queries read', async () => {
    const punches = await pool.query<{ n: number }>('select count(*)::int as n from punches');
    expect(punches.rows[0]!.n).toBeGreaterThan(0);
    const connections = await pool.query<{ connection: string }>('select distinct connection from sync_runs');
    expect(connections.rows.map((r) => r.connection)).toEqual(['demo']);
    for (const q of DEMO_QUERIES) {
      const { rows } = await pool.query(q.sql);
      expect(rows.length, q.title).toBeGreaterThan(0);
    }
  });

  it('serves the dashboard, /metrics and /healthz where the banner says', async () => {
    const ops = `http://127.0.0.1:${opsPort}`;
    expect(stdout).toContain(`${ops}/dashboard`);
    expect(stdout).toContain("PGOPTIONS='-c search_path=workforce' psql");
    const page = await fetch(`${ops}/dashboard`);
    expect(page.status).toBe(200);
    const queues = (await (await fetch(`${ops}/dashboard/api/queues`)).json()) as {
      queues: { name: string }[];
    };
    expect(queues.queues.map((q) => q.name).sort()).toEqual(['followups', 'marts', 'schedules', 'sync']);
    expect((await fetch(`${ops}/healthz`)).status).toBe(200);
    expect(await (await fetch(`${ops}/metrics`)).text()).toMatch(
      /^punchline_queue_jobs\{queue="sync",state="completed"\} [1-9]/m,
    );
  });

  it('stops cleanly on Ctrl-C', async () => {
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(stdout).toContain('punchline demo: stopped');
  });

  it('refuses to mix demo rows into a schema that holds data of another connection', async () => {
    await pool.query(
      `insert into sync_runs (connection, resource, status) values ('default', 'companies', 'succeeded')`,
    );
    await expect(demoCommand(context(env), { days: '1' })).rejects.toThrow(
      /WAREHOUSE_SCHEMA workforce already holds data synced from connection "default"/,
    );
  });
});

describe('punchline demo without Postgres and Redis', () => {
  it('says in one message which services to start and how', async () => {
    const dead = await freePort();
    const ctx = context({
      DATABASE_URL: `postgres://postgres@127.0.0.1:${dead}/punchline`,
      REDIS_URL: `redis://127.0.0.1:${dead}`,
      QUEUE_PREFIX: prefix,
    });
    const err = (await demoCommand(ctx, {}).catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(ServiceUnavailableError);
    expect(err.message.split('\n')).toHaveLength(1);
    expect(err.message).toMatch(
      /Postgres is not reachable at postgres:\/\/postgres@127\.0\.0\.1:\d+\/punchline .*pg_ctlcluster/,
    );
    expect(err.message).toMatch(/Redis is not reachable at redis:\/\/127\.0\.0\.1:\d+ .*redis-server/);
  });
});
