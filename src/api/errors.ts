/**
 * Errors of the API client. Every error the API can answer (spec §7) has a class with a
 * literal `name` and the API's `code`; transport failures (timeouts, dropped connections,
 * oversized or malformed responses) have their own. {@link errorFromResponse} is the one
 * place that maps an error envelope (spec 1.1) onto this hierarchy, and
 * {@link isPermanent} tells the sync which failures must not be retried.
 *
 * Messages never contain the API token: server messages are scrubbed by the client
 * before they get here, and nothing here reads request headers.
 */

/** Every `error.code` of spec §7, in the spec's order. */
export const API_ERROR_CODES = [
  'invalid_service_token',
  'company_not_found',
  'date_range_exceeded',
  'validation_failed',
  'invalid_request_payload',
  'journey_not_found',
  'cost_center_not_found',
  'department_not_found',
  'unit_not_found',
  'collaborator_settings_not_found',
  'point_rule_not_found',
  'absence_type_not_found',
  'fired_type_not_found',
  'cpf_not_found',
  'collaborator_not_found',
  'collaborator_fired',
  'dismissal_date_before_admission_date',
  'date_time_greater_than_now',
  'date_begin_less_than_now',
  'invalid_photo',
  'face_recognition_failed',
  'not_found',
  'point_not_found',
  'audit_photo_not_found',
] as const;
/** An `error.code` the spec names. */
export type ApiErrorCode = (typeof API_ERROR_CODES)[number];

/** Codes of failures that did not come from an error envelope (transport, client side). */
export const CLIENT_ERROR_CODES = [
  'rate_limited',
  'server_error',
  'bad_request',
  'not_found_unknown',
  'unprocessable',
  'http_error',
  'timeout',
  'network',
  'response_invalid',
  'response_not_json',
  'response_too_large',
  'answer_too_large',
  'element_too_large',
] as const;
/** A code the client assigns itself. */
export type ClientErrorCode = (typeof CLIENT_ERROR_CODES)[number];

/** Context shared by every API error. */
export interface ApiErrorInit {
  /** Endpoint name (see endpoints.ts) the failure belongs to. */
  endpoint: string;
  /** HTTP status, when a response arrived. */
  status?: number;
  /** `error.code` from the envelope, or the client's own code. */
  code?: string;
  /** Message override (default: the class's default message). */
  message?: string;
  /** spec 1.1: names of missing required fields on 422 `validation_failed`. */
  payloadDataRequired?: readonly string[];
  /** Underlying error. */
  cause?: unknown;
}

/** Base of every error the client throws about an API call. */
export class ApiError extends Error {
  override readonly name: string = 'ApiError';
  /** Machine-readable code: the API's `error.code`, or one of {@link CLIENT_ERROR_CODES}. */
  readonly code: string;
  /** HTTP status, or undefined when no response arrived. */
  readonly status: number | undefined;
  /** Endpoint name the failure belongs to. */
  readonly endpoint: string;
  /** spec 1.1: missing required fields (422), when the API listed them. */
  readonly payloadDataRequired: readonly string[] | undefined;
  /** Whether trying the same request again later may succeed. */
  readonly retryable: boolean = false;

  constructor(init: ApiErrorInit, defaultCode = 'http_error', defaultMessage = 'request failed') {
    const text = init.message ?? defaultMessage;
    const statusPart = init.status === undefined ? '' : ` ${init.status}`;
    const code = init.code ?? defaultCode;
    super(`${init.endpoint}:${statusPart} ${code}: ${text}`, init.cause === undefined ? undefined : { cause: init.cause });
    this.code = code;
    this.status = init.status;
    this.endpoint = init.endpoint;
    this.payloadDataRequired = init.payloadDataRequired;
  }
}

/** An error that trying again later may fix (5xx, 403 generic, 429, timeouts, dropped connections). */
export abstract class TransientApiError extends ApiError {
  override readonly retryable: boolean = true;
}

// ---- spec §7: codes with their own meaning ------------------------------------------

/** spec §7 / §5 rule 4: 401 `invalid_service_token`; stop the connection, do not retry. */
export class AuthError extends ApiError {
  override readonly name = 'AuthError';
  constructor(init: ApiErrorInit) {
    super(init, 'invalid_service_token', 'the API token is missing, invalid or of an inactive company (check SERVICE_API_TOKEN)');
  }
}

/** spec 1.4 / §7: 404 `company_not_found`, a `company_national_registry` outside the group. */
export class CompanyNotFoundError extends ApiError {
  override readonly name = 'CompanyNotFoundError';
  constructor(init: ApiErrorInit) {
    super(init, 'company_not_found', 'company_national_registry is outside the accessible economic group');
  }
}

/** spec §8: 422 `date_range_exceeded`, the period is longer than 31 days (the sync splits the window). */
export class DateRangeExceededError extends ApiError {
  override readonly name = 'DateRangeExceededError';
  constructor(init: ApiErrorInit) {
    super(init, 'date_range_exceeded', 'the period is longer than 31 days');
  }
}

/** spec 1.1: 422 `validation_failed`; `payloadDataRequired` lists the missing fields. */
export class ValidationFailedError extends ApiError {
  override readonly name = 'ValidationFailedError';
  constructor(init: ApiErrorInit) {
    super(init, 'validation_failed', 'required fields are missing');
  }
}

/** spec §7: 422 `invalid_request_payload`, `description`/`name` missing or empty. */
export class InvalidRequestPayloadError extends ApiError {
  override readonly name = 'InvalidRequestPayloadError';
  constructor(init: ApiErrorInit) {
    super(init, 'invalid_request_payload', 'a required field is missing or empty');
  }
}

/**
 * spec §7: 404 for an id sent on a write that does not exist or belongs to another
 * company: `journey_not_found`, `cost_center_not_found`, `department_not_found`,
 * `unit_not_found`, `collaborator_settings_not_found`, `point_rule_not_found`,
 * `absence_type_not_found`, `fired_type_not_found`.
 */
export class ReferenceNotFoundError extends ApiError {
  override readonly name = 'ReferenceNotFoundError';
  constructor(init: ApiErrorInit) {
    super(init, 'not_found', 'a referenced id does not exist or belongs to another company');
  }
}

/** spec §7: 404 `cpf_not_found`, the CPF is not registered. */
export class CpfNotFoundError extends ApiError {
  override readonly name = 'CpfNotFoundError';
  constructor(init: ApiErrorInit) {
    super(init, 'cpf_not_found', 'the CPF is not registered');
  }
}

/** spec §7: 404 `collaborator_not_found`, no (active) collaborator of the company resolves. */
export class CollaboratorNotFoundError extends ApiError {
  override readonly name = 'CollaboratorNotFoundError';
  constructor(init: ApiErrorInit) {
    super(init, 'collaborator_not_found', 'no collaborator of the company matches');
  }
}

/** spec §3 / §7: 422 `collaborator_fired`, the only collaborator with that CPF is dismissed. */
export class CollaboratorFiredError extends ApiError {
  override readonly name = 'CollaboratorFiredError';
  constructor(init: ApiErrorInit) {
    super(init, 'collaborator_fired', 'the collaborator is dismissed');
  }
}

/** spec §7: 422 `dismissal_date_before_admission_date`. */
export class DismissalBeforeAdmissionError extends ApiError {
  override readonly name = 'DismissalBeforeAdmissionError';
  constructor(init: ApiErrorInit) {
    super(init, 'dismissal_date_before_admission_date', 'the dismissal date is earlier than the admission date');
  }
}

/** spec §7 / §8: 422 `date_time_greater_than_now`, a punch in the future. */
export class PunchInFutureError extends ApiError {
  override readonly name = 'PunchInFutureError';
  constructor(init: ApiErrorInit) {
    super(init, 'date_time_greater_than_now', 'the punch datetime is in the future');
  }
}

/** spec §7 / §8: 422 `date_begin_less_than_now`, a punch before the admission date. */
export class PunchBeforeAdmissionError extends ApiError {
  override readonly name = 'PunchBeforeAdmissionError';
  constructor(init: ApiErrorInit) {
    super(init, 'date_begin_less_than_now', 'the punch datetime is earlier than the admission date');
  }
}

/** spec §7: 403 `invalid_photo`, the image was rejected (a 403 that is not a server error). */
export class InvalidPhotoError extends ApiError {
  override readonly name = 'InvalidPhotoError';
  constructor(init: ApiErrorInit) {
    super(init, 'invalid_photo', 'the photo was rejected (no face or low quality)');
  }
}

/** spec §7: 403 `face_recognition_failed`. */
export class FaceRecognitionFailedError extends ApiError {
  override readonly name = 'FaceRecognitionFailedError';
  constructor(init: ApiErrorInit) {
    super(init, 'face_recognition_failed', 'facial photo processing failed');
  }
}

/** spec §7: 404 `not_found`, the absence does not exist or belongs to another company. */
export class AbsenceNotFoundError extends ApiError {
  override readonly name = 'AbsenceNotFoundError';
  constructor(init: ApiErrorInit) {
    super(init, 'not_found', 'the absence does not exist or belongs to another company');
  }
}

/** spec §7: 404 `point_not_found`. */
export class PointNotFoundError extends ApiError {
  override readonly name = 'PointNotFoundError';
  constructor(init: ApiErrorInit) {
    super(init, 'point_not_found', 'the punch does not exist or belongs to another company');
  }
}

/** spec §7: 404 `audit_photo_not_found`, the punch has no audit photo. */
export class AuditPhotoNotFoundError extends ApiError {
  override readonly name = 'AuditPhotoNotFoundError';
  constructor(init: ApiErrorInit) {
    super(init, 'audit_photo_not_found', 'the punch has no audit photo');
  }
}

// ---- statuses without (or with an unknown) code -------------------------------------

/** spec §7: 400, invalid request syntax. */
export class BadRequestError extends ApiError {
  override readonly name = 'BadRequestError';
  constructor(init: ApiErrorInit) {
    super(init, 'bad_request', 'invalid request syntax');
  }
}

/** spec §7: 404 with a code the spec does not name. */
export class NotFoundError extends ApiError {
  override readonly name = 'NotFoundError';
  constructor(init: ApiErrorInit) {
    super(init, 'not_found_unknown', 'resource not found or of another company');
  }
}

/** spec §7: 422 with a code the spec does not name (e.g. rejected list-parameter syntax, spec 1.3). */
export class UnprocessableError extends ApiError {
  override readonly name = 'UnprocessableError';
  constructor(init: ApiErrorInit) {
    super(init, 'unprocessable', 'validation failure');
  }
}

/** Any other 4xx the spec does not describe. */
export class HttpError extends ApiError {
  override readonly name = 'HttpError';
  constructor(init: ApiErrorInit) {
    super(init, 'http_error', 'unexpected HTTP status');
  }
}

/** spec §7: 403 generic server error (any 403 but `invalid_photo`/`face_recognition_failed`), or any 5xx. */
export class ServerError extends TransientApiError {
  override readonly name = 'ServerError';
  constructor(init: ApiErrorInit) {
    super(init, 'server_error', 'server error');
  }
}

/** 429: the API asks us to slow down; `retryAfterMs` is its Retry-After (or our backoff when absent). */
export class RateLimitedError extends TransientApiError {
  override readonly name = 'RateLimitedError';
  /** How long the API asked to wait, in milliseconds. */
  readonly retryAfterMs: number;
  constructor(init: ApiErrorInit & { retryAfterMs: number }) {
    super(init, 'rate_limited', `too many requests (retry after ${init.retryAfterMs} ms)`);
    this.retryAfterMs = init.retryAfterMs;
  }
}

// ---- transport and response failures ------------------------------------------------

/** No complete response within the per-attempt timeout. */
export class TimeoutError extends TransientApiError {
  override readonly name = 'TimeoutError';
  constructor(init: ApiErrorInit) {
    super(init, 'timeout', 'the request timed out');
  }
}

/** The connection failed (refused, reset, closed, DNS). `mayHaveReachedServer` says whether a write may have taken effect. */
export class NetworkError extends TransientApiError {
  override readonly name = 'NetworkError';
  /** False only when the request certainly never reached the server (connection refused, DNS failure, connect timeout). */
  readonly mayHaveReachedServer: boolean;
  constructor(init: ApiErrorInit & { mayHaveReachedServer: boolean }) {
    super(init, 'network', 'the connection failed');
    this.mayHaveReachedServer = init.mayHaveReachedServer;
  }
}

/** A response that breaks the spec (bad JSON, wrong envelope, a field of the wrong shape). Never retried. */
export class ResponseValidationError extends ApiError {
  override readonly name: string = 'ResponseValidationError';
  /** Path of the first offending field, e.g. `data[3].days[0].points[1].datetime`. */
  readonly fieldPath: string;
  /** Every problem found, as `path: message` lines. */
  readonly problems: readonly string[];
  constructor(init: ApiErrorInit & { fieldPath: string; problems?: readonly string[] }) {
    // The message reads `endpoint: path: problem`, without the status/code noise.
    super(init, 'response_invalid', 'the response breaks the spec');
    this.fieldPath = init.fieldPath;
    this.problems = init.problems ?? [];
    this.message = `${init.endpoint}: ${init.message ?? `${init.fieldPath}: the response breaks the spec`}`;
  }
}

/**
 * A 200 whose body is not JSON: a proxy's HTML page, or a body cut off mid-way (spec 1.1:
 * all responses are JSON). Such an answer says nothing about the data, so it is retried
 * like a server error.
 */
export class InvalidBodyError extends TransientApiError {
  override readonly name = 'InvalidBodyError';
  constructor(init: ApiErrorInit) {
    super(init, 'response_not_json', 'the body is not JSON (spec 1.1)');
  }
}

/** A body read whole exceeded `maxResponseBytes`; reading stopped. Not retried: the job fails (streamed lists have no such bound). */
export class ResponseTooLargeError extends ApiError {
  override readonly name = 'ResponseTooLargeError';
  /** The limit that was exceeded, in bytes. */
  readonly limitBytes: number;
  constructor(init: ApiErrorInit & { limitBytes: number }) {
    super(init, 'response_too_large', `the response body exceeds ${init.limitBytes} bytes`);
    this.limitBytes = init.limitBytes;
  }
}

/**
 * A streamed answer went past the most bytes one answer may hold (an endless array, a
 * runaway body); reading stopped. Retried like a server error: the answer says nothing
 * about the data, and the next reading may be sound.
 */
export class AnswerTooLargeError extends TransientApiError {
  override readonly name = 'AnswerTooLargeError';
  /** The limit that was exceeded, in bytes. */
  readonly limitBytes: number;
  constructor(init: ApiErrorInit & { limitBytes: number }) {
    super(init, 'answer_too_large', `the answer exceeded ${init.limitBytes} bytes (API_MAX_ANSWER_BYTES); reading stopped`);
    this.limitBytes = init.limitBytes;
  }
}

/**
 * One element of a streamed list is larger than the most bytes an element may hold (a
 * huge attachment): it was skipped unread, and the caller stores it as a rejected record
 * while the rest of the answer loads.
 */
export class ElementTooLargeError extends ResponseValidationError {
  override readonly name = 'ElementTooLargeError';
  /** Size of the element, in bytes of the body (unknown when reading stopped at the limit). */
  readonly bytes: number | undefined;
  /** The limit it exceeded. */
  readonly limitBytes: number;
  /** `setting`: the configuration that sets the limit, for the message. */
  constructor(init: { endpoint: string; index: number; bytes?: number; limitBytes: number; setting?: string }) {
    const fieldPath = `data[${init.index}]`;
    const size = init.bytes === undefined ? 'over' : `${init.bytes} bytes, over`;
    super({
      endpoint: init.endpoint,
      status: 200,
      code: 'element_too_large',
      fieldPath,
      message: `${fieldPath}: the element is ${size} the limit of ${init.limitBytes} bytes (${init.setting ?? 'API_MAX_ELEMENT_BYTES'}); skipped unread`,
    });
    this.bytes = init.bytes;
    this.limitBytes = init.limitBytes;
  }
}

type ErrorCtor = new (init: ApiErrorInit) => ApiError;

/** spec §7: for each code, its HTTP status and class. The single mapping of the codes. */
export const ERROR_CODE_TABLE: Readonly<Record<ApiErrorCode, { status: number; error: ErrorCtor }>> = {
  invalid_service_token: { status: 401, error: AuthError },
  company_not_found: { status: 404, error: CompanyNotFoundError },
  date_range_exceeded: { status: 422, error: DateRangeExceededError },
  validation_failed: { status: 422, error: ValidationFailedError },
  invalid_request_payload: { status: 422, error: InvalidRequestPayloadError },
  journey_not_found: { status: 404, error: ReferenceNotFoundError },
  cost_center_not_found: { status: 404, error: ReferenceNotFoundError },
  department_not_found: { status: 404, error: ReferenceNotFoundError },
  unit_not_found: { status: 404, error: ReferenceNotFoundError },
  collaborator_settings_not_found: { status: 404, error: ReferenceNotFoundError },
  point_rule_not_found: { status: 404, error: ReferenceNotFoundError },
  absence_type_not_found: { status: 404, error: ReferenceNotFoundError },
  fired_type_not_found: { status: 404, error: ReferenceNotFoundError },
  cpf_not_found: { status: 404, error: CpfNotFoundError },
  collaborator_not_found: { status: 404, error: CollaboratorNotFoundError },
  collaborator_fired: { status: 422, error: CollaboratorFiredError },
  dismissal_date_before_admission_date: { status: 422, error: DismissalBeforeAdmissionError },
  date_time_greater_than_now: { status: 422, error: PunchInFutureError },
  date_begin_less_than_now: { status: 422, error: PunchBeforeAdmissionError },
  invalid_photo: { status: 403, error: InvalidPhotoError },
  face_recognition_failed: { status: 403, error: FaceRecognitionFailedError },
  not_found: { status: 404, error: AbsenceNotFoundError },
  point_not_found: { status: 404, error: PointNotFoundError },
  audit_photo_not_found: { status: 404, error: AuditPhotoNotFoundError },
};

/** True when `code` is one of the spec's §7 codes. */
export function isApiErrorCode(code: string): code is ApiErrorCode {
  return Object.hasOwn(ERROR_CODE_TABLE, code);
}

/** Longest server message kept in an error (a proxy's HTML page is not a message). */
const MAX_MESSAGE_CHARS = 300;

/**
 * Maps a non-2xx response onto the error hierarchy (spec 1.1 envelope, spec §7 codes).
 * A spec code whose status matches maps to its class; anything else maps by status,
 * keeping the code the server sent. `body` is the parsed JSON, or undefined when the
 * body was not JSON. `retryAfterMs` is used for 429.
 */
export function errorFromResponse(
  endpoint: string,
  status: number,
  body: unknown,
  retryAfterMs?: number,
): ApiError {
  const { code, message, payloadDataRequired } = readErrorEnvelope(body);
  const init: ApiErrorInit = {
    endpoint,
    status,
    ...(code === undefined ? {} : { code }),
    ...(message ? { message: message.slice(0, MAX_MESSAGE_CHARS) } : {}),
    ...(payloadDataRequired ? { payloadDataRequired } : {}),
  };
  if (code !== undefined && isApiErrorCode(code) && ERROR_CODE_TABLE[code].status === status) {
    return new ERROR_CODE_TABLE[code].error(init);
  }
  if (status === 429) return new RateLimitedError({ ...init, retryAfterMs: retryAfterMs ?? 0 });
  // spec §7: 403 is the generic server error unless it is one of the photo codes above.
  if (status === 403 || status >= 500) return new ServerError(init);
  if (status === 401) return new AuthError(init);
  if (status === 400) return new BadRequestError(init);
  if (status === 404) return new NotFoundError(init);
  if (status === 422) {
    return init.payloadDataRequired ? new ValidationFailedError(init) : new UnprocessableError(init);
  }
  return new HttpError(init);
}

/**
 * The parts of an error envelope (spec 1.1), each read on its own: a `code` survives a
 * `payload_data_required` of `null` or a missing `message`, so a 422
 * `date_range_exceeded` still splits the window whatever the other keys hold.
 */
export function readErrorEnvelope(body: unknown): { code?: string; message?: string; payloadDataRequired?: string[] } {
  const envelope = (typeof body === 'object' && body !== null ? body : {}) as {
    error?: { code?: unknown; message?: unknown } | null;
    payload_data_required?: unknown;
  };
  const error = typeof envelope.error === 'object' && envelope.error !== null ? envelope.error : {};
  const required = envelope.payload_data_required;
  return {
    ...(typeof error.code === 'string' ? { code: error.code } : {}),
    ...(typeof error.message === 'string' ? { message: error.message } : {}),
    ...(Array.isArray(required) && required.every((r) => typeof r === 'string') ? { payloadDataRequired: required } : {}),
  };
}

/**
 * True for failures that retrying cannot fix: 401, 4xx answers, a response that breaks
 * the spec, an oversized response. The sync wraps these in BullMQ's UnrecoverableError.
 * Transient API errors and anything that is not an {@link ApiError} return false.
 */
export function isPermanent(err: unknown): boolean {
  return err instanceof ApiError && !err.retryable;
}
