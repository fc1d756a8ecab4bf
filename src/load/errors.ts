/**
 * Errors of the sync. Permanent ones extend BullMQ's UnrecoverableError, which BullMQ
 * recognises by class, so a job fails at once instead of burning its attempts
 * (docs/architecture.md "Failure handling"); they carry a `code` like every `PunchlineError`.
 */
import { UnrecoverableError } from 'bullmq';
import { PunchlineError } from '../util/errors.js';
import type { Removal } from '../plan/job-data.js';

/** A permanent sync failure: the job fails without retrying. */
export class PermanentSyncError extends UnrecoverableError {
  override readonly name: string = 'PermanentSyncError';
  constructor(
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message);
    if (options?.cause !== undefined) this.cause = options.cause;
  }
}

/**
 * spec 1.4 rule 4: a record's `company` block names another company (CNPJ `found`) than the
 * one asked for (`expected`): rather than file rows under the wrong company, the window fails.
 */
export class CompanyMismatchError extends PermanentSyncError {
  override readonly name = 'CompanyMismatchError';
  readonly expected: string;
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

/** spec §5: the connection's token was rejected (401) when a command checked it before queueing anything. */
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
 * An answer would remove most of a window's live rows, or all (an empty or cut answer from a
 * glitching source looks just like everything deleted). Nothing was applied; the next attempt
 * applies the removal only if its answer would remove the same (`refused` is kept in job data).
 */
export class SuspiciousAnswerError extends PunchlineError<'suspicious_answer'> {
  override readonly name = 'SuspiciousAnswerError';
  constructor(
    resource: string,
    readonly refused: readonly Removal[],
    previous?: readonly Removal[],
  ) {
    const what = refused
      .map((r) => `${r.removing} of the window's ${r.live} live ${r.table} rows`)
      .join(', ');
    const before = previous?.length
      ? `; the previous attempt's answer differed (${previous.map((r) => `${r.removing} of ${r.live} ${r.table}`).join(', ')})`
      : '';
    super(
      'suspicious_answer',
      `${resource}: the answer would remove ${what}${before}; nothing was removed, the next attempt reads the window again and removes only if its answer agrees`,
    );
  }
}
