/**
 * Riding out a warehouse outage (a Postgres restart, a failover): nothing about the window is
 * wrong, so the job waits for the database in-process, with a logged, doubling back-off up to a
 * bound, then goes back to the queue without using an attempt (job-guard.ts) and starts over (each
 * load is one idempotent transaction). In-process first: every job needs the same database, so a
 * slot waiting takes nothing from the others, and the job resumes within a second of the database
 * coming back. Bounded: a worker asked to stop must not hang on an outage, and past the bound the
 * job sleeps in Redis, not in memory. One probe loop serves every job of the process.
 */
import { ApiError } from '../api/errors.js';
import type { Logger } from '../logger.js';
import { NETWORK_CODES } from './redis.js';
/**
 * Postgres SQLSTATEs of an unavailable server: class 08 (connection exception), 57P01-03
 * (administrator or crash shutdown, cannot connect now: a restart), 53300 (too many
 * connections, transient while clients reconnect after a restart).
 */
const PG_CODES = /^(08...|57P0[123]|53300)$/;
/** What node-postgres says when a connection ends under a query or cannot be opened in time. */
const PG_MESSAGES =
  /connection terminated|connection ended unexpectedly|client has encountered a connection error|timeout exceeded when trying to connect|client was closed and is not queryable/i;

/**
 * True when `err` (or what it wraps) says the warehouse is unreachable rather than that a
 * statement is wrong. API errors never count, though they may wrap the same socket codes.
 */
export function isWarehouseUnavailable(err: unknown, depth = 0): boolean {
  if (depth > 5 || typeof err !== 'object' || err === null || err instanceof ApiError) return false;
  const e = err as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  if (typeof e.code === 'string' && (NETWORK_CODES.has(e.code) || PG_CODES.test(e.code))) return true;
  if (typeof e.message === 'string' && PG_MESSAGES.test(e.message)) return true;
  if (Array.isArray(e.errors) && e.errors.some((x) => isWarehouseUnavailable(x, depth + 1))) return true;
  return isWarehouseUnavailable(e.cause, depth + 1);
}

/** Options of {@link WarehouseGate}; `sleep` and `now` are injected by tests. */
interface WarehouseGateOptions {
  /** Runs the probe (`select 1`). */
  readonly db: { query(sql: string): Promise<unknown> };
  readonly logger: Pick<Logger, 'warn' | 'info'>;
  /** Longest in-process wait before giving up for now (`WAREHOUSE_WAIT_MS`). */
  readonly maxWaitMs: number;
  /** Longest pause between two probes; the pause doubles from 500 ms up to it (`WAREHOUSE_RETRY_MAX_MS`). */
  readonly maxDelayMs: number;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly now?: () => number;
}

/** Waits for an unreachable warehouse; concurrent callers share one probe loop. */
export class WarehouseGate {
  private waiting: Promise<boolean> | undefined;

  constructor(private readonly options: WarehouseGateOptions) {}

  /** True once the warehouse answers, false if not by `maxWaitMs`; logs `cause` at the first probe. */
  wait(cause: unknown): Promise<boolean> {
    this.waiting ??= this.probe(cause).finally(() => {
      this.waiting = undefined;
    });
    return this.waiting;
  }

  private async probe(cause: unknown): Promise<boolean> {
    const { db, logger, maxWaitMs, maxDelayMs } = this.options;
    const now = this.options.now ?? Date.now;
    const sleep = this.options.sleep ?? ((ms: number) => new Promise((r) => setTimeout(r, ms)));
    const started = now();
    let delay = Math.min(500, maxDelayMs);
    let last = cause;
    for (let check = 1; ; check++) {
      const waited = now() - started;
      if (waited >= maxWaitMs) {
        logger.warn(
          { waitedMs: waited, err: last },
          'warehouse still unreachable; jobs go back to the queue and wait there',
        );
        return false;
      }
      const pause = Math.min(delay, maxWaitMs - waited);
      logger.warn({ check, nextCheckMs: pause, err: last }, 'warehouse unreachable; waiting for it');
      await sleep(pause);
      delay = Math.min(delay * 2, maxDelayMs);
      try {
        await db.query('select 1');
        logger.info({ waitedMs: now() - started, checks: check }, 'warehouse reachable again');
        return true;
      } catch (err) {
        last = err;
      }
    }
  }
}
