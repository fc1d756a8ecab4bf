import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { RedisRequestBudget } from '../src/connections/request-budget.js';
import { connectRedis, dropQueuePrefix, uniqueName } from './support/isolation.js';

/** Most starts inside any window [t, t + 1000 ms). */
function maxInAnySecond(starts: number[]): number {
  const s = [...starts].sort((a, b) => a - b);
  let best = 0;
  let j = 0;
  for (let i = 0; i < s.length; i++) {
    while (s[j]! <= s[i]! - 1000) j++;
    best = Math.max(best, i - j + 1);
  }
  return best;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('RedisRequestBudget', () => {
  const prefix = uniqueName('budget');
  const clients: Redis[] = [];
  let admin: Redis;

  beforeAll(async () => {
    admin = await connectRedis();
    for (let i = 0; i < 3; i++) clients.push(await connectRedis());
  });
  afterAll(async () => {
    await dropQueuePrefix(admin, prefix);
    for (const c of [admin, ...clients]) c.disconnect();
  });

  describe('when many acquirers in several processes compete', () => {
    it('never lets the server see more than rps starts in any sliding second nor more than concurrency in flight, whatever the delays', async () => {
      const limit = { rps: 8, concurrency: 3 };
      // Three budgets on three connections stand for three worker processes.
      const budgets = clients.map(
        (redis) => new RedisRequestBudget({ redis, prefix, connection: 'c1', limit, leaseTtlMs: 5000 }),
      );
      const starts: number[] = [];
      let inFlight = 0;
      let maxInFlight = 0;
      // Each request reaches the "server" after a delay that varies a lot (scheduling, network):
      // the server-side starts must still hold the rule.
      const work = async (b: RedisRequestBudget, delay: number, hold: number) => {
        const release = await b.acquire();
        await sleep(delay);
        starts.push(Date.now());
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await sleep(hold);
        inFlight--;
        release();
      };
      const t0 = Date.now();
      const tasks: Promise<void>[] = [];
      for (let i = 0; i < 30; i++) tasks.push(work(budgets[i % 3]!, (i * 53) % 160, 20 + ((i * 37) % 60)));
      await Promise.all(tasks);
      const elapsed = Date.now() - t0;
      expect(starts).toHaveLength(30);
      expect(maxInAnySecond(starts)).toBeLessThanOrEqual(limit.rps);
      expect(maxInFlight).toBeLessThanOrEqual(limit.concurrency);
      expect(maxInFlight).toBeGreaterThan(1); // the budget is used, not serialised
      // 30 starts at 8 per second need at least three full windows.
      expect(elapsed).toBeGreaterThanOrEqual(3000);
    });
  });

  describe('when the first requests reach the server late', () => {
    it('keeps the next ones a full second behind them at the server', async () => {
      // A log of admission times would admit the second burst 1 s after the first was
      // admitted, i.e. only 0.6 s after the server saw it.
      const limit = { rps: 5, concurrency: 20 };
      const budget = new RedisRequestBudget({
        redis: clients[0]!,
        prefix,
        connection: 'c6',
        limit,
        leaseTtlMs: 5000,
      });
      const serverStarts: number[] = [];
      const work = async (i: number) => {
        const release = await budget.acquire();
        await sleep(i < 5 ? 400 : 0);
        serverStarts.push(Date.now());
        await sleep(10);
        release();
      };
      await Promise.all(Array.from({ length: 10 }, (_, i) => work(i)));
      expect(serverStarts).toHaveLength(10);
      expect(maxInAnySecond(serverStarts)).toBeLessThanOrEqual(limit.rps);
    });
  });

  describe('when the API answered 429', () => {
    it('makes every process wait Retry-After before the next start', async () => {
      const limit = { rps: 100, concurrency: 10 };
      const a = new RedisRequestBudget({
        redis: clients[0]!,
        prefix,
        connection: 'c2',
        limit,
        leaseTtlMs: 5000,
      });
      const b = new RedisRequestBudget({
        redis: clients[1]!,
        prefix,
        connection: 'c2',
        limit,
        leaseTtlMs: 5000,
      });
      (await a.acquire())();
      await a.onRateLimited(400);
      const t0 = Date.now();
      const release = await b.acquire();
      release();
      expect(Date.now() - t0).toBeGreaterThanOrEqual(350);
    });

    it('never shortens a longer block', async () => {
      const limit = { rps: 100, concurrency: 10 };
      const a = new RedisRequestBudget({
        redis: clients[0]!,
        prefix,
        connection: 'c3',
        limit,
        leaseTtlMs: 5000,
      });
      await a.onRateLimited(500);
      await a.onRateLimited(10);
      const t0 = Date.now();
      (await a.acquire())();
      expect(Date.now() - t0).toBeGreaterThanOrEqual(400);
    });
  });

  describe('when a process dies holding a lease', () => {
    it('frees the slot once the lease expires', async () => {
      const limit = { rps: 100, concurrency: 1 };
      const deadRedis = await connectRedis();
      const dead = new RedisRequestBudget({
        redis: deadRedis,
        prefix,
        connection: 'c4',
        limit,
        leaseTtlMs: 300,
      });
      const alive = new RedisRequestBudget({
        redis: clients[1]!,
        prefix,
        connection: 'c4',
        limit,
        leaseTtlMs: 300,
      });
      await dead.acquire(); // never released
      deadRedis.disconnect(); // the process is gone: nobody renews its lease
      const t0 = Date.now();
      const release = await alive.acquire();
      const waited = Date.now() - t0;
      release();
      expect(waited).toBeGreaterThanOrEqual(200);
      expect(waited).toBeLessThan(3000);
    });
  });

  describe('when a request lasts longer than a lease lives (a long streamed answer)', () => {
    it('keeps its lease, so the concurrency holds until it is released', async () => {
      const limit = { rps: 100, concurrency: 1 };
      const streaming = new RedisRequestBudget({
        redis: clients[0]!,
        prefix,
        connection: 'c6',
        limit,
        leaseTtlMs: 300,
      });
      const other = new RedisRequestBudget({
        redis: clients[1]!,
        prefix,
        connection: 'c6',
        limit,
        leaseTtlMs: 300,
      });
      const release = await streaming.acquire();
      const t0 = Date.now();
      const waiting = other.acquire().then((r) => ({ r, waited: Date.now() - t0 }));
      await sleep(1200); // four lease lives
      release();
      const { r, waited } = await waiting;
      r();
      expect(waited).toBeGreaterThanOrEqual(1150);
    });
  });

  describe('when the caller gives up', () => {
    it('rejects a waiting acquire on abort and keeps serving others', async () => {
      const limit = { rps: 100, concurrency: 1 };
      const b = new RedisRequestBudget({
        redis: clients[2]!,
        prefix,
        connection: 'c5',
        limit,
        leaseTtlMs: 5000,
      });
      const held = await b.acquire();
      const controller = new AbortController();
      const waiting = b.acquire(controller.signal);
      let waitingSettled = false;
      waiting.then(
        () => (waitingSettled = true),
        () => (waitingSettled = true),
      );
      // a second waiter queued behind the first in this process gives up at once, not when the first does
      const controller2 = new AbortController();
      const queued = b.acquire(controller2.signal);
      setTimeout(() => controller2.abort(new Error('stop 2')), 30);
      await expect(queued).rejects.toThrow('stop 2');
      expect(waitingSettled).toBe(false);
      controller.abort(new Error('stop'));
      await expect(waiting).rejects.toThrow('stop');
      held();
      const next = await b.acquire();
      next();
      expect(await b.inFlight()).toBe(0);
    });
  });
});
