/** Errors the emulator answers with, in the envelope of spec 1.1. */
import { PunchlineError } from '../util/errors.js';

/** An error response of the emulated API: HTTP status, `code` (spec §7, or a documented emulator choice), message. */
export class ApiFault extends PunchlineError {
  override readonly name = 'ApiFault';

  constructor(
    readonly status: number,
    code: string,
    message: string,
    /** spec 1.1: names of missing required fields, beside `error`; null sends `"payload_data_required": null` (queued fault `range-exceeded`). */
    readonly payloadDataRequired?: readonly string[] | null,
    /** Extra response headers (`Retry-After`). */
    readonly headers: Record<string, string> = {},
  ) {
    super(code, message);
  }

  /** The error envelope of spec 1.1 (key order fixed). */
  envelope(): Record<string, unknown> {
    const body: Record<string, unknown> = { error: { code: this.code, message: this.message } };
    if (this.payloadDataRequired !== undefined)
      body.payload_data_required = this.payloadDataRequired === null ? null : [...this.payloadDataRequired];
    return body;
  }
}

/** Default error code for list parameters of the wrong syntax (spec §7 leaves it unshown). */
export const INVALID_LIST_PARAMETER = 'invalid_list_parameter';

/** spec 1.3: 422 for a list parameter sent without `[]`, as JSON or comma-separated. */
export function badListSyntax(code: string, message: string): ApiFault {
  return new ApiFault(422, code, message);
}

/** spec 1.1: 422 `validation_failed` listing the missing required fields. */
export function missingFields(fields: readonly string[]): ApiFault {
  return new ApiFault(
    422,
    'validation_failed',
    `The following fields are required: ${fields.join(', ')}.`,
    fields,
  );
}

/** 422 `validation_failed` for a present but malformed field (no `payload_data_required`). */
export function invalidField(field: string, expectation: string): ApiFault {
  return new ApiFault(422, 'validation_failed', `The field ${field} ${expectation}.`);
}
