/**
 * Timing of the warehouse work of a load — each COPY batch into staging and each merge —
 * published on a `node:diagnostics_channel` for a profiler or the benchmark (bench/), and
 * traced as a database span when tracing is on (docs/operations.md "Tracing"). While nobody
 * listens, nothing but two checks is done.
 */
import { channel } from 'node:diagnostics_channel';
import { performance } from 'node:perf_hooks';
import { startSpan, tracingOn, type OpenSpan } from '../telemetry/tracing.js';

/** Name of the channel every span is published on when it ends. */
export const LOADER_TIMING_CHANNEL = 'punchline:warehouse-load';

/** One finished span of warehouse work, as published: `copy:<table>` (a staging batch) or `merge:<table>`. */
export interface LoaderTiming {
  readonly loader: string;
  /** Start, `performance.now()` of the process (ms). */
  readonly startMs: number;
  /** Wall time until the database finished it (ms). */
  readonly durationMs: number;
  readonly ok: boolean;
}

const timings = channel(LOADER_TIMING_CHANNEL);

/** The database span of `loader` (`copy:t` → `COPY t`), in OpenTelemetry's names: the table, no data. */
function databaseSpan(loader: string): OpenSpan | undefined {
  const [op, table] = loader.split(':') as [string, string];
  const operation = op.toUpperCase();
  return startSpan(`${operation} ${table}`, 'client', {
    'db.system': 'postgresql',
    'db.system.name': 'postgresql',
    'db.operation.name': operation,
    'db.collection.name': table,
  });
}

/** Publishes (and traces) the span of `work` (started now) when it settles; returns `work` unchanged. */
export function publishLoadSpan<T>(loader: string, work: Promise<T>): Promise<T> {
  const traced = tracingOn();
  if (!timings.hasSubscribers && !traced) return work;
  const span = traced ? databaseSpan(loader) : undefined;
  const startMs = performance.now();
  const end = (err?: unknown) => {
    span?.end(err);
    if (timings.hasSubscribers)
      timings.publish({
        loader,
        startMs,
        durationMs: performance.now() - startMs,
        ok: err === undefined,
      } satisfies LoaderTiming);
  };
  work.then(
    () => end(),
    (err: unknown) => end(err ?? new Error('load step failed')),
  );
  return work;
}
