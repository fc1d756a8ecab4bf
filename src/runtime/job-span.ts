/**
 * The span of one job (docs/operations.md "Tracing"): everything a worker does for a job,
 * its guard included, so the job's API requests and loads nest under it. A job put back
 * to wait (BullMQ's `DelayedError`) is no failure. The attributes name the job — queue,
 * id, connection name, resource, company CNPJ, window — and count its work, nothing else.
 */
import { DelayedError, type Job } from 'bullmq';
import { withSpan, type SpanAttributes } from '../telemetry/tracing.js';

const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const count = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);

/** The attributes of a job's span before it runs (pure). */
export function jobSpanAttributes(
  job: Pick<Job, 'id' | 'name' | 'queueName' | 'attemptsMade' | 'data'>,
): SpanAttributes {
  const d = (job.data ?? {}) as Record<string, unknown>;
  return {
    'messaging.system': 'bullmq',
    'messaging.operation.type': 'process',
    'messaging.operation.name': 'process',
    'messaging.destination.name': job.queueName,
    'messaging.message.id': job.id,
    'punchline.connection': text(d.connection),
    'punchline.resource': text(d.resource) ?? text(d.kind),
    'punchline.company': text(d.company),
    'punchline.window.start': text(d.from),
    'punchline.window.end': text(d.to),
    'punchline.attempt': job.attemptsMade + 1,
  };
}

/** The counts a finished job returned (requests, rows), as span attributes (pure). */
export function jobResultAttributes(result: unknown): SpanAttributes {
  const r = (result ?? {}) as Record<string, unknown>;
  return {
    'punchline.requests': count(r.requests),
    'punchline.rows.inserted': count(r.inserted),
    'punchline.rows.updated': count(r.updated),
    'punchline.rows.deleted': count(r.deleted),
  };
}

/** Runs `work` for `job` inside the job's span (without tracing, just runs it). */
export function traceJob<T>(job: Job, work: () => Promise<T>): Promise<T> {
  const attributes = jobSpanAttributes(job);
  const name = `${job.queueName} ${text(attributes['punchline.resource']) ?? job.name}`;
  return withSpan(
    name,
    'consumer',
    attributes,
    async (span) => {
      const result = await work();
      span?.set(jobResultAttributes(result));
      return result;
    },
    (err) => !(err instanceof DelayedError),
  );
}
