/**
 * Retry policy of the API client as pure functions: which failures are retried, how long
 * to wait (exponential backoff with full jitter), and reading `Retry-After`.
 */
import { ApiError, isApiError } from './errors.js';
import type { HttpMethod } from './endpoints.js';

/** Backoff settings. */
export interface BackoffOptions {
  /** Delay cap before jitter of the first retry, in ms. */
  baseMs: number;
  /** Largest delay cap, in ms. */
  maxMs: number;
}

/** Full-jitter exponential backoff: uniform in [0, min(max, base·2^(retry-1))); `retry` counts from 1. */
export function backoffDelay(retry: number, options: BackoffOptions, random: () => number): number {
  const cap = Math.min(options.maxMs, options.baseMs * 2 ** Math.max(0, retry - 1));
  return Math.floor(random() * cap);
}

/** A `Retry-After` header (RFC 9110 §10.2.3, seconds or an HTTP date) in ms (0 if past), or undefined. */
export function parseRetryAfter(
  header: string | readonly string[] | undefined,
  now: number,
): number | undefined {
  const value = (Array.isArray(header) ? header[0] : header)?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  // An HTTP date names a weekday and the GMT zone; a bare number with a fraction is not valid.
  if (!/[a-z]/i.test(value)) return undefined;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Why a failure is retried (metrics label), or null when it is not. */
export type RetryReason =
  'rate_limited' | 'server_error' | 'forbidden' | 'timeout' | 'network' | 'invalid_body';

/**
 * Whether a failed attempt may be retried. Reads retry every transient failure. Writes are
 * not idempotent (a punch retried could be created twice), so they retry only when the
 * request certainly did not take effect: no connection was made, or the API answered 429.
 */
export function retryReason(err: unknown, method: HttpMethod): RetryReason | null {
  if (!(err instanceof ApiError) || !err.retryable) return null;
  if (err.kind === 'rate_limited') return 'rate_limited';
  const write = method !== 'GET';
  if (isApiError(err, 'network')) return write && err.mayHaveReachedServer ? null : 'network';
  if (write) return null;
  if (err.kind === 'timeout') return 'timeout';
  if (err.kind === 'response_not_json') return 'invalid_body';
  if (err.kind === 'server_error') return err.status === 403 ? 'forbidden' : 'server_error';
  return null;
}
