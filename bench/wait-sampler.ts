/**
 * Samples what the backfill's Postgres backends are doing while it runs: every 100 ms,
 * each backend active on a statement of the run's schema is counted under its wait
 * event (`Lock:transactionid`, `IO:DataFileRead`, ...) or `CPU` when it waits on
 * nothing. The shares tell whether loader time is spent computing, on I/O or on locks.
 * It also counts the samples in which a backend of another database was active: the
 * Postgres CPU figures count every `postgres` process, so such work inflates them.
 */
import type pg from 'pg';

/** What the sampler saw. */
export interface WaitSamples {
  /** Samples per wait event of the run's backends. */
  readonly waits: Record<string, number>;
  /** Samples taken. */
  readonly samples: number;
  /** Samples in which at least one client backend of another database was active. */
  readonly otherDatabases: number;
}

/** A running sampler. */
export interface WaitSampler {
  /** Stops sampling; returns what it saw. */
  stop(): Promise<WaitSamples>;
}

/** Starts sampling the backends working on `schema`. */
export function sampleWaits(pool: pg.Pool, schema: string, everyMs = 100): WaitSampler {
  const counts: Record<string, number> = {};
  let samples = 0;
  let otherDatabases = 0;
  let running = true;
  const pattern = `%"${schema}"%`;
  const loop = (async () => {
    while (running) {
      try {
        const { rows } = await pool.query<{ wait: string; ours: boolean }>(
          `select coalesce(wait_event_type || ':' || wait_event, 'CPU') as wait, query like $1 as ours
             from pg_stat_activity
            where state = 'active' and pid <> pg_backend_pid()
              and (query like $1 or (backend_type = 'client backend' and datname is distinct from current_database()))`,
          [pattern],
        );
        samples += 1;
        for (const r of rows) if (r.ours) counts[r.wait] = (counts[r.wait] ?? 0) + 1;
        if (rows.some((r) => !r.ours)) otherDatabases += 1;
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
      return { waits: counts, samples, otherDatabases };
    },
  };
}
