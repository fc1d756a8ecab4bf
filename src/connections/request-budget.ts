/**
 * The request budget of one connection, shared by every process through Redis: at most `rps`
 * starts in any sliding second, `concurrency` in flight, and after a 429 no start before
 * Retry-After. The reasons at length: docs/architecture.md "The request budget". In short:
 * - A sliding log (a sorted set of recent requests, at most `rps`), not windows: BullMQ's
 *   `{max, duration}` limiter and window counters let 2×rps through at an edge.
 * - A request counts from its admission until one second after its answer: the server gets
 *   it after we admit it and answers before we see the answer, so two requests not both
 *   counted are over a second apart there too, whatever the delays (scheduling, GC, network).
 *   The price: a sustained rate of `rps × 1 s / (1 s + latency)`.
 * - In-flight requests are leases scored by expiry; a release moves one into the log, and a
 *   dead process's lease expires after the request timeout, so a crash cannot shrink the
 *   budget for good. Time is Redis `TIME`, so host clocks do not matter.
 * - Waiters of one process queue locally and only the head polls Redis: one poll loop, not one per job.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { ApiError } from '../api/errors.js';
import { abortableSleep, type RateLimitListener, type RequestLimiter } from '../api/limiter.js';
import type { RateLimit } from '../config.js';
import { LuaCommand } from '../util/lua-command.js';

/** Options of {@link RedisRequestBudget}. */
export interface RequestBudgetOptions {
  /** Redis connection (not closed by the budget). */
  readonly redis: Redis;
  /** Key prefix, e.g. the queue prefix; keys are `<prefix>:budget:<connection>:*`. */
  readonly prefix: string;
  /** Connection name. */
  readonly connection: string;
  /** The budget. */
  readonly limit: RateLimit;
  /** How long a lease lives without release (longer than any request: timeout + margin), ms. */
  readonly leaseTtlMs: number;
  /** Extra width of the window beyond one second, ms (default 1: millisecond ties count as the same second). */
  readonly guardMs?: number;
  /** Poll interval while the budget waits for an answer of another process, ms (default 25; answers of this process wake it at once). */
  readonly pollMs?: number;
  /** Injected sleep (tests). */
  readonly sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Longest block a 429 may put on the connection, ms (`API_MAX_RETRY_AFTER_MS`; default unbounded). */
  readonly maxBlockMs?: number;
  /** Longest block `acquire` waits out; past it, it throws a `rate_limited` ApiError so the job can give its slot back (default unbounded). */
  readonly maxWaitMs?: number;
}

// KEYS: leases zset (member → expiry), finished zset (member → time of the answer),
// blocked-until key. ARGV: rps, concurrency, windowMs, leaseTtlMs, member.
// Returns {1, 0} when admitted, {0, waitMs} when the caller must wait; waitMs -1 means
// "until an answer arrives".
const ACQUIRE = new LuaCommand(
  'budgetAcquire',
  `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local rps = tonumber(ARGV[1])
local conc = tonumber(ARGV[2])
local windowMs = tonumber(ARGV[3])
local ttl = tonumber(ARGV[4])
local blocked = tonumber(redis.call('GET', KEYS[3]) or '0')
if blocked > now then return {0, blocked - now} end
-- leases of dead processes: count them as answered when they expired
local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'WITHSCORES')
for i = 1, #expired, 2 do
  redis.call('ZADD', KEYS[2], expired[i + 1], expired[i])
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - windowMs)
local inFlight = redis.call('ZCARD', KEYS[1])
if inFlight >= conc then return {0, -1} end
local finished = redis.call('ZCARD', KEYS[2])
if inFlight + finished >= rps then
  if finished == 0 then return {0, -1} end
  local oldest = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  return {0, tonumber(oldest[2]) + windowMs - now + 1}
end
redis.call('ZADD', KEYS[1], now + ttl, ARGV[5])
redis.call('PEXPIRE', KEYS[1], ttl + windowMs)
return {1, 0}
`,
  3,
);

// KEYS: leases zset, finished zset. ARGV: member, windowMs.
// Moves a lease into the log of answered requests (unless it already expired there).
const RELEASE = new LuaCommand(
  'budgetRelease',
  `
if redis.call('ZREM', KEYS[1], ARGV[1]) == 1 then
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  redis.call('ZADD', KEYS[2], now, ARGV[1])
  redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[2]) * 2)
end
return 1
`,
  2,
);

// KEYS: leases zset. ARGV: ttl, members... Pushes the expiry of the leases still held
// (a streamed answer can take longer to read than one lease lives).
const RENEW = new LuaCommand(
  'budgetRenew',
  `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[1])
for i = 2, #ARGV do
  redis.call('ZADD', KEYS[1], 'XX', now + ttl, ARGV[i])
end
redis.call('PEXPIRE', KEYS[1], ttl + 2000)
return 1
`,
  1,
);

// KEYS: blocked-until key. ARGV: waitMs. Extends the block, never shortens it.
const BLOCK = new LuaCommand(
  'budgetBlock',
  `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local untilMs = now + tonumber(ARGV[1])
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if current < untilMs then
  redis.call('SET', KEYS[1], untilMs, 'PX', tonumber(ARGV[1]))
end
return untilMs
`,
  1,
);

/** The Redis keys of a connection's budget. */
export function budgetKeys(
  prefix: string,
  connection: string,
): { leases: string; finished: string; blocked: string } {
  const base = `${prefix}:budget:${connection}`;
  return { leases: `${base}:leases`, finished: `${base}:finished`, blocked: `${base}:blocked` };
}

/** A connection's request budget shared through Redis (see the file comment). */
export class RedisRequestBudget implements RequestLimiter, RateLimitListener {
  private readonly keys: ReturnType<typeof budgetKeys>;
  private readonly windowMs: number;
  private readonly pollMs: number;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private queue: Promise<void> = Promise.resolve();
  private wake: (() => void) | undefined;
  private counter = 0;
  private readonly self = randomUUID().slice(0, 8);
  /** Leases this process holds, renewed while held. */
  private readonly held = new Set<string>();
  private renewer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly options: RequestBudgetOptions) {
    this.keys = budgetKeys(options.prefix, options.connection);
    this.windowMs = 1000 + (options.guardMs ?? 1);
    this.pollMs = options.pollMs ?? 25;
    this.sleep = options.sleep ?? abortableSleep;
  }

  /** Waits until a request may start; resolves with its release function. */
  acquire(signal?: AbortSignal): Promise<() => void> {
    // Local FIFO: each acquirer waits for the one before it, so one poller per process.
    const turn = this.queue.then(() => this.admit(signal));
    this.queue = turn.then(
      () => undefined,
      () => undefined,
    );
    if (!signal) return turn;
    // An abort rejects at once, even while earlier acquirers still hold the queue.
    return new Promise((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
      // An admission that comes after the abort is given back at once.
      turn
        .finally(() => signal.removeEventListener('abort', onAbort))
        .then((release) => (signal.aborted ? release() : resolve(release)), reject);
    });
  }

  /** Blocks every process of the connection for `retryAfterMs` (a 429 answer). */
  async onRateLimited(retryAfterMs: number): Promise<void> {
    const ms = Math.max(1, Math.ceil(Math.min(retryAfterMs, this.options.maxBlockMs ?? Infinity)));
    await BLOCK.run(this.options.redis, this.keys.blocked, ms);
  }

  /** Requests currently holding a lease (all processes), for tests and status. */
  async inFlight(): Promise<number> {
    const r = this.options.redis;
    const t = await r.time();
    const now = Number(t[0]) * 1000 + Math.floor(Number(t[1]) / 1000);
    return r.zcount(this.keys.leases, `(${now}`, '+inf');
  }

  private async admit(signal?: AbortSignal): Promise<() => void> {
    const { redis, limit, leaseTtlMs } = this.options;
    for (;;) {
      signal?.throwIfAborted();
      const member = `${this.self}-${process.pid}-${++this.counter}`;
      const { leases, finished, blocked } = this.keys;
      const args = [limit.rps, limit.concurrency, this.windowMs, leaseTtlMs, member];
      const [ok, waitMs] = (await ACQUIRE.run(redis, leases, finished, blocked, ...args)) as [number, number];
      if (ok === 1) return this.releaser(member);
      if (waitMs > (this.options.maxWaitMs ?? Infinity)) {
        throw new ApiError('rate_limited', {
          endpoint: `budget of ${this.options.connection}`,
          retryAfterMs: waitMs,
        });
      }
      if (waitMs >= 0) {
        await this.sleep(waitMs, signal);
      } else {
        // Waiting for an answer: wake on a local release, or poll for other processes'.
        await Promise.race([
          this.sleep(this.pollMs + Math.floor(Math.random() * this.pollMs), signal),
          new Promise<void>((resolve) => {
            this.wake = resolve;
          }),
        ]);
        this.wake = undefined;
      }
    }
  }

  /** Renews the held leases every third of their life, while any is held. */
  private hold(member: string): void {
    this.held.add(member);
    if (this.renewer) return;
    const { redis, leaseTtlMs } = this.options;
    this.renewer = setInterval(
      () => {
        if (this.held.size === 0) return;
        RENEW.run(redis, this.keys.leases, leaseTtlMs, ...this.held).catch(() => undefined);
      },
      Math.max(50, Math.floor(leaseTtlMs / 3)),
    );
    this.renewer.unref();
  }

  private releaser(member: string): () => void {
    let released = false;
    this.hold(member);
    return () => {
      if (released) return;
      released = true;
      this.held.delete(member);
      if (this.held.size === 0 && this.renewer) {
        clearInterval(this.renewer);
        this.renewer = undefined;
      }
      RELEASE.run(this.options.redis, this.keys.leases, this.keys.finished, member, this.windowMs)
        .then(() => this.wake?.())
        .catch(() => undefined); // the lease expires on its own if Redis is unreachable
    };
  }
}
