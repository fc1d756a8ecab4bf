/**
 * A connection paused because the API rejected its token (401, spec §5): retrying at once
 * cannot help, failing the jobs for good would lose them. Its jobs wait in the queue
 * (src/runtime/job-guard.ts) while one cheap request re-checks the token slowly
 * (src/runtime/token-recheck.ts); the first check that passes resumes them. The state is in
 * Redis, so N workers make one re-check per period between them: a claim moves the due time
 * atomically and only its caller probes. Times come from Redis `TIME`, not host clocks.
 */
import type { Redis } from 'ioredis';
import { LuaCommand } from '../util/lua-command.js';

/** State of one API connection: `paused`, with its details, when the API rejected its token. */
export interface ConnectionHealth extends Partial<Omit<ConnectionPause, 'connection' | 'checks'>> {
  readonly state: 'ok' | 'paused';
}

/** A paused connection as workers, `/healthz` and `status` see it. */
export interface ConnectionPause {
  /** Connection name (never the token). */
  readonly connection: string;
  /** Machine-readable cause: the API's `error.code`. */
  readonly code: string;
  /** One line saying what was rejected, tokens scrubbed. */
  readonly reason: string;
  /** When the connection paused (ISO 8601). */
  readonly since: string;
  /** When the token is checked again (ISO 8601). */
  readonly nextCheckAt: string;
  /** Re-checks made so far. */
  readonly checks: number;
}

/** Options of {@link ConnectionPauses}. */
export interface ConnectionPausesOptions {
  /** Redis connection (not closed here). */
  readonly redis: Redis;
  /** Queue prefix: keys are `<prefix>:connection:<name>:pause`. */
  readonly prefix: string;
  /** Period of the token re-check (`API_TOKEN_RECHECK_MS`). */
  readonly recheckMs: number;
}

// KEYS: pause hash. ARGV: code, reason, recheckMs. A second 401 keeps `since` and the
// due time of the next check, so concurrent failures do not postpone it.
const PAUSE = new LuaCommand(
  'connectionPause',
  `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('HSETNX', KEYS[1], 'since', now)
redis.call('HSETNX', KEYS[1], 'nextCheckAt', now + tonumber(ARGV[3]))
redis.call('HSETNX', KEYS[1], 'checks', 0)
redis.call('HSET', KEYS[1], 'code', ARGV[1], 'reason', ARGV[2])
return now
`,
  1,
);

// KEYS: pause hash. ARGV: recheckMs. Returns 1 to exactly one caller once the check is due.
const CLAIM_RECHECK = new LuaCommand(
  'connectionClaimRecheck',
  `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local due = tonumber(redis.call('HGET', KEYS[1], 'nextCheckAt') or '0')
if due > now then return 0 end
redis.call('HSET', KEYS[1], 'nextCheckAt', now + tonumber(ARGV[1]))
redis.call('HINCRBY', KEYS[1], 'checks', 1)
return 1
`,
  1,
);

/** How often a process looks for a due re-check: a fraction of the period, between 250 ms and 5 s. */
export function tickMs(recheckMs: number): number {
  return Math.min(5_000, Math.max(250, Math.floor(recheckMs / 4)));
}

/** The Redis key of a connection's pause. */
function pauseKey(prefix: string, connection: string): string {
  return `${prefix}:connection:${connection}:pause`;
}

/** Paused connections shared through Redis (see the file comment). */
export class ConnectionPauses {
  constructor(private readonly options: ConnectionPausesOptions) {}

  /** The pause of `connection`, or null when it runs. */
  async state(connection: string): Promise<ConnectionPause | null> {
    const h = await this.options.redis.hgetall(pauseKey(this.options.prefix, connection));
    if (!h.since) return null;
    return {
      connection,
      code: h.code ?? 'invalid_service_token',
      reason: h.reason ?? '',
      since: new Date(Number(h.since)).toISOString(),
      nextCheckAt: new Date(Number(h.nextCheckAt)).toISOString(),
      checks: Number(h.checks ?? 0),
    };
  }

  /** The pauses among `connections`. */
  async paused(connections: readonly string[]): Promise<ConnectionPause[]> {
    const all = await Promise.all(connections.map((c) => this.state(c)));
    return all.filter((p): p is ConnectionPause => p !== null);
  }

  /** Every connection of `connections` by name, `ok` or `paused` with its reason (`/healthz`). */
  async health(connections: readonly string[]): Promise<Record<string, ConnectionHealth>> {
    const states = await Promise.all(connections.map((c) => this.state(c)));
    return Object.fromEntries(
      connections.map((name, i) => {
        const p = states[i];
        return [
          name,
          p
            ? { state: 'paused', code: p.code, reason: p.reason, since: p.since, nextCheckAt: p.nextCheckAt }
            : { state: 'ok' },
        ];
      }),
    );
  }

  /** Pauses `connection` (or records a newer reason on an existing pause). */
  async pause(connection: string, code: string, reason: string): Promise<ConnectionPause> {
    await PAUSE.run(
      this.options.redis,
      pauseKey(this.options.prefix, connection),
      code,
      reason,
      this.options.recheckMs,
    );
    return (await this.state(connection))!;
  }

  /** Resumes `connection`; true when it was paused. */
  async resume(connection: string): Promise<boolean> {
    return (await this.options.redis.del(pauseKey(this.options.prefix, connection))) > 0;
  }

  /** True for exactly one caller (of all processes) per period, when `connection` is paused and its check is due. */
  async claimRecheck(connection: string): Promise<boolean> {
    const r = await CLAIM_RECHECK.run(
      this.options.redis,
      pauseKey(this.options.prefix, connection),
      this.options.recheckMs,
    );
    return r === 1;
  }
}
