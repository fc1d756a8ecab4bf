/**
 * src/telemetry/ — what punchline reports about itself: Prometheus metrics, the events an
 * alert hears, tracing spans.
 *
 * Prometheus metrics (prom-client) of one process: API traffic, retries, 429 and budget
 * waits, rows loaded, job outcomes and sync freshness. Other parts call the record*
 * functions; the ops server exposes {@link metricsRegistry} at `/metrics`. The
 * dashboard and alert rules under deploy/ query these names (a test checks them).
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { DriftLabels } from './drift-labels.js';

/** The registry served at `/metrics`. */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry, prefix: 'punchline_process_' });

const apiRequests = new Counter({
  name: 'punchline_api_requests_total',
  help: 'Customer API v2 requests by connection, endpoint and HTTP status (or network/timeout)',
  labelNames: ['connection', 'endpoint', 'status'] as const,
  registers: [metricsRegistry],
});
const apiLatency = new Histogram({
  name: 'punchline_api_request_duration_seconds',
  help: 'Customer API v2 request latency in seconds',
  labelNames: ['connection', 'endpoint'] as const,
  buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [metricsRegistry],
});
const apiBytes = new Counter({
  name: 'punchline_api_response_bytes_total',
  help: 'Bytes of Customer API v2 response bodies',
  labelNames: ['connection', 'endpoint'] as const,
  registers: [metricsRegistry],
});
const apiRetries = new Counter({
  name: 'punchline_api_retries_total',
  help: 'Retries of Customer API v2 requests by reason (403 generic, 5xx, timeout, network, 429)',
  labelNames: ['connection', 'endpoint', 'reason'] as const,
  registers: [metricsRegistry],
});
const rateLimitWaits = new Counter({
  name: 'punchline_api_rate_limit_wait_seconds_total',
  help: 'Seconds spent waiting on 429 Retry-After answers',
  labelNames: ['connection'] as const,
  registers: [metricsRegistry],
});
const budgetWaits = new Histogram({
  name: 'punchline_api_budget_wait_seconds',
  help: "Seconds each API request waited for admission by its connection's shared request budget",
  labelNames: ['connection'] as const,
  buckets: [0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  registers: [metricsRegistry],
});
const rowsLoaded = new Counter({
  name: 'punchline_rows_loaded_total',
  help: 'Warehouse rows written by table and action (inserted, updated, deleted)',
  labelNames: ['table', 'action'] as const,
  registers: [metricsRegistry],
});
const jobs = new Counter({
  name: 'punchline_jobs_total',
  help: 'Jobs finished by this process, by queue and final state',
  labelNames: ['queue', 'state'] as const,
  registers: [metricsRegistry],
});
const jobsFailedForGood = new Counter({
  name: 'punchline_jobs_failed_permanently_total',
  help: 'Jobs that failed for good in this process (attempts exhausted or a permanent error), by queue and resource',
  labelNames: ['queue', 'resource'] as const,
  registers: [metricsRegistry],
});
const jobDuration = new Histogram({
  name: 'punchline_job_duration_seconds',
  help: 'Duration of jobs run by this process, in seconds',
  labelNames: ['queue'] as const,
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
  registers: [metricsRegistry],
});
const lastSuccess = new Gauge({
  name: 'punchline_last_sync_success_timestamp_seconds',
  help: 'Unix time of the last successful sync per company and resource (seen by this process)',
  labelNames: ['company', 'resource'] as const,
  registers: [metricsRegistry],
});

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
export function recordRowsLoaded(e: { table: string; action: 'inserted' | 'updated' | 'deleted'; count: number }): void {
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

const rejectedRecords = new Counter({
  name: 'punchline_rejected_records_total',
  help: 'Records an API answer held that could not be stored (see the rejected_records table), by resource and endpoint.',
  labelNames: ['resource', 'endpoint'] as const,
  registers: [metricsRegistry],
});

const schemaDrift = new Counter({
  name: 'punchline_schema_drift_total',
  help: 'What the API sent that its spec does not say, reported once per process: kind new_value (a value of a source-owned list not seen before) or unknown_field. Field and value are "other" past 50 series or when they do not look like identifiers (the schema_drift table has them).',
  labelNames: ['kind', 'field', 'value'] as const,
  registers: [metricsRegistry],
});

/** Counts the records of a load that could not be stored. */
export function recordRejected(e: { resource: string; endpoint: string; count: number }): void {
  if (e.count > 0) rejectedRecords.inc({ resource: e.resource, endpoint: e.endpoint }, e.count);
}

const driftLabels = new DriftLabels();

/** Counts one piece of schema drift, under labels from a bounded set (drift-labels.ts). */
export function recordSchemaDrift(e: { kind: string; field: string; value: string }): void {
  schemaDrift.inc(driftLabels.of(e));
}

const qualityCheckErrors = new Counter({
  name: 'punchline_quality_check_errors_total',
  help: 'Runs of the reconciliation checks after a sync run that could not complete (the run itself succeeded; punchline verify runs them again), by resource synced.',
  labelNames: ['resource'] as const,
  registers: [metricsRegistry],
});

/** Counts the checks after a run of `resource` that could not complete. */
export function recordQualityCheckError(e: { resource: string }): void {
  qualityCheckErrors.inc({ resource: e.resource });
}
