/**
 * Samples what the backfill's Postgres backends are doing while it runs: every 100 ms,
 * each backend active on a statement of the run's schema is counted under its wait
 * event (`Lock:transactionid`, `IO:DataFileRead`, ...) or `CPU` when it waits on
 * nothing. The shares tell whether loader time is spent computing, on I/O or on locks.
 */
import type pg from 'pg';

/** A running sampler. */
export interface WaitSampler {
  /** Stops sampling; returns samples per wait event. */
  stop(): Promise<Record<string, number>>;
}

/** Starts sampling the backends working on `schema`. */
export function sampleWaits(pool: pg.Pool, schema: string, everyMs = 100): WaitSampler {
  const counts: Record<string, number> = {};
  let running = true;
  const pattern = `%"${schema}"%`;
  const loop = (async () => {
    while (running) {
      try {
        const { rows } = await pool.query<{ wait: string }>(
          `select coalesce(wait_event_type || ':' || wait_event, 'CPU') as wait
             from pg_stat_activity
            where state = 'active' and pid <> pg_backend_pid() and query like $1`,
          [pattern],
        );
        for (const r of rows) counts[r.wait] = (counts[r.wait] ?? 0) + 1;
      } catch {
        // a failed sample is only a missing sample
      }
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return counts;
    },
  };
}
