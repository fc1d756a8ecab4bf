/**
 * What a job processor (jobs/*.ts) receives: its validated data, the connection's API
 * client, the warehouse, and a few helpers. Processors read like recipes — plan, read,
 * load, record — and the mechanics stay in src/ (the runtime, the plan, the load engine).
 */
import type { ApiClient, CallOptions, Scope } from '../api/client.js';
import type { Connection } from '../config.js';
import type { Logger } from '../logger.js';
import type { TableStats } from '../warehouse/merge.js';
import type { EngineContext } from '../load/context.js';
import type { SyncJobData } from '../plan/job-data.js';
import type { Resource } from '../plan/resources.js';
import type { DateWindow } from '../plan/windows.js';

/** Everything a processor needs. */
export interface JobContext {
  /** Validated job data. */
  readonly data: SyncJobData;
  /** The sync_runs row of this run. */
  readonly runId: number;
  /** The connection of the job (with its token, which never leaves the process). */
  readonly connection: Connection;
  /** The connection's API client (shared request budget, metrics hooks). */
  readonly api: ApiClient;
  /** The load engine's context for this job. */
  readonly engine: EngineContext;
  /** Job logger (bound to job id and resource). */
  readonly logger: Logger;
  /** Aborted when the worker shuts down. */
  readonly signal?: AbortSignal;
  /** spec 1.4: scope parameters of the job's company (undefined for the token's own company). */
  scope(): Scope | undefined;
  /** The job's company CNPJ (throws for group-level jobs). */
  company(): string;
  /** The job's window (throws for jobs without one). */
  window(): DateWindow;
  /** IANA zone of the job company's date-times (spec 1.2). */
  timezone(): string;
  /** Call options for reading `w` (fewer attempts on multi-day windows, which split instead). */
  call(w?: DateWindow): CallOptions;
  /** Adds what a load wrote, and the records it rejected (for `sync_runs` and metrics). */
  count(tables: Record<string, TableStats>, rejected?: number): void;
  /** Queues the follow-up resource's job for `w` (e.g. attachments of the absences just loaded). */
  queueFollowUp(resource: Resource, w: DateWindow): Promise<void>;
}

/** A job processor: one per kind of work, in jobs/. */
export type JobProcessor = (ctx: JobContext) => Promise<void>;
