/**
 * The dashboard's access check against every route bull-board defines, reached through
 * every spelling of the URL a client can send (percent-encoding of any character,
 * absolute-form targets, doubled slashes, dot segments, case, trailing slashes, query
 * strings): no write ever gets through without the credential, and with a credential
 * configured no job is shown without it either. Requests go over raw HTTP so the target
 * is sent exactly as written; the queue behind the board is read after each batch.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Queue, Worker } from 'bullmq';
import type pg from 'pg';
import type { Redis } from 'ioredis';
// bull-board's own list of its routes, so a route added by an upgrade is tested too.
import { appRoutes } from '@bull-board/api/dist/routes.js';
import { startOpsServer, type RunningOpsServer } from '../src/http/server.js';
import {
  TEST_REDIS_URL,
  connectPostgres,
  connectRedis,
  dropQueuePrefix,
  uniqueName,
} from './support/isolation.js';

const prefix = uniqueName('ops_routes');
const TOKEN = 'operator-token-routes-0123456789';
const FAILURE = 'the-failure-reason-of-job-7Hq2';
const SECRET_DATA = 'job-data-only-the-operator-sees-3Kx8';

let pool: pg.Pool;
let redis: Redis;
let queue: Queue;
let failedId: string;
let guarded: RunningOpsServer;
let readOnly: RunningOpsServer;

/** Sends `method target` exactly as written; resolves with the status and body (0 when the server closed the connection). */
function send(
  base: string,
  method: string,
  target: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(base);
  const body =
    method === 'GET' || method === 'HEAD'
      ? undefined
      : '{"name":"x","data":{},"delay":1,"priority":1,"every":1000}';
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: hostname,
        port,
        method,
        path: target,
        headers: {
          ...headers,
          ...(body
            ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }
            : {}),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    // Node's parser closes the connection on a target it cannot read: status 0.
    req.on('error', (err: NodeJS.ErrnoException) =>
      err.code === 'ECONNRESET' ? resolve({ status: 0, body: '' }) : reject(err),
    );
    req.end(body);
  });
}

/** A route pattern of the board with its parameters filled in. */
function concrete(route: string): string {
  return `/dashboard${route}`
    .replace(':queueName', 'followups')
    .replace(':jobId', failedId)
    .replace(':queueStatus', 'failed')
    .replace(':schedulerId', 'every-minute');
}

/** Statuses that show no handler ran: the route's refusal, no route (404), or a target Node's parser rejects (400, or closed: 0). */
function refusedOrUnrouted(target: string, refusal: number): number[] {
  const wellFormed = target.startsWith('/') || /^https?:\/\//i.test(target);
  return wellFormed ? [refusal, 404] : [refusal, 404, 400, 0];
}

const hex = (c: string) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`;

/** Every spelling of `path` a client could send that might still reach its route. */
function spellings(path: string): string[] {
  const out = new Set<string>([path]);
  for (let i = 0; i < path.length; i++) {
    if (path[i] === '/') continue;
    out.add(`${path.slice(0, i)}${hex(path[i]!)}${path.slice(i + 1)}`);
    out.add(`${path.slice(0, i)}${hex(path[i]!).toLowerCase()}${path.slice(i + 1)}`);
  }
  const everyCharEncoded = path.replace(/[^/]/g, hex);
  const segments = path.split('/');
  out.add(everyCharEncoded);
  out.add(path.replace(/\//g, '%2F'));
  out.add(path.replace(/\//g, '\\'));
  for (const absolute of ['http://x', 'http://127.0.0.1:1', 'HTTP://X', 'https://evil.example']) {
    out.add(`${absolute}${path}`);
    out.add(`${absolute}${everyCharEncoded}`);
    out.add(`${absolute}/%64ashboard${path.slice('/dashboard'.length)}`);
  }
  out.add(`/${path}`);
  out.add(path.replace(/\//g, '//'));
  out.add(`/dashboard/${path.slice('/dashboard/'.length).replace('/', '//')}`);
  out.add(`/./${path.slice(1)}`);
  out.add(path.replace('/api/', '/./api/'));
  out.add(`/x/..${path}`);
  out.add(`/x/%2e%2e${path}`);
  out.add(`/x/%2E%2E${path}`);
  out.add(path.replace('/api/', '/api/../api/'));
  out.add(`${segments.slice(0, -1).join('/')}/x/../${segments[segments.length - 1]!}`);
  out.add(path.toUpperCase());
  out.add(path.replace('/dashboard', '/Dashboard'));
  out.add(`${path}/`);
  out.add(`${path}//`);
  out.add(`${path}/.`);
  for (const tail of [
    '?',
    '?a=1',
    '?/dashboard',
    '?x=%2F..%2F',
    '#frag',
    ';',
    ';x=1',
    '%3Fa=1',
    '%23',
    '%00',
    '%20',
  ])
    out.add(`${path}${tail}`);
  return [...out];
}

/** The write routes bull-board defines (method and pattern). */
const writeRoutes = appRoutes.api
  .flatMap((r) =>
    (Array.isArray(r.route) ? r.route : [r.route]).map((route) => ({
      method: String(r.method).toUpperCase(),
      route,
    })),
  )
  .filter((r) => r.method !== 'GET');

/** What a write through the board would change: the queue's state as far as its routes reach. */
async function queueState(): Promise<unknown> {
  const job = await queue.getJob(failedId);
  return {
    paused: await queue.isPaused(),
    counts: await queue.getJobCounts(),
    failed: job ? await job.getState() : 'gone',
    data: job?.data,
    concurrency: await queue.getGlobalConcurrency(),
    rateLimitTtl: await queue.getRateLimitTtl(),
    schedulers: (await queue.getJobSchedulers()).map((s) => [s.key, s.every]),
  };
}

beforeAll(async () => {
  pool = await connectPostgres();
  redis = await connectRedis();
  queue = new Queue('followups', { connection: redis, prefix });
  const job = await queue.add('bad', { secret: SECRET_DATA }, { attempts: 1 });
  failedId = job.id!;
  const redisUrl = new URL(TEST_REDIS_URL);
  const worker = new Worker(
    'followups',
    async () => {
      throw new Error(FAILURE);
    },
    { connection: { host: redisUrl.hostname, port: Number(redisUrl.port || 6379) }, prefix },
  );
  await new Promise<void>((resolve) => worker.on('failed', () => resolve()));
  await worker.close();
  await queue.add('later', { n: 1 }, { delay: 3_600_000 });
  await queue.upsertJobScheduler('every-minute', { every: 60_000 }, { name: 'tick', data: {} });
  const common = {
    port: 0,
    queues: [queue],
    redisUrl: TEST_REDIS_URL,
    pool,
    schema: uniqueName('ops_routes'),
  };
  guarded = await startOpsServer({ ...common, dashboardCredential: { user: 'operator', token: TOKEN } });
  readOnly = await startOpsServer(common);
});

afterAll(async () => {
  await guarded?.close();
  await readOnly?.close();
  await queue?.close();
  if (redis) {
    await dropQueuePrefix(redis, prefix);
    redis.disconnect();
  }
  await pool?.end();
});

describe('write routes of the dashboard, whatever form the URL takes', () => {
  it('covers every write route bull-board defines', () => {
    const names = writeRoutes.map((r) => `${r.method} ${r.route}`);
    expect(names).toContain('PUT /api/queues/:queueName/pause');
    expect(names).toContain('PUT /api/queues/:queueName/obliterate');
    expect(names).toContain('POST /api/queues/:queueName/add');
    expect(names).toContain('PATCH /api/queues/:queueName/:jobId/update-data');
    expect(writeRoutes.length).toBeGreaterThanOrEqual(20);
  });

  for (const [name, server, refusal] of [
    ['with an operator credential, without it', () => guarded, 401],
    ['without an operator credential (read-only)', () => readOnly, 403],
  ] as const) {
    it(`are refused ${name}: the route answers ${refusal} or no route answers at all, and the queue stays as it was`, async () => {
      const before = await queueState();
      const reached = new Set<string>();
      for (const { method, route } of writeRoutes) {
        const path = concrete(route);
        for (const target of spellings(path)) {
          const res = await send(server().url, method, target, { host: new URL(server().url).host });
          expect(refusedOrUnrouted(target, refusal), `${method} ${target}: ${res.body}`).toContain(
            res.status,
          );
          if (res.status === refusal) reached.add(target);
        }
        expect(await queueState(), `${method} ${route}`).toEqual(before);
      }
      // The spellings that reach a route on today's router are refused there, not missed.
      const pause = concrete('/api/queues/:queueName/pause');
      for (const form of [
        pause,
        `/%64ashboard${pause.slice(10)}`,
        `http://x${pause}`,
        pause.replace(/[^/]/g, hex),
        `${pause}?a=1`,
      ]) {
        expect(reached, form).toContain(form);
      }
    }, 120_000);
  }

  it('still let the operator act with the credential, through any form that reaches the route', async () => {
    const res = await send(guarded.url, 'PUT', `/%64ashboard/api/queues/followups/pause`, {
      authorization: `Bearer ${TOKEN}`,
    });
    expect(res.status).toBeLessThan(300);
    expect(await queue.isPaused()).toBe(true);
    await queue.resume();
  });
});

describe('job details with an operator credential configured', () => {
  const reads = () => [
    '/dashboard/api/queues?activeQueue=followups&status=failed',
    `/dashboard/api/queues/followups/${failedId}`,
    `/dashboard/api/queues/followups/${failedId}/logs`,
    `/dashboard/api/queues/followups/${failedId}/flow`,
    '/dashboard/api/job-schedulers',
  ];

  it('are shown to nobody without the credential, whatever form the URL takes', async () => {
    for (const path of reads()) {
      const [bare, query = ''] = path.split('?');
      for (const target of spellings(bare!).map((t) =>
        query ? `${t}${t.includes('?') ? '&' : '?'}${query}` : t,
      )) {
        for (const method of ['GET', 'HEAD']) {
          const res = await send(guarded.url, method, target);
          expect(refusedOrUnrouted(target, 401), `${method} ${target}`).toContain(res.status);
          expect(res.body).not.toContain(FAILURE);
          expect(res.body).not.toContain(SECRET_DATA);
        }
      }
    }
  }, 120_000);

  it('are shown to the operator', async () => {
    const res = await send(guarded.url, 'GET', '/dashboard/api/queues?activeQueue=followups&status=failed', {
      authorization: `Bearer ${TOKEN}`,
    });
    expect(res.status).toBe(200);
    expect(res.body).toContain(FAILURE);
    expect(res.body).toContain(SECRET_DATA);
  });

  it('are shown to whoever reaches the port when no credential is configured (the read-only default)', async () => {
    const res = await send(readOnly.url, 'GET', `/dashboard/api/queues/followups/${failedId}`);
    expect(res.status).toBe(200);
    expect(res.body).toContain(FAILURE);
  });
});
