/**
 * What a job processor (jobs/*.ts) receives: its validated data, the connection, the load
 * engine's context and a few helpers. Processors read like recipes — plan, read, load,
 * record — and the mechanics stay in src/ (the runtime, the plan, the load engine).
 */
import type { Scope } from '../api/client.js';
import type { Connection } from '../config.js';
import type { TableStats } from '../warehouse/merge.js';
import type { EngineContext } from '../load/context.js';
import type { SyncJobData } from '../plan/job-data.js';
import type { Resource } from '../plan/resources.js';
import type { DateWindow } from '../plan/windows.js';

/** Everything a processor needs. */
export interface JobContext {
  readonly data: SyncJobData;
  /** The sync_runs row of this run. */
  readonly runId: number;
  /** The connection of the job (with its token, which never leaves the process). */
  readonly connection: Connection;
  readonly engine: EngineContext;
  /** Aborted when the worker shuts down. */
  readonly signal?: AbortSignal;
  /** spec 1.4: scope parameters of the job's company (undefined for the token's own company). */
  readonly scope: Scope | undefined;
  /** The job's window: there is one for every windowed resource. */
  readonly window: DateWindow | undefined;
  /** IANA zone of the job company's date-times (spec 1.2). */
  readonly timezone: string;
  /** Adds what a load wrote, and the records it rejected (for `sync_runs` and metrics). */
  count(tables: Record<string, TableStats>, rejected?: number): void;
  /** Queues the follow-up resource's job for `w` (e.g. attachments of the absences just loaded). */
  queueFollowUp(resource: Resource, w: DateWindow): Promise<void>;
}

/** A job processor: one per kind of work, in jobs/. */
export type JobProcessor = (ctx: JobContext) => Promise<void>;
