/**
 * The fields every log line of a job carries (docs/operations.md "Logs"): the job, its
 * connection, company, resource and window, and the worker process that runs it
 * (`host:pid`, as in `sync_runs.worker`), so one search finds a window's whole story
 * across workers and attempts. A field the job has none of (a group walk's company) is
 * null, never missing.
 */
import type { Logger } from '../logger.js';
import { workerName } from './run-records.js';

/** The fields of {@link jobLogFields}. */
export interface JobLogFields {
  /** BullMQ job id. */
  readonly job: string | null;
  /** Queue of the job. */
  readonly queue: string;
  /** Connection name. */
  readonly connection: string | null;
  /** CNPJ of the company, null for group-level jobs. */
  readonly company: string | null;
  /** Resource synced, null for schedule ticks. */
  readonly resource: string | null;
  /** Window `from..to`, null for jobs without one. */
  readonly window: string | null;
  /** The process running it, `host:pid`. */
  readonly worker: string;
}

/** What a log line needs of a BullMQ job. */
export interface LoggedJob {
  readonly id?: string | undefined;
  readonly queueName: string;
  readonly data: unknown;
}

/** A string field of job data, or null (the data of a foreign job may be anything). */
function text(data: unknown, key: string): string | null {
  const value =
    typeof data === 'object' && data !== null ? (data as Record<string, unknown>)[key] : undefined;
  return typeof value === 'string' && value !== '' ? value : null;
}

/** The log fields of `job` (pure). */
export function jobLogFields(job: LoggedJob, worker: string = workerName()): JobLogFields {
  const from = text(job.data, 'from');
  const to = text(job.data, 'to');
  return {
    job: job.id ?? null,
    queue: job.queueName,
    connection: text(job.data, 'connection'),
    company: text(job.data, 'company'),
    resource: text(job.data, 'resource'),
    window: from && to ? `${from}..${to}` : null,
    worker,
  };
}

/** `logger` with the fields of `job` bound to every line. */
export function jobLogger(logger: Logger, job: LoggedJob): Logger {
  return logger.child(jobLogFields(job));
}
