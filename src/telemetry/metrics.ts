/**
 * src/telemetry/ — what punchline reports about itself: Prometheus metrics, the events an
 * alert hears, tracing spans.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { DriftLabels } from './drift-labels.js';

/**
 * The registry served at `/metrics`: this process's API traffic, retries, waits, rows loaded and jobs
 * (one Prometheus target is one process). The dashboard and alert rules under deploy/ query these
 * names (a test checks them). The process's own figures (memory, event loop) are collected by the ops
 * server's registry (src/http/scrape-metrics.ts), so importing this file starts nothing.
 */
export const metricsRegistry = new Registry();

const registers = [metricsRegistry];
const counter = <L extends string>(name: string, labels: readonly L[], help: string) =>
  new Counter({ name, help, labelNames: labels, registers });
const histogram = <L extends string>(name: string, labels: readonly L[], buckets: number[], help: string) =>
  new Histogram({ name, help, labelNames: labels, buckets, registers });

const apiRequests = counter(
  'punchline_api_requests_total',
  ['connection', 'endpoint', 'status'],
  'Customer API v2 requests by connection, endpoint and HTTP status (or network/timeout)',
);
const apiLatency = histogram(
  'punchline_api_request_duration_seconds',
  ['connection', 'endpoint'],
  [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  'Customer API v2 request latency in seconds',
);
const apiBytes = counter(
  'punchline_api_response_bytes_total',
  ['connection', 'endpoint'],
  'Bytes of Customer API v2 response bodies',
);
const apiRetries = counter(
  'punchline_api_retries_total',
  ['connection', 'endpoint', 'reason'],
  'Retries of Customer API v2 requests by reason (403 generic, 5xx, timeout, network, 429)',
);
const rateLimitWaits = counter(
  'punchline_api_rate_limit_wait_seconds_total',
  ['connection'],
  'Seconds spent waiting on 429 Retry-After answers',
);
const budgetWaits = histogram(
  'punchline_api_budget_wait_seconds',
  ['connection'],
  [0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  "Seconds each API request waited for admission by its connection's shared request budget",
);
const rowsLoaded = counter(
  'punchline_rows_loaded_total',
  ['table', 'action'],
  'Warehouse rows written by table and action (inserted, updated, deleted)',
);
const jobs = counter(
  'punchline_jobs_total',
  ['queue', 'state'],
  'Jobs finished by this process, by queue and final state',
);
const jobsFailedForGood = counter(
  'punchline_jobs_failed_permanently_total',
  ['queue', 'resource'],
  'Jobs that failed for good in this process (attempts exhausted or a permanent error), ' +
    'by queue and resource',
);
const jobDuration = histogram(
  'punchline_job_duration_seconds',
  ['queue'],
  [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
  'Duration of jobs run by this process, in seconds',
);
const lastSuccess = new Gauge({
  name: 'punchline_last_sync_success_timestamp_seconds',
  help: 'Unix time of the last successful sync per company and resource (seen by this process)',
  labelNames: ['company', 'resource'] as const,
  registers,
});
const rejectedRecords = counter(
  'punchline_rejected_records_total',
  ['resource', 'endpoint'],
  'Records an API answer held that could not be stored (see the rejected_records table), ' +
    'by resource and endpoint.',
);
const schemaDrift = counter(
  'punchline_schema_drift_total',
  ['kind', 'field'],
  'What the API sent that its spec does not say, reported once per runtime: kind new_value (a value of a ' +
    'source-owned list not seen before), unknown_field, or too_many (past 100 of one field). The value is ' +
    'never a label; field is "other" past 50 series or when it is not a field path (the schema_drift table has them).',
);
const qualityCheckErrors = counter(
  'punchline_quality_check_errors_total',
  ['resource'],
  'Runs of the reconciliation checks after a sync run that could not complete (the run itself succeeded; ' +
    'punchline verify runs them again), by resource synced.',
);
const driftLabels = new DriftLabels();

/** One API request finished (any outcome). */
export function recordApiRequest(e: {
  connection: string;
  endpoint: string;
  status: number | string;
  durationMs: number;
  bytes: number;
}): void {
  apiRequests.inc({ connection: e.connection, endpoint: e.endpoint, status: String(e.status) });
  apiLatency.observe({ connection: e.connection, endpoint: e.endpoint }, e.durationMs / 1000);
  if (e.bytes > 0) apiBytes.inc({ connection: e.connection, endpoint: e.endpoint }, e.bytes);
}

/** The client is about to retry a request. */
export function recordApiRetry(e: { connection: string; endpoint: string; reason: string }): void {
  apiRetries.inc(e);
}

/** A 429 made this connection wait `ms`. */
export function recordRateLimitWait(e: { connection: string; ms: number }): void {
  rateLimitWaits.inc({ connection: e.connection }, e.ms / 1000);
}

/** An API request of `connection` waited `ms` for the request budget to admit it. */
export function recordBudgetWait(e: { connection: string; ms: number }): void {
  budgetWaits.observe({ connection: e.connection }, e.ms / 1000);
}

/** A job failed for good: no attempt is left, or its error is permanent. */
export function recordJobFailedForGood(e: { queue: string; resource?: string }): void {
  jobsFailedForGood.inc({ queue: e.queue, resource: e.resource ?? 'none' });
}

/** Rows written to a warehouse table. */
export function recordRowsLoaded(e: {
  table: string;
  action: 'inserted' | 'updated' | 'deleted';
  count: number;
}): void {
  if (e.count > 0) rowsLoaded.inc({ table: e.table, action: e.action }, e.count);
}

/** A job finished in this process. */
export function recordJob(e: { queue: string; state: 'completed' | 'failed'; durationMs: number }): void {
  jobs.inc({ queue: e.queue, state: e.state });
  jobDuration.observe({ queue: e.queue }, e.durationMs / 1000);
}

/** A company × resource synced successfully at `at`. */
export function recordSyncSuccess(e: { company: string; resource: string; at: Date }): void {
  lastSuccess.set({ company: e.company, resource: e.resource }, e.at.getTime() / 1000);
}

/** Counts the records of a load that could not be stored. */
export function recordRejected(e: { resource: string; endpoint: string; count: number }): void {
  if (e.count > 0) rejectedRecords.inc({ resource: e.resource, endpoint: e.endpoint }, e.count);
}

/** Counts one piece of schema drift, under labels from a bounded set (drift-labels.ts). */
export function recordSchemaDrift(e: { kind: string; field: string }): void {
  schemaDrift.inc(driftLabels.of(e));
}

/** Counts the checks after a run of `resource` that could not complete. */
export function recordQualityCheckError(e: { resource: string }): void {
  qualityCheckErrors.inc({ resource: e.resource });
}
