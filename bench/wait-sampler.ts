/**
 * Samples what the backfill's Postgres backends are doing while it runs: every 100 ms,
 * each backend active on a statement of the run's schema is counted under its wait
 * event (`Lock:transactionid`, `IO:DataFileRead`, ...) or `CPU` when it waits on
 * nothing. The shares tell whether loader time is spent computing, on I/O or on locks.
 * It also counts the samples in which a backend of another database was active: the
 * Postgres CPU figures count every `postgres` process, so such work inflates them. And it
 * reads the CPU of the backends of the checks after each window from /proc, to tell
 * the database's loading from its checking.
 */
import type pg from 'pg';
import { cpuSeconds } from './proc-stats.js';

/** `application_name` of the backfill's check connections (src/runtime/runtime.ts). */
const CHECKS_APPLICATION = 'punchline-checks';

/** What the sampler saw. */
export interface WaitSamples {
  /** Samples per wait event of the run's backends. */
  readonly waits: Record<string, number>;
  /** Samples taken. */
  readonly samples: number;
  /** Samples in which at least one client backend of another database was active. */
  readonly otherDatabases: number;
  /**
   * CPU-seconds of the backends of the checks after each window (the sync's check pool,
   * `punchline-checks`): the last reading of each, so what one spent after the last
   * sample before it ended is missing (and counted as the loads').
   */
  readonly checksCpuS: number;
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
  const checks = new Map<number, number>();
  const readCheck = (pid: number): void => {
    const cpu = cpuSeconds(pid);
    if (cpu !== undefined) checks.set(pid, Math.max(checks.get(pid) ?? 0, cpu));
  };
  const loop = (async () => {
    while (running) {
      try {
        // One statement a sample: the sampler's own queries count as Postgres CPU.
        const { rows } = await pool.query<{
          pid: number;
          wait: string;
          ours: boolean;
          other: boolean;
          check: boolean;
        }>(
          `select pid, coalesce(wait_event_type || ':' || wait_event, 'CPU') as wait, application_name = $2 as check,
                  state = 'active' and query like $1 as ours,
                  state = 'active' and backend_type = 'client backend' and datname is distinct from current_database() as other
             from pg_stat_activity
            where pid <> pg_backend_pid()
              and (application_name = $2 or (state = 'active' and (query like $1 or (backend_type = 'client backend' and datname is distinct from current_database()))))`,
          [pattern, CHECKS_APPLICATION],
        );
        samples += 1;
        for (const r of rows) {
          if (r.check) readCheck(r.pid);
          if (r.ours) counts[r.wait] = (counts[r.wait] ?? 0) + 1;
        }
        if (rows.some((r) => r.other && !r.ours)) otherDatabases += 1;
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
      for (const pid of checks.keys()) readCheck(pid);
      return {
        waits: counts,
        samples,
        otherDatabases,
        checksCpuS: [...checks.values()].reduce((a, b) => a + b, 0),
      };
    },
  };
}
