/**
 * The ops server trusts no Host (real Redis and Postgres, requests over TCP): a name it was
 * not told to serve gets 421 before any route, even with a matching Origin (DNS rebinding);
 * every answer forbids framing and type sniffing; binding another address than loopback
 * without an operator credential is refused unless asked for; `/metrics` needs the credential
 * once one is set, unless opened; `/livez` and `/readyz` (and `/healthz`, its old name) answer.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import pg from 'pg';
import type { Redis } from 'ioredis';
import {
  checkOpsBind,
  OpsBindRefusedError,
  startOpsServer,
  type RunningOpsServer,
} from '../src/http/server.js';
import { hostOf } from '../src/http/host-check.js';
import { loadConfig } from '../src/config.js';
import {
  TEST_REDIS_URL,
  connectPostgres,
  connectRedis,
  dropQueuePrefix,
  uniqueName,
} from './support/isolation.js';

const prefix = uniqueName('ops_host');
const schema = uniqueName('ops_host');
const TOKEN = 'host-check-token-0123456789';
const credential = { user: 'operator', token: TOKEN };

let pool: pg.Pool;
let redis: Redis;
let queue: Queue;
let open: RunningOpsServer;
let guarded: RunningOpsServer;

/** A GET to `server` over TCP with exactly these headers (fetch would set Host itself). */
async function get(
  server: RunningOpsServer,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, method: 'GET', headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

const hostOfServer = (s: RunningOpsServer) => new URL(s.url).host;

beforeAll(async () => {
  pool = await connectPostgres();
  redis = await connectRedis();
  queue = new Queue('sync', { connection: redis, prefix });
  await queue.add('punches', { n: 1 });
  const base = { port: 0, host: '127.0.0.1', queues: [queue], redisUrl: TEST_REDIS_URL, pool, schema };
  open = await startOpsServer({ ...base, allowedHosts: ['punchline-worker'] });
  guarded = await startOpsServer({ ...base, dashboardCredential: credential });
});

afterAll(async () => {
  await open?.close();
  await guarded?.close();
  await queue?.close();
  if (redis) {
    await dropQueuePrefix(redis, prefix);
    redis.disconnect();
  }
  await pool?.end();
});

describe('a Host the server does not serve', () => {
  const paths = ['/status', '/status.json', '/dashboard/api/queues', '/metrics', '/readyz', '/livez', '/'];

  it.each(paths)('%s: 421 for a rebinding name, even with a matching Origin', async (path) => {
    const port = new URL(open.url).port;
    const res = await get(open, path, {
      host: `rebind.example:${port}`,
      origin: `http://rebind.example:${port}`,
    });
    expect(res.status).toBe(421);
    expect(res.body).not.toContain('punches');
  });

  it('serves the loopback names, the bound address and the names configured, any case, with or without a port', async () => {
    const port = new URL(open.url).port;
    for (const host of [
      `localhost:${port}`,
      `127.0.0.1:${port}`,
      `[::1]:${port}`,
      'LOCALHOST',
      `punchline-worker:${port}`,
    ]) {
      const res = await get(open, '/dashboard/api/queues', { host });
      expect(res.status, host).toBe(200);
      expect(res.body).toContain('sync');
    }
  });

  it('refuses a request with a malformed Host', async () => {
    for (const host of ['localhost:port', 'a b', 'localhost:9464:1', '[::1']) {
      expect((await get(open, '/status.json', { host })).status, JSON.stringify(host)).toBe(421);
    }
  });

  it('reads the name out of a Host header (pure)', () => {
    expect(hostOf('LocalHost:9464')).toBe('localhost');
    expect(hostOf('[::1]:9464')).toBe('::1');
    expect(hostOf('localhost.')).toBe('localhost');
    expect(hostOf('rebind.example')).toBe('rebind.example');
    expect(hostOf(undefined)).toBeUndefined();
    expect(hostOf('a:b:c')).toBeUndefined();
  });
});

describe('headers of every answer', () => {
  it.each(['/dashboard', '/dashboard/api/queues', '/status', '/readyz'])(
    '%s: cannot be framed, sniffed or leak its URL',
    async (path) => {
      const res = await get(open, path, { host: hostOfServer(open) });
      expect(res.status).toBeLessThan(400);
      expect(res.headers['content-security-policy']).toMatch(/frame-ancestors 'none'/);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      expect(res.headers['x-frame-options']).toBe('DENY');
    },
  );
});

describe('binding another address than loopback', () => {
  it('is refused at start without an operator credential, with a one-line reason', async () => {
    await expect(
      startOpsServer({ port: 0, host: '0.0.0.0', queues: [], redisUrl: TEST_REDIS_URL, pool, schema }),
    ).rejects.toThrow(OpsBindRefusedError);
    expect(() => checkOpsBind('0.0.0.0', false, false)).toThrow(
      /^OPS_HOST 0\.0\.0\.0 is not a loopback address and OPS_DASHBOARD_TOKEN is not set: .*\(set OPS_DASHBOARD_TOKEN, or OPS_ALLOW_NO_TOKEN=1 when only trusted hosts reach it\)$/,
    );
    expect(() => checkOpsBind('192.0.2.10', false, false)).toThrow(OpsBindRefusedError);
  });

  it('is allowed with a credential, with the explicit opt-in, and always on loopback', async () => {
    for (const [host, hasCredential, optIn] of [
      ['0.0.0.0', true, false],
      ['0.0.0.0', false, true],
      ['127.0.0.1', false, false],
      ['127.0.0.2', false, false],
      ['::1', false, false],
      ['localhost', false, false],
    ] as const) {
      expect(() => checkOpsBind(host, hasCredential, optIn), host).not.toThrow();
    }
    const wide = await startOpsServer({
      port: 0,
      host: '0.0.0.0',
      allowNoToken: true,
      queues: [],
      redisUrl: TEST_REDIS_URL,
      pool,
      schema,
    });
    try {
      // A wildcard has no name of its own: loopback names only.
      expect((await get(wide, '/livez', { host: `127.0.0.1:${new URL(wide.url).port}` })).status).toBe(200);
      expect((await get(wide, '/livez', { host: '0.0.0.0' })).status).toBe(421);
    } finally {
      await wide.close();
    }
  });

  it('reads the opt-in and the host names from the environment', () => {
    const config = loadConfig({
      OPS_ALLOW_NO_TOKEN: '1',
      OPS_ALLOWED_HOSTS: ' Worker , [fd00::1],ops.example ',
    });
    expect(config.opsAllowNoToken).toBe(true);
    expect(config.opsAllowedHosts).toEqual(['worker', 'fd00::1', 'ops.example']);
    expect(loadConfig({}).opsAllowNoToken).toBe(false);
    expect(() => loadConfig({ OPS_ALLOWED_HOSTS: 'a/b' })).toThrow(/OPS_ALLOWED_HOSTS must be host names/);
  });
});

describe('/metrics with an operator credential set', () => {
  it('answers 401 without the credential, and the metrics with it', async () => {
    const host = hostOfServer(guarded);
    const anonymous = await get(guarded, '/metrics', { host });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).not.toContain('punchline_');
    const bearer = await get(guarded, '/metrics', { host, authorization: `Bearer ${TOKEN}` });
    expect(bearer.status).toBe(200);
    expect(bearer.body).toContain('punchline_');
  });

  it('stays open without a credential, and when configured open', async () => {
    expect((await get(open, '/metrics', { host: hostOfServer(open) })).status).toBe(200);
    const opened = await startOpsServer({
      port: 0,
      dashboardCredential: credential,
      metricsOpen: true,
      queues: [],
      redisUrl: TEST_REDIS_URL,
      pool,
      schema,
    });
    try {
      expect((await get(opened, '/metrics', { host: hostOfServer(opened) })).status).toBe(200);
    } finally {
      await opened.close();
    }
  });
});

describe('/livez, /readyz and /healthz', () => {
  it('answer without the credential: alive, and ready with Redis and Postgres up', async () => {
    const host = hostOfServer(guarded);
    const live = await get(guarded, '/livez', { host });
    expect(live.status).toBe(200);
    expect(JSON.parse(live.body)).toEqual({ status: 'ok' });
    for (const path of ['/readyz', '/healthz']) {
      const ready = await get(guarded, path, { host });
      expect(ready.status, path).toBe(200);
      expect(JSON.parse(ready.body)).toMatchObject({ status: 'ok', redis: 'ok', postgres: 'ok' });
    }
  });
});
