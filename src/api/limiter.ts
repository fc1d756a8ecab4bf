/**
 * The seam between the API client and the request budget of a connection (docs/architecture.md
 * "The request budget"): the client asks for admission before every HTTP attempt and reports
 * 429 answers, so a shared limiter can slow down every process of the connection.
 */
import { setTimeout as delay } from 'node:timers/promises';

/** Admission for one HTTP attempt; resolve with a release function once the request may start. */
export interface RequestLimiter {
  acquire(signal?: AbortSignal): Promise<() => void>;
}

/** Told when the API answered 429, so a shared limiter can slow every process of the connection. */
export interface RateLimitListener {
  onRateLimited(retryAfterMs: number): void | Promise<void>;
}

/** A limiter that admits every attempt at once (tests, one-off scripts). */
export const unlimited: RequestLimiter & Partial<RateLimitListener> = {
  acquire: () => Promise.resolve(() => undefined),
};

/** Sleeps `ms`, rejecting with the signal's reason when it aborts. */
export const abortableSleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  delay(ms, undefined, signal ? { signal } : {}).then(
    () => undefined,
    (err: unknown) => {
      throw signal?.aborted ? (signal.reason ?? err) : err;
    },
  );

/** `limiter` with each admission's wait (ms, 0 when at once) told to `onWait` for metrics; 429s passed on. */
export function observeWaits<L extends RequestLimiter & Partial<RateLimitListener>>(
  limiter: L,
  onWait: (ms: number) => void,
  now: () => number = () => performance.now(),
): RequestLimiter & Partial<RateLimitListener> {
  return {
    async acquire(signal) {
      const started = now();
      const release = await limiter.acquire(signal);
      onWait(Math.max(0, now() - started));
      return release;
    },
    ...(limiter.onRateLimited
      ? { onRateLimited: (retryAfterMs: number) => limiter.onRateLimited!(retryAfterMs) }
      : {}),
  };
}
