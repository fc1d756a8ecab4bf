/**
 * Errors of the sync. Permanent ones extend BullMQ's UnrecoverableError so a job fails
 * at once instead of burning its attempts (docs/architecture.md "Failure handling").
 */
import { UnrecoverableError } from 'bullmq';

/** A permanent sync failure: the job fails without retrying. */
export class PermanentSyncError extends UnrecoverableError {
  override readonly name: string = 'PermanentSyncError';
  /** Machine-readable code. */
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message);
    this.code = code;
    if (options?.cause !== undefined) (this as { cause?: unknown }).cause = options.cause;
  }
}

/**
 * spec 1.4 rule 4: a record's `company` block names another company than
 * the one asked for. Loading it would file rows under the wrong company, so the window
 * fails instead of inserting silently.
 */
export class CompanyMismatchError extends PermanentSyncError {
  override readonly name = 'CompanyMismatchError';
  /** CNPJ asked for. */
  readonly expected: string;
  /** CNPJ found in the record. */
  readonly found: string;
  constructor(init: { endpoint: string; expected: string; found: string; where: string }) {
    super(
      'company_mismatch',
      `${init.endpoint}: ${init.where} belongs to company ${init.found}, but company ${init.expected} was asked for (spec 1.4 rule 4); nothing of this window was loaded`,
    );
    this.expected = init.expected;
    this.found = init.found;
  }
}

/** spec §5: the connection's token was rejected (401); its jobs stop instead of retrying. */
export class ConnectionAuthError extends PermanentSyncError {
  override readonly name = 'ConnectionAuthError';
  constructor(connection: string, cause?: unknown) {
    super(
      'invalid_service_token',
      `the API rejected the token of connection "${connection}" (401 invalid_service_token): check SERVICE_API_TOKEN or the connection's token in PUNCHLINE_CONFIG`,
      { cause },
    );
  }
}

/** A job names a connection this process has no configuration for. */
export class UnknownConnectionError extends PermanentSyncError {
  override readonly name = 'UnknownConnectionError';
  constructor(connection: string, known: readonly string[]) {
    super(
      'unknown_connection',
      `job names connection "${connection}", which this worker does not configure (configured: ${known.join(', ') || 'none'})`,
    );
  }
}

/** Job data that does not match the job schema (a foreign or corrupted job). */
export class InvalidJobError extends PermanentSyncError {
  override readonly name = 'InvalidJobError';
  constructor(detail: string) {
    super('invalid_job', `invalid job data: ${detail}`);
  }
}

/**
 * Two answers for one window disagree, and the first would have removed most of the
 * window's rows (an empty or truncated answer from a glitching source looks just like
 * everything deleted). Nothing was applied; the job retries later.
 */
export class SuspiciousAnswerError extends Error {
  override readonly name = 'SuspiciousAnswerError';
  readonly code = 'suspicious_answer';
  constructor(resource: string, first: { table: string; live: number; removing: number }, second: { table: string; live: number; removing: number }) {
    super(
      `${resource}: the answer would remove ${first.removing} of the window's ${first.live} live ${first.table} rows, and reading it again gave another answer (${second.removing} of ${second.live} ${second.table} rows); nothing was applied, the job will retry`,
    );
  }
}
