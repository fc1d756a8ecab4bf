/**
 * The ops HTTP server against the real Redis and Postgres: `/healthz` names what is down
 * without revealing secrets, `/metrics` serves the process counters plus queue depth and
 * freshness read at scrape time, the dashboard lists the queues and refuses writes
 * without the operator credential, and the server binds loopback by default.
 */
import { networkInterfaces } from 'node:os';
import { connect, createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue, Worker } from 'bullmq';
import pg from 'pg';
import type { Redis } from 'ioredis';
import { startOpsServer, OpsPortInUseError, type RunningOpsServer } from '../src/http/server.js';
import type { HealthReport } from '../src/probes/health.js';
import { recordApiRequest, recordJob, recordRowsLoaded } from '../src/telemetry/metrics.js';
import {
  TEST_DATABASE_URL,
  TEST_REDIS_URL,
  connectPostgres,
  connectRedis,
  dropQueuePrefix,
  dropSchema,
  uniqueName,
} from './support/isolation.js';

const schema = uniqueName('ops_server');
const prefix = uniqueName('ops_server');
const NOW = new Date('2025-03-10T12:00:00Z');

let pool: pg.Pool;
let redis: Redis;
let queue: Queue;
let server: RunningOpsServer;

/** A TCP port on which nothing listens. */
async function unusedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** The value of one sample line of a Prometheus text exposition, or undefined. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    const inner = line.slice(name.length + 1, line.lastIndexOf('}'));
    const got = Object.fromEntries([...inner.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v))
      return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

beforeAll(async () => {
  pool = await connectPostgres();
  redis = await connectRedis();
  // The sync_freshness view as sql/008_views.sql defines it, over sync_runs.
  await pool.query(`create schema "${schema}"`);
  await pool.query(`create table "${schema}".sync_runs (
    id bigserial primary key, resource text not null, company_cnpj text, status text not null,
    finished_at timestamptz)`);
  await pool.query(`create view "${schema}".sync_freshness as
    select company_cnpj, resource, max(finished_at) as last_success_at,
      extract(epoch from now() - max(finished_at))::bigint as age_seconds
    from "${schema}".sync_runs where status = 'succeeded' group by company_cnpj, resource`);
  queue = new Queue('sync', { connection: redis, prefix });
  await queue.add('punches', { n: 1 });
  await queue.add('punches', { n: 2 });
  server = await startOpsServer({
    port: 0,
    host: '127.0.0.1',
    queues: [queue],
    redisUrl: TEST_REDIS_URL,
    pool,
    schema,
    now: () => NOW,
  });
});

afterAll(async () => {
  await server?.close();
  await queue?.close();
  if (redis) {
    await dropQueuePrefix(redis, prefix);
    redis.disconnect();
  }
  if (pool) {
    await dropSchema(pool, schema);
    await pool.end();
  }
});

describe('/healthz', () => {
  it('answers 200 with both checks ok when Redis and Postgres are up', async () => {
    const res = await fetch(`${server.url}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok', redis: 'ok', postgres: 'ok' });
  });

  describe('when Redis is down', () => {
    it('answers 503 naming Redis and why', async () => {
      const port = await unusedPort();
      const down = await startOpsServer({
        port: 0,
        host: '127.0.0.1',
        queues: [],
        redisUrl: `redis://127.0.0.1:${port}`,
        pool,
        schema,
        probeTimeoutMs: 1000,
      });
      try {
        const res = await fetch(`${down.url}/healthz`);
        expect(res.status).toBe(503);
        const body = (await res.json()) as HealthReport;
        expect(body).toMatchObject({ status: 'down', redis: 'down', postgres: 'ok' });
        expect(body.errors?.redis).toMatch(/ECONNREFUSED|not reachable|did not answer/);
        expect(body.errors?.postgres).toBeUndefined();
      } finally {
        await down.close();
      }
    });
  });

  describe('when Postgres is down', () => {
    it('answers 503 naming Postgres', async () => {
      const port = await unusedPort();
      const url = new URL(TEST_DATABASE_URL);
      url.port = String(port);
      const deadPool = new pg.Pool({ connectionString: url.toString(), connectionTimeoutMillis: 500 });
      const down = await startOpsServer({
        port: 0,
        host: '127.0.0.1',
        queues: [],
        redisUrl: TEST_REDIS_URL,
        pool: deadPool,
        schema,
        probeTimeoutMs: 1000,
      });
      try {
        const res = await fetch(`${down.url}/healthz`);
        expect(res.status).toBe(503);
        const body = (await res.json()) as HealthReport;
        expect(body).toMatchObject({ status: 'down', redis: 'ok', postgres: 'down' });
        expect(body.errors?.postgres).toMatch(/ECONNREFUSED|did not answer|timeout/i);
      } finally {
        await down.close();
        await deadPool.end();
      }
    });
  });
});

describe('/status and /status.json', () => {
  it('answer 503 with the reason, and no password, when Postgres is down', async () => {
    const port = await unusedPort();
    const url = new URL(TEST_DATABASE_URL);
    url.port = String(port);
    url.password = 'status-secret-password';
    if (url.username === '') url.username = 'punchline';
    const deadPool = new pg.Pool({ connectionString: url.toString(), connectionTimeoutMillis: 500 });
    const down = await startOpsServer({
      port: 0,
      host: '127.0.0.1',
      queues: [],
      redisUrl: TEST_REDIS_URL,
      pool: deadPool,
      schema,
      statusTimeoutMs: 2000,
    });
    try {
      for (const path of ['/status', '/status.json']) {
        const res = await fetch(`${down.url}${path}`);
        expect(res.status, path).toBe(503);
        const text = await res.text();
        expect(text, path).toMatch(/^status unavailable: .*(ECONNREFUSED|did not answer)/);
        expect(text, path).not.toContain('status-secret-password');
      }
    } finally {
      await down.close();
      await deadPool.end();
    }
  });

  it('show the report to whoever reaches the port without an operator credential, and only to the operator with one', async () => {
    const open = await fetch(`${server.url}/status.json`);
    expect(open.status).toBe(200);
    expect(((await open.json()) as { queues: unknown[] }).queues).toHaveLength(1);
    const token = 'status-operator-token-0123';
    const guarded = await startOpsServer({
      port: 0,
      queues: [],
      redisUrl: TEST_REDIS_URL,
      pool,
      schema,
      dashboardCredential: { user: 'operator', token },
    });
    try {
      for (const path of ['/status', '/status.json', '/status.json?x=1', '/STATUS']) {
        const res = await fetch(`${guarded.url}${path}`);
        expect(res.status, path).toBe(path === '/STATUS' ? 404 : 401);
        if (res.status === 401) expect(res.headers.get('www-authenticate'), path).toMatch(/^Basic realm=/);
        await res.body?.cancel();
      }
      const basic = `Basic ${Buffer.from(`operator:${token}`).toString('base64')}`;
      for (const authorization of [`Bearer ${token}`, basic]) {
        const res = await fetch(`${guarded.url}/status`, { headers: { authorization } });
        expect(res.status).toBe(200);
        expect(await res.text()).toContain('<title>punchline status</title>');
      }
      const wrong = await fetch(`${guarded.url}/status.json`, {
        headers: { authorization: 'Bearer not-the-token-000000' },
      });
      expect(wrong.status).toBe(401);
    } finally {
      await guarded.close();
    }
  });
});

describe('/metrics', () => {
  it('serves what the process recorded: API requests, jobs, rows', async () => {
    recordApiRequest({
      connection: 'c1',
      endpoint: 'point/getFromPeriod',
      status: 200,
      durationMs: 120,
      bytes: 5000,
    });
    recordApiRequest({
      connection: 'c1',
      endpoint: 'point/getFromPeriod',
      status: 200,
      durationMs: 80,
      bytes: 100,
    });
    recordJob({ queue: 'sync', state: 'completed', durationMs: 1500 });
    recordRowsLoaded({ table: 'punches', action: 'inserted', count: 42 });
    const res = await fetch(`${server.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await res.text();
    const ep = { connection: 'c1', endpoint: 'point/getFromPeriod' };
    expect(sample(text, 'punchline_api_requests_total', { ...ep, status: '200' })).toBe(2);
    expect(sample(text, 'punchline_api_request_duration_seconds_count', ep)).toBe(2);
    expect(sample(text, 'punchline_api_request_duration_seconds_sum', ep)).toBeCloseTo(0.2);
    expect(sample(text, 'punchline_jobs_total', { queue: 'sync', state: 'completed' })).toBe(1);
    expect(sample(text, 'punchline_job_duration_seconds_count', { queue: 'sync' })).toBe(1);
    expect(sample(text, 'punchline_rows_loaded_total', { table: 'punches', action: 'inserted' })).toBe(42);
  });

  it('reports queue depth per queue and state, read from Redis at scrape time', async () => {
    let text = await (await fetch(`${server.url}/metrics`)).text();
    expect(sample(text, 'punchline_queue_jobs', { queue: 'sync', state: 'waiting' })).toBe(2);
    expect(sample(text, 'punchline_queue_jobs', { queue: 'sync', state: 'failed' })).toBe(0);
    await queue.add('punches', { n: 3 }, { delay: 60_000 });
    text = await (await fetch(`${server.url}/metrics`)).text();
    expect(sample(text, 'punchline_queue_jobs', { queue: 'sync', state: 'delayed' })).toBe(1);
  });

  it('reports seconds since the last successful sync per company and resource from the warehouse', async () => {
    await pool.query(
      `insert into "${schema}".sync_runs (resource, company_cnpj, status, finished_at) values
        ('punches', '11222333000181', 'succeeded', '2025-03-10T11:50:00Z'),
        ('punches', '11222333000181', 'succeeded', '2025-03-10T11:00:00Z'),
        ('punches', '11222333000181', 'failed', '2025-03-10T11:59:00Z'),
        ('companies', null, 'succeeded', '2025-03-09T12:00:00Z')`,
    );
    const text = await (await fetch(`${server.url}/metrics`)).text();
    expect(
      sample(text, 'punchline_sync_age_seconds', { company: '11222333000181', resource: 'punches' }),
    ).toBe(600);
    expect(sample(text, 'punchline_sync_age_seconds', { company: 'group', resource: 'companies' })).toBe(
      86_400,
    );
    const punches = { company: '11222333000181', resource: 'punches' };
    expect(sample(text, 'punchline_sync_freshness_timestamp_seconds', punches)).toBe(
      Date.parse('2025-03-10T11:50:00Z') / 1000,
    );
    // Stale as `punchline status` says: punches after an hour, the directory after three.
    expect(sample(text, 'punchline_sync_stale', punches)).toBe(0);
    expect(sample(text, 'punchline_sync_stale', { company: 'group', resource: 'companies' })).toBe(1);
    expect(sample(text, 'punchline_sync_stale_after_seconds', { resource: 'punches' })).toBe(3600);
  });

  it('reports how long the oldest waiting job of each queue has waited', async () => {
    const at = Date.now() + 60_000;
    const later = await startOpsServer({
      port: 0,
      queues: [queue],
      redisUrl: TEST_REDIS_URL,
      pool,
      schema,
      now: () => new Date(at),
    });
    try {
      const waiting = await queue.getWaiting();
      expect(waiting.length).toBeGreaterThanOrEqual(2);
      const oldest = Math.min(...waiting.map((j) => j.timestamp));
      const text = await (await fetch(`${later.url}/metrics`)).text();
      expect(sample(text, 'punchline_queue_oldest_waiting_seconds', { queue: 'sync' })).toBeCloseTo(
        (at - oldest) / 1000,
        3,
      );
    } finally {
      await later.close();
    }
  });

  it('still answers when the warehouse has no sync_freshness view yet', async () => {
    const other = await startOpsServer({
      port: 0,
      host: '127.0.0.1',
      queues: [queue],
      redisUrl: TEST_REDIS_URL,
      pool,
      schema: uniqueName('ops_absent'),
    });
    try {
      const res = await fetch(`${other.url}/metrics`);
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(text).not.toMatch(/^punchline_sync_age_seconds\{/m);
      expect(sample(text, 'punchline_queue_jobs', { queue: 'sync', state: 'waiting' })).toBe(2);
    } finally {
      await other.close();
    }
  });
});

describe('the dashboard', () => {
  it('redirects / to the dashboard and lists the queues through its API', async () => {
    const root = await fetch(`${server.url}/`, { redirect: 'manual' });
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/dashboard');
    const page = await fetch(server.dashboardUrl);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<title>punchline</title>');
    const api = (await (
      await fetch(`${server.dashboardUrl}/api/queues?activeQueue=sync&status=waiting`)
    ).json()) as {
      queues: { name: string }[];
    };
    const names = api.queues.map((q) => q.name);
    expect(names).toEqual(['sync']);
  });
});

describe('when OPS_PORT is taken', () => {
  it('fails with a message naming OPS_PORT', async () => {
    const port = Number(new URL(server.url).port);
    await expect(
      startOpsServer({ port, host: '127.0.0.1', queues: [], redisUrl: TEST_REDIS_URL, pool, schema }),
    ).rejects.toThrow(OpsPortInUseError);
  });
});

describe('safe by default', () => {
  it('binds 127.0.0.1 when no host is given, so other interfaces cannot reach it', async () => {
    const local = await startOpsServer({ port: 0, queues: [], redisUrl: TEST_REDIS_URL, pool, schema });
    try {
      const url = new URL(local.url);
      expect(url.hostname).toBe('127.0.0.1');
      expect((await fetch(`${local.url}/healthz`)).status).toBe(200);
      const external = Object.values(networkInterfaces())
        .flat()
        .find((i) => i && i.family === 'IPv4' && !i.internal)?.address;
      if (external) {
        const reached = await new Promise<boolean>((resolve) => {
          const socket = connect(Number(url.port), external);
          socket.once('connect', () => (socket.destroy(), resolve(true)));
          socket.once('error', () => resolve(false));
        });
        expect(reached, `ops server answered on ${external}`).toBe(false);
      }
    } finally {
      await local.close();
    }
  });

  describe('/healthz with credentials in the Redis and Postgres URLs', () => {
    const REDIS_PW = 'redis-pw-7Qx9';
    const PG_PW = 'pg-pw-4Kd2';

    it('names what is down without the passwords, URLs with credentials or stack traces', async () => {
      const [redisPort, pgPort] = [await unusedPort(), await unusedPort()];
      const deadPool = new pg.Pool({
        connectionString: `postgres://punchline:${PG_PW}@127.0.0.1:${pgPort}/punchline`,
        connectionTimeoutMillis: 500,
      });
      const down = await startOpsServer({
        port: 0,
        queues: [],
        redisUrl: `redis://:${REDIS_PW}@127.0.0.1:${redisPort}`,
        pool: deadPool,
        schema,
        probeTimeoutMs: 1000,
        secrets: [PG_PW],
      });
      try {
        const res = await fetch(`${down.url}/healthz`);
        expect(res.status).toBe(503);
        const text = await res.text();
        expect(JSON.parse(text)).toMatchObject({ status: 'down', redis: 'down', postgres: 'down' });
        for (const secret of [REDIS_PW, PG_PW, 'punchline:', '    at ', '\\n'])
          expect(text).not.toContain(secret);
      } finally {
        await down.close();
        await deadPool.end();
      }
    });

    it('masks a driver error that quotes its connection string or a password, and drops its stack', async () => {
      const leaky = {
        async query(): Promise<never> {
          const err = new Error(
            `could not connect to postgres://wh:${PG_PW}@db:5432/wh (auth ${PG_PW} refused) nor postgres://ro:un/known@replica/wh\n    at Client.connect (pg/client.js:1:1)`,
          );
          throw err;
        },
      };
      const down = await startOpsServer({
        port: 0,
        queues: [],
        redisUrl: TEST_REDIS_URL,
        pool: leaky,
        schema,
        secrets: [PG_PW],
      });
      try {
        const res = await fetch(`${down.url}/healthz`);
        expect(res.status).toBe(503);
        const body = (await res.json()) as HealthReport;
        expect(body.errors?.postgres).toBe(
          'could not connect to postgres://***@db:5432/wh (auth [REDACTED] refused) nor postgres://***@replica/wh',
        );
      } finally {
        await down.close();
      }
    });
  });
});

describe('dashboard write actions', () => {
  const TOKEN = 'operator-token-0123456789';
  const basic = (user: string, token: string) =>
    `Basic ${Buffer.from(`${user}:${token}`).toString('base64')}`;
  let followups: Queue;
  let readOnly: RunningOpsServer;
  let failedId: string;

  beforeAll(async () => {
    // A queue of its own with one job that failed for good, worked by a real BullMQ worker.
    followups = new Queue('followups', { connection: redis, prefix });
    const job = await followups.add('bad', { n: 0 }, { attempts: 1 });
    failedId = job.id!;
    const worker = new Worker(
      'followups',
      async () => {
        throw new Error('boom');
      },
      {
        connection: {
          host: new URL(TEST_REDIS_URL).hostname,
          port: Number(new URL(TEST_REDIS_URL).port || 6379),
        },
        prefix,
      },
    );
    const failed = new Promise<void>((resolve) => worker.on('failed', () => resolve()));
    await failed;
    await worker.close();
    readOnly = await startOpsServer({ port: 0, queues: [followups], redisUrl: TEST_REDIS_URL, pool, schema });
  });
  afterAll(async () => {
    await readOnly?.close();
    await followups?.close();
  });

  it('are refused with 403 when no operator credential is configured, and the board says read-only', async () => {
    const api = (await (
      await fetch(`${readOnly.dashboardUrl}/api/queues?activeQueue=followups&status=failed`)
    ).json()) as {
      queues: { name: string; readOnlyMode: boolean }[];
    };
    expect(api.queues[0]!.readOnlyMode).toBe(true);
    for (const [method, path] of [
      ['PUT', `/api/queues/followups/${failedId}/retry`],
      ['PUT', `/api/queues/followups/${failedId}/clean`],
      ['PUT', '/api/queues/followups/retry/failed'],
      ['PUT', '/api/queues/followups/pause'],
      ['PUT', '/api/queues/pause'],
      ['PUT', '/api/queues/followups/clean/failed'],
      ['PUT', '/api/queues/followups/empty'],
      ['POST', '/api/queues/followups/add'],
      ['PUT', '/api/queues/followups/obliterate'],
    ] as const) {
      const res = await fetch(`${readOnly.dashboardUrl}${path}`, {
        method,
        headers: { authorization: basic('operator', TOKEN) },
      });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(((await res.json()) as { error: string }).error).toMatch(/read-only: set OPS_DASHBOARD_TOKEN/);
    }
    expect(await followups.isPaused()).toBe(false);
    expect(await (await followups.getJob(failedId))!.getState()).toBe('failed');
  });

  describe('with an operator credential', () => {
    let guarded: RunningOpsServer;
    beforeAll(async () => {
      guarded = await startOpsServer({
        port: 0,
        queues: [followups],
        redisUrl: TEST_REDIS_URL,
        pool,
        schema,
        dashboardCredential: { user: 'operator', token: TOKEN },
      });
    });
    afterAll(async () => {
      await followups.resume();
      await guarded?.close();
    });

    it('shows the jobs and the write buttons only to the operator', async () => {
      const url = `${guarded.dashboardUrl}/api/queues?activeQueue=followups&status=failed`;
      const anonymous = await fetch(url);
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('www-authenticate')).toMatch(/^Basic realm="punchline dashboard"/);
      expect(await anonymous.text()).not.toContain('boom');
      const res = await fetch(url, { headers: { authorization: basic('operator', TOKEN) } });
      expect(res.status).toBe(200);
      const api = (await res.json()) as {
        queues: { readOnlyMode: boolean; jobs: { failedReason: string }[] }[];
      };
      expect(api.queues[0]!.readOnlyMode).toBe(false);
      expect(api.queues[0]!.jobs.map((j) => j.failedReason)).toEqual(['boom']);
    });

    it('answers 401 with a basic-auth challenge without the credential or with a wrong one', async () => {
      for (const authorization of [
        undefined,
        basic('operator', 'wrong-token-0123456789'),
        basic('admin', TOKEN),
        'Bearer nope',
      ]) {
        const res = await fetch(`${guarded.dashboardUrl}/api/queues/followups/${failedId}/retry`, {
          method: 'PUT',
          headers: authorization ? { authorization } : {},
        });
        expect(res.status, String(authorization)).toBe(401);
        expect(res.headers.get('www-authenticate')).toMatch(/^Basic realm="punchline dashboard"/);
      }
      expect(await (await followups.getJob(failedId))!.getState()).toBe('failed');
    });

    it('refuses a write from a page of another origin even with the credential', async () => {
      const res = await fetch(`${guarded.dashboardUrl}/api/queues/followups/pause`, {
        method: 'PUT',
        headers: { authorization: basic('operator', TOKEN), origin: 'https://evil.example.com' },
      });
      expect(res.status).toBe(403);
      expect(await followups.isPaused()).toBe(false);
    });

    it('lets the operator act, with basic auth or a bearer token', async () => {
      const paused = await fetch(`${guarded.dashboardUrl}/api/queues/followups/pause`, {
        method: 'PUT',
        headers: { authorization: basic('operator', TOKEN), origin: new URL(guarded.url).origin },
      });
      expect(paused.status).toBeLessThan(300);
      expect(await followups.isPaused()).toBe(true);
      const retried = await fetch(`${guarded.dashboardUrl}/api/queues/followups/${failedId}/retry`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(retried.status).toBeLessThan(300);
      expect(await (await followups.getJob(failedId))!.getState()).not.toBe('failed');
    });
  });
});
