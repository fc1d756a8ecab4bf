/**
 * Where a rate-limit wait happens: a short `Retry-After` inside the job, which keeps its place;
 * a longer one frees the worker slot: the client and the shared budget give up with
 * `rate_limited`, and job-guard.ts puts the job back in the queue, delayed, so the slot
 * serves other connections meanwhile.
 */

/** Longest rate-limit wait held inside a running job, ms. */
export const IN_PROCESS_RETRY_AFTER_MS = 5_000;
