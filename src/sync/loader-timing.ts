/**
 * Timing of the warehouse loader calls, published on a `node:diagnostics_channel` so a
 * profiler or the benchmark (bench/) can tell how long the sync spends loading. Nothing
 * is published, and nothing but a subscriber check is done, while nobody listens.
 */
import { channel } from 'node:diagnostics_channel';
import { performance } from 'node:perf_hooks';
import type { SyncLoaders } from './job-context.js';

/** Name of the channel every loader call is published on when it ends. */
export const LOADER_TIMING_CHANNEL = 'punchline:warehouse-load';

/** One finished loader call, as published. */
export interface LoaderTiming {
  /** Loader name, e.g. `loadPunches`. */
  readonly loader: keyof SyncLoaders;
  /** Start, `performance.now()` of the process (ms). */
  readonly startMs: number;
  /** Wall time of the call: row building, pool wait and the transaction (ms). */
  readonly durationMs: number;
  /** False when the loader threw. */
  readonly ok: boolean;
}

const timings = channel(LOADER_TIMING_CHANNEL);

/** Wraps every loader so that its calls are published on {@link LOADER_TIMING_CHANNEL}. */
export function withLoaderTiming(loaders: SyncLoaders): SyncLoaders {
  const timed: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(loaders) as [keyof SyncLoaders, (...args: unknown[]) => Promise<unknown>][]) {
    timed[name] = async (...args: unknown[]) => {
      if (!timings.hasSubscribers) return fn(...args);
      const startMs = performance.now();
      let ok = false;
      try {
        const result = await fn(...args);
        ok = true;
        return result;
      } finally {
        const t: LoaderTiming = { loader: name, startMs, durationMs: performance.now() - startMs, ok };
        timings.publish(t);
      }
    };
  }
  return timed as unknown as SyncLoaders;
}
