/**
 * Webhook alerts against a local HTTP receiver, the real Redis (conditions shared by
 * every worker process) and a migrated warehouse (freshness, later successful runs):
 * one message when a condition starts, one when it clears, at most one per condition
 * and hour across processes, and the URL never in a log line.
 */
import { createServer, type Server } from 'node:http';
import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { Redis } from 'ioredis';
import { createLogger, registerSecret } from '../src/logger.js';
import { migrate } from '../src/migrations/migrate.js';
import { OpsEvents } from '../src/telemetry/events.js';
import { WebhookNotifier, type NotificationMessage } from '../src/alerts/notify.js';
import { ConnectionAuthError } from '../src/load/errors.js';
import {
  TEST_DATABASE_URL,
  TEST_REDIS_URL,
  connectPostgres,
  connectRedis,
  dropQueuePrefix,
  dropSchema,
  uniqueName,
} from './support/isolation.js';

const schema = uniqueName('ops_notify');
const prefix = uniqueName('ops_notify');
const SECRET_PATH = '/services/T000/B000/hook-key-9f8e7d6c';
const COMPANY = '11222333000181';
const OTHER = '44555666000172';
const MINUTE = 60_000;

let pool: pg.Pool;
let redis: Redis;
let receiver: Server;
let url: string;
let received: NotificationMessage[] = [];
let answer = 200;
let clock = Date.now();
let logs = '';
const redisClients: Redis[] = [];

const logger = createLogger({
  level: 'debug',
  destination: new Writable({
    write(chunk, _enc, done) {
      logs += String(chunk);
      done();
    },
  }),
});

/** A notifier as one worker process has it: its own Redis connection, the shared prefix. */
function notifier(): WebhookNotifier {
  const client = new Redis(TEST_REDIS_URL);
  redisClients.push(client);
  return new WebhookNotifier({ url, redis: client, prefix, logger, now: () => new Date(clock) });
}

async function run(
  company: string | null,
  resource: string,
  status: string,
  startedAt: number,
  connection = 'default',
) {
  await pool.query(
    `insert into "${schema}".sync_runs (connection, resource, company_cnpj, status, started_at, finished_at)
     values ($1, $2, $3, $4, $5, $5)`,
    [connection, resource, company, status, new Date(startedAt)],
  );
}

beforeAll(async () => {
  pool = await connectPostgres();
  redis = await connectRedis();
  await migrate(TEST_DATABASE_URL, schema);
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += String(d)));
    req.on('end', () => {
      if (req.url === SECRET_PATH && req.method === 'POST' && answer === 200) {
        received.push(JSON.parse(body) as NotificationMessage);
      }
      res.writeHead(req.url === SECRET_PATH ? answer : 404).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(receiver.address() as { port: number }).port}${SECRET_PATH}`;
  registerSecret(url); // as the CLI does with every secret of the configuration
}, 60_000);

afterEach(async () => {
  received = [];
  answer = 200;
  await dropQueuePrefix(redis, prefix);
  await pool.query(`delete from "${schema}".sync_runs`);
});

afterAll(async () => {
  for (const c of redisClients) c.disconnect();
  await new Promise((resolve) => receiver?.close(resolve));
  await dropQueuePrefix(redis, prefix);
  redis.disconnect();
  await dropSchema(pool, schema);
  await pool.end();
});

describe('when a job fails for good', () => {
  it('posts one message with a Slack text and the structured fields', async () => {
    const n = notifier();
    const events = new OpsEvents();
    const uninstall = events.install(n);
    try {
      const job = {
        id: 'punches.default.11222333000181.2025-03-01.2025-03-31',
        data: { connection: 'default', company: COMPANY, resource: 'punches' },
      };
      events.jobFailedForGood('sync', job, new Error('the API answered 500 five times'));
      await n.flush();
    } finally {
      uninstall();
    }
    expect(received).toHaveLength(1);
    const m = received[0]!;
    expect(m).toMatchObject({
      condition: 'job_failed',
      state: 'raised',
      connection: 'default',
      company: COMPANY,
      resource: 'punches',
    });
    expect(m.detail).toContain('the API answered 500 five times');
    expect(m.text).toMatch(
      /^:rotating_light: punchline: a job failed for good \(company 11222333000181, punches, connection default\)/,
    );
    expect(Date.parse(m.since)).toBe(clock);
  });

  it('sends one message per condition and hour however many worker processes see it', async () => {
    const [a, b] = [notifier(), notifier()];
    const failure = {
      condition: 'job_failed' as const,
      connection: 'default',
      company: COMPANY,
      resource: 'punches',
      detail: 'x',
    };
    const results = await Promise.all([
      a.raise(failure),
      b.raise(failure),
      a.raise(failure),
      b.raise(failure),
    ]);
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(received).toHaveLength(1);
    await a.raise({ ...failure, company: OTHER });
    expect(received.map((m) => m.company)).toEqual([COMPANY, OTHER]);
  });

  it('clears, with a second message, once a later run of the same company and resource succeeds', async () => {
    const [a, b] = [notifier(), notifier()];
    const failure = {
      condition: 'job_failed' as const,
      connection: 'default',
      company: COMPANY,
      resource: 'punches',
      detail: 'x',
    };
    await a.raise(failure);
    await run(COMPANY, 'hour_totals', 'succeeded', clock + MINUTE); // another resource: still failing
    await run(COMPANY, 'punches', 'failed', clock + MINUTE);
    await a.check({ pool, schema }, 0);
    expect(received.map((m) => m.state)).toEqual(['raised']);
    await run(COMPANY, 'punches', 'succeeded', clock + 2 * MINUTE);
    await Promise.all([a.check({ pool, schema }, 0), b.check({ pool, schema }, 0)]);
    expect(received.map((m) => m.state)).toEqual(['raised', 'cleared']);
    expect(received[1]).toMatchObject({
      condition: 'job_failed',
      company: COMPANY,
      resource: 'punches',
      since: received[0]!.since,
    });
    expect(received[1]!.text).toMatch(/^:white_check_mark: punchline: resolved: a job failed for good/);
  });
});

describe('when a schedule tick fails for good', () => {
  it('names the connection only, and clears once any later run of that connection succeeds', async () => {
    const n = notifier();
    const events = new OpsEvents();
    const uninstall = events.install(n);
    try {
      events.jobFailedForGood(
        'schedules',
        { id: 'repeat:nightly', data: { connection: 'default', kind: 'nightly' } },
        new Error('walk failed'),
      );
      await n.flush();
    } finally {
      uninstall();
    }
    expect(received[0]).toMatchObject({
      condition: 'job_failed',
      connection: 'default',
      company: null,
      resource: null,
    });
    await run(OTHER, 'punches', 'succeeded', clock + MINUTE);
    await n.check({ pool, schema }, 0);
    expect(received.map((m) => m.state)).toEqual(['raised', 'cleared']);
  });
});

describe('when the token of a connection is rejected', () => {
  it('posts one token message, not one per failing job, and clears when the connection syncs again', async () => {
    const n = notifier();
    const events = new OpsEvents();
    const uninstall = events.install(n);
    try {
      events.tokenRejected('default', new Error('401 invalid_service_token'));
      for (const resource of ['punches', 'hour_totals']) {
        events.jobFailedForGood(
          'sync',
          { data: { connection: 'default', company: COMPANY, resource } },
          new ConnectionAuthError('default'),
        );
      }
      events.tokenRejected('default', new Error('401 invalid_service_token'));
      await n.flush();
    } finally {
      uninstall();
    }
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({
      condition: 'token_rejected',
      state: 'raised',
      connection: 'default',
      company: null,
      resource: null,
    });
    await run(COMPANY, 'punches', 'succeeded', clock + MINUTE, 'other-connection');
    await n.check({ pool, schema }, 0);
    expect(received).toHaveLength(1);
    await run(COMPANY, 'punches', 'succeeded', clock + MINUTE);
    await n.check({ pool, schema }, 0);
    expect(received.map((m) => [m.condition, m.state])).toEqual([
      ['token_rejected', 'raised'],
      ['token_rejected', 'cleared'],
    ]);
  });
});

describe('when data gets older than its schedule allows', () => {
  it('raises per company and resource, from when it became stale, and clears when it is fresh again', async () => {
    const n = notifier();
    const finished = clock - 2 * 60 * MINUTE; // punches are stale after an hour
    await run(COMPANY, 'punches', 'succeeded', finished);
    await run(OTHER, 'punches', 'succeeded', clock - 5 * MINUTE);
    await n.check({ pool, schema }, 0);
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({
      condition: 'stale',
      state: 'raised',
      company: COMPANY,
      resource: 'punches',
      connection: null,
    });
    expect(Date.parse(received[0]!.since)).toBe(finished + 60 * MINUTE);
    expect(received[0]!.text).toContain(
      'data of company 11222333000181, punches is older than its schedule allows',
    );

    await n.check({ pool, schema }, 0);
    expect(received).toHaveLength(1);

    await run(COMPANY, 'punches', 'succeeded', clock);
    await n.check({ pool, schema }, 0);
    expect(received.map((m) => [m.company, m.state])).toEqual([
      [COMPANY, 'raised'],
      [COMPANY, 'cleared'],
    ]);
  });

  it('runs the check in one worker process per interval', async () => {
    const [a, b] = [notifier(), notifier()];
    await run(COMPANY, 'punches', 'succeeded', clock - 3 * 60 * MINUTE);
    await a.check({ pool, schema }, 30_000);
    await run(OTHER, 'punches', 'succeeded', clock - 3 * 60 * MINUTE);
    await b.check({ pool, schema }, 30_000); // within A's interval: skipped
    expect(received.map((m) => m.company)).toEqual([COMPANY]);
  });
});

describe('at most one message per condition and hour', () => {
  it('holds back a condition that comes back within the hour, and announces it when the hour is over', async () => {
    const start = clock;
    try {
      const n = notifier();
      const failure = {
        condition: 'job_failed' as const,
        connection: 'default',
        company: COMPANY,
        resource: 'punches',
        detail: 'x',
      };
      await n.raise(failure);
      clock += MINUTE;
      await run(COMPANY, 'punches', 'succeeded', clock);
      await n.check({ pool, schema }, 0);
      clock += 10 * MINUTE;
      await n.raise(failure); // back within the hour
      await n.check({ pool, schema }, 0);
      expect(received.map((m) => m.state)).toEqual(['raised', 'cleared']);
      clock = start + 61 * MINUTE;
      await n.check({ pool, schema }, 0);
      expect(received.map((m) => m.state)).toEqual(['raised', 'cleared', 'raised']);
      expect(Date.parse(received[2]!.since)).toBe(start + 11 * MINUTE);
    } finally {
      clock = start;
    }
  });
});

describe('the webhook URL', () => {
  it('is never logged nor stored, and a refused message is sent again at the next check', async () => {
    const n = notifier();
    answer = 500;
    const failure = { condition: 'token_rejected' as const, connection: 'default', detail: 'x' };
    expect(await n.raise(failure)).toBe(false);
    answer = 200;
    await n.check({ pool, schema }, 0);
    expect(received.map((m) => m.condition)).toEqual(['token_rejected']);

    await receiver.close();
    receiver.closeAllConnections();
    await n.raise({ ...failure, connection: 'other' }); // connection refused
    expect(logs).toMatch(/notification refused by the webhook/);
    expect(logs).toMatch(/notification could not be sent/);
    expect(logs).not.toContain(SECRET_PATH);
    expect(logs).not.toContain('hook-key');
    const keys = await redis.keys(`${prefix}:*`);
    expect(keys.length).toBeGreaterThan(0);
    for (const key of keys) {
      const type = await redis.type(key);
      const value =
        type === 'hash'
          ? JSON.stringify(await redis.hgetall(key))
          : type === 'set'
            ? ''
            : String(await redis.get(key));
      expect(value).not.toContain('hook-key');
    }
    expect(keys.every((k) => k.startsWith(`${prefix}:notify:`))).toBe(true);
    await new Promise<void>((resolve) => receiver.listen(Number(new URL(url).port), '127.0.0.1', resolve));
  });
});
