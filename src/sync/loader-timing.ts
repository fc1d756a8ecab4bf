/**
 * Timing of the warehouse work of a load — each COPY batch into staging and each merge —
 * published on a `node:diagnostics_channel` so a profiler or the benchmark (bench/) can
 * tell how long the sync spends writing. Nothing is published, and nothing but a
 * subscriber check is done, while nobody listens.
 */
import { channel } from 'node:diagnostics_channel';
import { performance } from 'node:perf_hooks';

/** Name of the channel every span is published on when it ends. */
export const LOADER_TIMING_CHANNEL = 'punchline:warehouse-load';

/** One finished span of warehouse work, as published. */
export interface LoaderTiming {
  /** What ran: `copy:<table>` (a staging batch) or `merge:<table>`. */
  readonly loader: string;
  /** Start, `performance.now()` of the process (ms). */
  readonly startMs: number;
  /** Wall time until the database finished it (ms). */
  readonly durationMs: number;
  /** False when it failed. */
  readonly ok: boolean;
}

const timings = channel(LOADER_TIMING_CHANNEL);

/** Publishes the span of `work` (started now) when it settles; returns `work` unchanged. */
export function publishLoadSpan<T>(loader: string, work: Promise<T>): Promise<T> {
  if (!timings.hasSubscribers) return work;
  const startMs = performance.now();
  const end = (ok: boolean) => timings.publish({ loader, startMs, durationMs: performance.now() - startMs, ok } satisfies LoaderTiming);
  work.then(
    () => end(true),
    () => end(false),
  );
  return work;
}
