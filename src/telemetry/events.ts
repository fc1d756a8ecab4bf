import { scrubPersonal, scrubSecrets } from '../logger.js';
import { recordJobFailedForGood } from './metrics.js';

/** Where a condition applies; absent fields do not apply (e.g. no company for a group-level job). */
export interface ConditionScope {
  readonly connection?: string;
  /** Company CNPJ, or `group`. */
  readonly company?: string;
  readonly resource?: string;
}

/** A job that failed for good. */
export interface JobFailure extends ConditionScope {
  readonly queue: string;
  readonly jobId?: string;
  /** Its last error, one line, secrets scrubbed. */
  readonly detail: string;
}

/** Receives the events a person may need to hear about (the webhook notifier of src/alerts/notify.ts). */
export interface OpsEventSink {
  jobFailedForGood(e: JobFailure): void;
  /** The API rejected the token of `connection` (401). */
  tokenRejected(e: { readonly connection: string; readonly detail: string }): void;
}

/** An error as one short line without secrets or anything shaped like a CPF, for messages that leave the process. */
function oneLineDetail(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return scrubPersonal(scrubSecrets(text.replace(/\s+/g, ' ').trim())).slice(0, 500);
}

/** The code of the error the sync raises for a rejected token (its own event covers it). */
const TOKEN_REJECTED_CODE = 'invalid_service_token';

/**
 * The events of one runtime and the sink that hears them (the worker's webhook notifier, when
 * configured). One per runtime, so two runtimes in one process notify their own sinks.
 */
export class OpsEvents {
  #sink: OpsEventSink | undefined;

  /** Installs the sink; returns the function that removes it. */
  install(next: OpsEventSink): () => void {
    this.#sink = next;
    return () => {
      if (this.#sink === next) this.#sink = undefined;
    };
  }

  /** Reports a job of `queue` that failed for good (no attempt left, or a permanent error). */
  jobFailedForGood(queue: string, job: { id?: string; data?: unknown } | undefined, err: unknown): void {
    const scope = Object.fromEntries(
      (['connection', 'company', 'resource'] as const).flatMap((key) => {
        const v = (job?.data as Record<string, unknown> | null | undefined)?.[key];
        return typeof v === 'string' && v !== '' ? [[key, v]] : [];
      }),
    ) as ConditionScope;
    recordJobFailedForGood({ queue, resource: scope.resource });
    // Every job of a connection whose token was rejected fails; one token message says it all.
    if ((err as { code?: unknown } | undefined)?.code === TOKEN_REJECTED_CODE) return;
    const detail = oneLineDetail(err);
    this.#sink?.jobFailedForGood({ queue, ...(job?.id ? { jobId: job.id } : {}), ...scope, detail });
  }

  /** Reports that the API rejected the token of `connection` (401). */
  tokenRejected(connection: string, err: unknown): void {
    this.#sink?.tokenRejected({ connection, detail: oneLineDetail(err) });
  }
}
