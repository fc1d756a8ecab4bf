/** Options, hooks and per-call overrides of {@link ApiClient} (docs/client.md "Reference"). */
import type { DriftWatch } from './drift.js';
import type { RateLimitListener, RequestLimiter } from './limiter.js';

/** Observation points for metrics and logs. Events never carry the token. Errors thrown by hooks are ignored. */
export interface ClientHooks {
  /** An HTTP attempt is about to start (after the limiter admitted it). */
  onRequest?(e: { endpoint: string; method: string; attempt: number }): void;
  /** An HTTP attempt ended: HTTP status, or `network`/`timeout` when no response arrived. */
  onResponse?(e: {
    endpoint: string;
    method: string;
    status: number | 'network' | 'timeout';
    durationMs: number;
    bytes: number;
    attempt: number;
    code?: string;
  }): void;
  /** A failed attempt will be retried after `delayMs`. */
  onRetry?(e: { endpoint: string; attempt: number; delayMs: number; reason: string }): void;
  /** The API answered 429. */
  onRateLimited?(e: { endpoint: string; retryAfterMs: number }): void;
}

/** Options of {@link ApiClient}. */
export interface ClientOptions {
  /** API root; `/customer/v2/...` paths are appended (a path prefix in it is kept). */
  baseUrl: string;
  /** The `apiServiceToken` (spec §5), sent only in that header. */
  token: string;
  /** Per-attempt timeout in ms: the wait for the headers, and the whole body of an answer read whole. Default 30 000. */
  timeoutMs?: number;
  /** Longest pause between two chunks of a body, in ms. Default `timeoutMs`. */
  bodyIdleTimeoutMs?: number;
  /** A streamed answer, headers to last byte, must be complete within this many ms (`timeout` after). Default 600 000. */
  answerDeadlineMs?: number;
  /** Most bytes of one streamed answer; past it the read stops with `answer_too_large` (retryable). Default 1 GiB. */
  maxAnswerBytes?: number;
  /** Most bytes of one element of a streamed list; a larger one is skipped unread (`element_too_large`). Default 32 MiB. */
  maxElementBytes?: number;
  /** Attempts for transient failures, first try included. Default 6. */
  maxAttempts?: number;
  /** Largest body read whole (not a streamed list), in bytes; past it the read stops with `response_too_large`. Default 64 MiB. */
  maxResponseBytes?: number;
  /** Admission per HTTP attempt, and 429 notification when it implements `onRateLimited`. */
  limiter?: RequestLimiter & Partial<RateLimitListener>;
  /** Metric and log hooks. */
  hooks?: ClientHooks;
  /** Wait `Retry-After` and retry on 429 (default true); false throws `rate_limited` at once. */
  retryRateLimited?: boolean;
  /** 429 answers waited out per call before giving up with `rate_limited`. Default 10. */
  maxRateLimitRetries?: number;
  /** A `Retry-After` longer than this (ms) is not waited out in-process: `rate_limited` is thrown. Default 300 000. */
  maxRetryAfterMs?: number;
  /** First backoff cap in ms (full jitter, doubling per retry). Default 500. */
  retryBaseMs?: number;
  /** Largest backoff cap in ms. Default 30 000. */
  retryMaxDelayMs?: number;
  /** Sleep used between attempts (injectable for tests); must reject when `signal` aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Random source in [0, 1) for jitter (injectable for tests). */
  random?: () => number;
  /** Clock for HTTP-date `Retry-After` values, in epoch ms. */
  now?: () => number;
  /** undici pool size (sockets kept alive to the API). Default 16. */
  connections?: number;
  /** Hears the schema drift of the answers (src/api/drift.ts); none is reported without it. */
  drift?: DriftWatch;
}

/** Per-call overrides. */
export interface CallOptions {
  /** Aborts the call, including a pending retry wait; the abort reason is rethrown as is. */
  signal?: AbortSignal;
  /** Overrides {@link ClientOptions.maxAttempts}. */
  maxAttempts?: number;
  /** Overrides {@link ClientOptions.timeoutMs}. */
  timeoutMs?: number;
  /** Told of each HTTP attempt of this call, once admitted (a job counts its requests with it). */
  onAttempt?: () => void;
}
