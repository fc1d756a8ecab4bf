/**
 * src/connections/ — what each API connection may do now, shared across processes through
 * Redis: its client, request budget, rate-limit waits, the pause after a refused token.
 *
 * One API client per connection and process, admitted by the connection's shared request
 * budget and observed by the metrics of src/telemetry/metrics.ts; each job counts its own
 * requests (`onAttempt` of the call options, src/runtime/run-job.ts).
 */
import type { Redis } from 'ioredis';
import { ApiClient } from '../api/client.js';
import type { DriftWatch } from '../api/drift.js';
import type { Config, Connection } from '../config.js';
import { observeWaits } from '../api/limiter.js';
import {
  recordApiRequest,
  recordApiRetry,
  recordBudgetWait,
  recordRateLimitWait,
} from '../telemetry/metrics.js';
import { IN_PROCESS_RETRY_AFTER_MS } from './rate-limit-wait.js';
import { RedisRequestBudget } from './request-budget.js';

/** A connection's client and its budget. */
export interface ConnectionClient {
  /** The connection (name, URL, token, time zone, budget). */
  readonly connection: Connection;
  readonly api: ApiClient;
  readonly budget: RedisRequestBudget;
}

/** Creates the client of `connection`, sharing its budget through `redis`; its drift goes to `drift`. */
export function createConnectionClient(
  config: Pick<Config, 'queuePrefix' | Extract<keyof Config, `api${string}`>>,
  connection: Connection,
  redis: Redis,
  drift?: DriftWatch,
): ConnectionClient {
  const budget = new RedisRequestBudget({
    redis,
    prefix: config.queuePrefix,
    connection: connection.name,
    limit: connection.rateLimit,
    // A lease must outlive its request: a margin beyond the request timeout.
    leaseTtlMs: config.apiTimeoutMs + 5_000,
    // A long Retry-After blocks the connection (every worker), capped, and frees job slots (rate-limit-wait.ts).
    maxBlockMs: config.apiMaxRetryAfterMs,
    maxWaitMs: IN_PROCESS_RETRY_AFTER_MS,
  });
  const name = connection.name;
  const api = new ApiClient({
    baseUrl: connection.baseUrl,
    token: connection.token,
    timeoutMs: config.apiTimeoutMs,
    maxAttempts: config.apiMaxAttempts,
    // Bounds the answers read whole (an audit photo, an error body); lists are streamed.
    maxResponseBytes: config.apiMaxResponseBytes,
    // Bounds of streamed answers and of each element (a trickling, endless or huge answer).
    bodyIdleTimeoutMs: config.apiBodyIdleTimeoutMs,
    answerDeadlineMs: config.apiAnswerDeadlineMs,
    maxAnswerBytes: config.apiMaxAnswerBytes,
    maxElementBytes: config.apiMaxElementBytes,
    maxRetryAfterMs: Math.min(IN_PROCESS_RETRY_AFTER_MS, config.apiMaxRetryAfterMs),
    limiter: observeWaits(budget, (ms) => recordBudgetWait({ connection: name, ms })),
    connections: Math.max(2, connection.rateLimit.concurrency),
    ...(drift ? { drift } : {}),
    hooks: {
      onResponse: (e) =>
        recordApiRequest({
          connection: name,
          endpoint: e.endpoint,
          status: e.status,
          durationMs: e.durationMs,
          bytes: e.bytes,
        }),
      onRetry: (e) => recordApiRetry({ connection: name, endpoint: e.endpoint, reason: e.reason }),
      onRateLimited: (e) => recordRateLimitWait({ connection: name, ms: e.retryAfterMs }),
    },
  });
  return { connection, api, budget };
}
