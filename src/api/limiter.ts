/**
 * The seam between the API client and the request budget of a connection (docs/architecture.md "The request budget"):
 * the client asks for admission before every HTTP attempt and reports 429 answers, so a
 * shared limiter can slow down every process of the connection.
 */

/** Admission for one HTTP attempt; resolve with a release function once the request may start. */
export interface RequestLimiter {
  acquire(signal?: AbortSignal): Promise<() => void>;
}

/** Told when the API answered 429, so a shared limiter can slow every process of the connection. */
export interface RateLimitListener {
  onRateLimited(retryAfterMs: number): void | Promise<void>;
}

/** A limiter that admits every attempt at once (tests, one-off scripts). */
export const unlimited: RequestLimiter = {
  acquire: () => Promise.resolve(() => undefined),
};
