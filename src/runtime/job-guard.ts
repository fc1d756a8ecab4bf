/**
 * What happens around every job so that routine faults heal without a person. A job is put back in
 * the queue, delayed, without using an attempt (BullMQ's `moveToDelayed` + `DelayedError`), when:
 * - its connection is paused after a 401 (connection-pause.ts): it waits until about the next token
 *   re-check; a 401 met by the job itself pauses the connection first;
 * - its connection is rate limited: the API's `Retry-After`, capped by `API_MAX_RETRY_AFTER_MS`,
 *   delays only this connection's jobs (its request budget, shared by every worker, holds its
 *   requests meanwhile); other connections keep their slots;
 * - the warehouse is unreachable: the job first waits for it in-process (warehouse-gate.ts).
 * None of these is the job's fault, so none may fail a window for good.
 */
import { DelayedError, type Job } from 'bullmq';
import { apiErrorHas, isApiError } from '../api/errors.js';
import { scrubSecrets } from '../logger.js';
import { tickMs } from '../connections/connection-pause.js';
import { isWarehouseUnavailable } from './warehouse-gate.js';
import { jobLogger } from './job-log.js';
import { IN_PROCESS_RETRY_AFTER_MS } from '../connections/rate-limit-wait.js';
import { budgetKeys } from '../connections/request-budget.js';
import type { SyncRuntime } from './runtime.js';

/** The error itself or the one it wraps, when `is` holds for it. */
function found<E>(err: unknown, is: (e: unknown) => e is E): E | undefined {
  if (is(err)) return err;
  const cause = (err as { cause?: unknown } | null)?.cause;
  return is(cause) ? cause : undefined;
}

/** Up to 10% more, so jobs delayed together do not all wake in the same millisecond. */
const jitter = (ms: number): number => Math.round(ms * (1 + Math.random() * 0.1));

/**
 * Runs `run` for `job` under the rules of the file comment. Resolves with its result, or
 * undefined when a paused connection's job is skipped (`skipWhenPaused`: schedule ticks, the
 * next tick plans anyway); throws `DelayedError` when the job was put back to wait.
 */
export async function guardJob<T>(
  rt: SyncRuntime,
  job: Job,
  token: string | undefined,
  run: () => Promise<T>,
  options: { skipWhenPaused?: boolean } = {},
): Promise<T | undefined> {
  const { pauses, warehouse } = rt.healing;
  const raw = (job.data as { connection?: unknown } | null)?.connection;
  const connection = typeof raw === 'string' ? raw : undefined;
  const logger = jobLogger(rt.logger, job);

  const putBack = async (delayMs: number, why: string, err?: unknown): Promise<never> => {
    // Without a worker token (a job run by hand) there is nothing to move: fail as before.
    if (token === undefined) throw err ?? new Error(why);
    const ms = Math.max(250, Math.round(delayMs));
    logger.warn({ delayMs: ms, attempt: job.attemptsMade }, `job put back to wait (no attempt used): ${why}`);
    await job.moveToDelayed(Date.now() + ms, token);
    throw new DelayedError(why);
  };
  // Until just after the next re-check can have run (a process looks for it every tickMs).
  const untilCheck = (nextCheckAt: string): number =>
    jitter(Math.max(1000, Date.parse(nextCheckAt) - Date.now() + tickMs(rt.config.apiTokenRecheckMs)));

  if (connection !== undefined) {
    const pause = await pauses.state(connection);
    if (pause && options.skipWhenPaused) {
      logger.info({ reason: pause.reason }, 'connection paused: skipped');
      return undefined;
    }
    if (pause)
      await putBack(
        untilCheck(pause.nextCheckAt),
        `connection "${connection}" is paused (${pause.code}) until its token works again`,
      );
    const blockedMs = await rt.redis.pttl(budgetKeys(rt.config.queuePrefix, connection).blocked);
    if (blockedMs > IN_PROCESS_RETRY_AFTER_MS)
      await putBack(jitter(blockedMs), `connection "${connection}" is rate limited by the API`);
  }

  try {
    return await run();
  } catch (err) {
    const auth = found(err, (e) => apiErrorHas(e, 'pauses'));
    if (auth && connection !== undefined) {
      const pause = await pauses.pause(connection, auth.code, scrubSecrets(auth.message));
      logger.error(
        { err: auth, nextCheckAt: pause.nextCheckAt },
        'the API rejected the token: connection paused',
      );
      rt.events.tokenRejected(connection, auth);
      if (options.skipWhenPaused) return undefined;
      return putBack(
        untilCheck(pause.nextCheckAt),
        `connection "${connection}" is paused (${auth.code})`,
        err,
      );
    }
    const limited = found(err, (e) => isApiError(e, 'rate_limited'));
    if (limited && connection !== undefined) {
      const ms = Math.min(limited.retryAfterMs, rt.config.apiMaxRetryAfterMs);
      return putBack(
        jitter(ms),
        `the API asked connection "${connection}" to wait ${limited.retryAfterMs} ms (Retry-After)`,
        err,
      );
    }
    if (isWarehouseUnavailable(err)) {
      const up = await warehouse.wait(err);
      return putBack(
        up ? 250 : rt.config.warehouseRetryMaxMs,
        up ? 'the warehouse was unreachable and is back' : 'the warehouse is unreachable',
        err,
      );
    }
    throw err;
  }
}
