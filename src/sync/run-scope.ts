/**
 * Per-run counters carried through async calls, so the one shared API client of a
 * connection can attribute each HTTP attempt to the job run that made it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** Counters of one job run. */
export interface RunCounters {
  /** HTTP attempts started. */
  requests: number;
}

const storage = new AsyncLocalStorage<RunCounters>();

/** Runs `fn` with fresh counters; returns its result and the counters. */
export async function withRunCounters<T>(fn: () => Promise<T>): Promise<{ value: T; counters: RunCounters }>;
export async function withRunCounters<T>(fn: () => Promise<T>, counters: RunCounters): Promise<T>;
export async function withRunCounters<T>(fn: () => Promise<T>, counters?: RunCounters): Promise<unknown> {
  if (counters) return storage.run(counters, fn);
  const fresh: RunCounters = { requests: 0 };
  const value = await storage.run(fresh, fn);
  return { value, counters: fresh };
}

/** Counts one HTTP attempt for the current run, if any. */
export function countRequest(): void {
  const c = storage.getStore();
  if (c) c.requests += 1;
}
