/**
 * Errors of the API client: one {@link ApiError} class, and one table, {@link API_ERRORS},
 * of what each code means: spec §7's with their status, then the client's own. The one
 * place an error envelope (spec 1.1) maps onto a code is {@link errorFromResponse}. No
 * message holds the API token: the client scrubs server messages before they get here.
 */
import { PunchlineError } from '../util/errors.js';

/** What a failure of one code means for the client, the sync and the push. */
interface ApiErrorRow {
  /** spec §7: the status the API sends the code with; absent for the client's own codes. */
  readonly status?: number;
  /** The spec section the code comes from, when one does. */
  readonly spec?: string;
  /** Default message (the server's own message wins). */
  readonly message: string | ((e: { retryAfterMs?: number; limitBytes?: number }) => string);
  /** Trying again later may succeed; every other failure is permanent ({@link isPermanent}). */
  readonly retryable?: true;
  /** The connection pauses until its token works again, instead of failing (spec §5 rule 4). */
  readonly pauses?: true;
  /** A smaller window may succeed: the sync reads the window in halves. */
  readonly splits?: true;
  /** The item asked for no longer exists: an items read skips it instead of failing. */
  readonly gone?: true;
}

const REFERENCE = 'a referenced id does not exist or belongs to another company';

/** Every code of an {@link ApiError}: spec §7's, in the spec's order, then the client's own. */
export const API_ERRORS = {
  invalid_service_token: {
    status: 401,
    spec: '§5 rule 4',
    pauses: true,
    message: 'the API token is missing, invalid or of an inactive company (check SERVICE_API_TOKEN)',
  },
  company_not_found: {
    status: 404,
    spec: '1.4',
    message: 'company_national_registry is outside the accessible economic group',
  },
  date_range_exceeded: {
    status: 422,
    spec: '§8',
    splits: true,
    message: 'the period is longer than 31 days',
  },
  validation_failed: { status: 422, spec: '1.1', message: 'required fields are missing' },
  invalid_request_payload: { status: 422, spec: '§7', message: 'a required field is missing or empty' },
  journey_not_found: { status: 404, spec: '§7', message: REFERENCE },
  cost_center_not_found: { status: 404, spec: '§7', message: REFERENCE },
  department_not_found: { status: 404, spec: '§7', message: REFERENCE },
  unit_not_found: { status: 404, spec: '§7', message: REFERENCE },
  collaborator_settings_not_found: { status: 404, spec: '§7', message: REFERENCE },
  point_rule_not_found: { status: 404, spec: '§7', message: REFERENCE },
  absence_type_not_found: { status: 404, spec: '§7', message: REFERENCE },
  fired_type_not_found: { status: 404, spec: '§7', message: REFERENCE },
  cpf_not_found: { status: 404, spec: '§7', message: 'the CPF is not registered' },
  collaborator_not_found: { status: 404, spec: '§7', message: 'no collaborator of the company matches' },
  collaborator_fired: { status: 422, spec: '§3', message: 'the collaborator is dismissed' },
  dismissal_date_before_admission_date: {
    status: 422,
    spec: '§7',
    message: 'the dismissal date is earlier than the admission date',
  },
  date_time_greater_than_now: { status: 422, spec: '§8', message: 'the punch datetime is in the future' },
  date_begin_less_than_now: {
    status: 422,
    spec: '§8',
    message: 'the punch datetime is earlier than the admission date',
  },
  invalid_photo: { status: 403, spec: '§7', message: 'the photo was rejected (no face or low quality)' },
  face_recognition_failed: { status: 403, spec: '§7', message: 'facial photo processing failed' },
  not_found: {
    status: 404,
    spec: '§7',
    gone: true,
    message: 'the absence does not exist or belongs to another company',
  },
  point_not_found: {
    status: 404,
    spec: '§7',
    gone: true,
    message: 'the punch does not exist or belongs to another company',
  },
  audit_photo_not_found: { status: 404, spec: '§7', gone: true, message: 'the punch has no audit photo' },
  // Statuses without a code the spec names (the code the server sent is kept as `code`).
  bad_request: { spec: '§7', message: 'invalid request syntax' },
  not_found_unknown: { spec: '§7', message: 'resource not found or of another company' },
  unprocessable: { spec: '1.3', message: 'validation failure' },
  http_error: { spec: '§7', message: 'unexpected HTTP status' },
  server_error: { spec: '§7', retryable: true, message: 'server error' },
  rate_limited: {
    spec: '§8',
    retryable: true,
    message: (e) => `too many requests (retry after ${e.retryAfterMs} ms)`,
  },
  // Transport and response failures.
  timeout: { retryable: true, splits: true, message: 'the request timed out' },
  network: { retryable: true, message: 'the connection failed' },
  response_invalid: { spec: '1.1', message: 'the response breaks the spec' },
  response_not_json: { spec: '1.1', retryable: true, message: 'the body is not JSON (spec 1.1)' },
  response_too_large: { message: (e) => `the response body exceeds ${e.limitBytes} bytes` },
  answer_too_large: {
    retryable: true,
    message: (e) => `the answer exceeded ${e.limitBytes} bytes (API_MAX_ANSWER_BYTES); reading stopped`,
  },
  element_too_large: { message: 'the element is too large' },
  element_too_deep: { message: 'the element is nested too deep' },
} as const satisfies Record<string, ApiErrorRow>;

/** A code of {@link API_ERRORS}. */
export type ApiErrorKind = keyof typeof API_ERRORS;
/** An `error.code` the spec names (§7). */
export type ApiErrorCode = {
  [K in ApiErrorKind]: (typeof API_ERRORS)[K] extends { status: number } ? K : never;
}[ApiErrorKind];
/** Every `error.code` of spec §7, in the spec's order. */
export const API_ERROR_CODES = (Object.keys(API_ERRORS) as ApiErrorKind[]).filter(
  (k): k is ApiErrorCode => 'status' in API_ERRORS[k],
);

/** The row of `kind`. */
const rowOf = (kind: ApiErrorKind): ApiErrorRow => API_ERRORS[kind];

/** Context only some codes carry. */
interface KindFields {
  /** How long the API asked to wait, ms (its Retry-After, or our backoff when absent). */
  rate_limited: { retryAfterMs: number };
  /** False only when the request certainly never reached the server (refused, DNS, connect timeout). */
  network: { mayHaveReachedServer: boolean };
  /** The first offending field (`data[3].days[0].points[1].datetime`), and every problem as `path: message`. */
  response_invalid: { fieldPath: string; problems?: readonly string[] };
  /** The element's place, its size in bytes of the body (unknown when reading stopped at the limit) and the limit. */
  element_too_large: { fieldPath: string; bytes?: number; limitBytes: number };
  /** The element's place and the deepest nesting allowed. */
  element_too_deep: { fieldPath: string; limitDepth: number };
  response_too_large: { limitBytes: number };
  answer_too_large: { limitBytes: number };
}
type FieldsOf<K extends ApiErrorKind> = K extends keyof KindFields ? KindFields[K] : unknown;
/** An {@link ApiError} of one of the codes `K`, with the fields they carry. */
export type ApiErrorOf<K extends ApiErrorKind> = ApiError<K> & FieldsOf<K>;

/** Context shared by every API error. */
export interface ApiErrorInit {
  /** Endpoint name (see endpoints.ts) the failure belongs to. */
  endpoint: string;
  /** HTTP status, when a response arrived. */
  status?: number;
  /** `error.code` the server sent, when it is not the kind's own. */
  code?: string;
  /** Message override (default: the code's message in {@link API_ERRORS}). */
  message?: string;
  /** spec 1.1: names of missing required fields on 422 `validation_failed`. */
  payloadDataRequired?: readonly string[];
  cause?: unknown;
}

/** Every error the client throws about an API call; `kind` is its row of {@link API_ERRORS}. */
export class ApiError<K extends ApiErrorKind = ApiErrorKind> extends PunchlineError {
  override readonly name = 'ApiError';
  /** Its row of {@link API_ERRORS}. */
  readonly kind: K;
  /** HTTP status, or undefined when no response arrived. */
  readonly status: number | undefined;
  /** Endpoint name the failure belongs to. */
  readonly endpoint: string;
  /** spec 1.1: missing required fields (422), when the API listed them. */
  readonly payloadDataRequired: readonly string[] | undefined;
  /** Whether trying the same request again later may succeed. */
  readonly retryable: boolean;
  declare readonly retryAfterMs?: number;
  declare readonly mayHaveReachedServer?: boolean;
  declare readonly fieldPath?: string;
  declare readonly problems?: readonly string[];
  declare readonly bytes?: number;
  declare readonly limitBytes?: number;

  /** `code` is the server's when it sent one, else `kind`. A response that breaks the spec reads `endpoint: path: problem`. */
  constructor(kind: K, init: ApiErrorInit & FieldsOf<K>) {
    const {
      endpoint,
      status,
      code = kind,
      message,
      payloadDataRequired,
      cause,
      ...fields
    } = init as ApiErrorInit & Record<string, unknown>;
    const row = rowOf(kind);
    const text = message ?? (typeof row.message === 'string' ? row.message : row.message(fields));
    const path = fields.fieldPath as string | undefined;
    const full =
      path === undefined
        ? `${endpoint}:${status === undefined ? '' : ` ${status}`} ${code}: ${text}`
        : `${endpoint}: ${message ?? `${path}: ${text}`}`;
    super(code, full, { cause });
    this.kind = kind;
    this.status = status;
    this.endpoint = endpoint;
    this.payloadDataRequired = payloadDataRequired;
    this.retryable = row.retryable ?? false;
    Object.assign(this, path === undefined ? fields : { problems: [], ...fields });
  }
}

/** True when `err` is an {@link ApiError} of one of `kinds` (of any code when none is given). */
export function isApiError<K extends ApiErrorKind = ApiErrorKind>(
  err: unknown,
  ...kinds: K[]
): err is ApiErrorOf<K> {
  return err instanceof ApiError && (kinds.length === 0 || kinds.includes(err.kind as K));
}

/** True when `err` is an {@link ApiError} whose code has `trait` in {@link API_ERRORS}. */
export function apiErrorHas(err: unknown, trait: 'pauses' | 'splits' | 'gone'): err is ApiError {
  return err instanceof ApiError && rowOf(err.kind)[trait] === true;
}

/** True for an {@link ApiError} retrying cannot fix (401, 4xx, a response breaking the spec or too large). */
export function isPermanent(err: unknown): boolean {
  return err instanceof ApiError && !err.retryable;
}

/**
 * An element of a list over the most bytes one may hold (a huge attachment): skipped unread,
 * stored as a rejected record while the rest loads. `setting` names the limit's configuration.
 */
export function elementTooLarge(e: {
  endpoint: string;
  index: number;
  bytes?: number;
  limitBytes: number;
  setting?: string;
}): ApiErrorOf<'element_too_large'> {
  const fieldPath = `data[${e.index}]`;
  const size = e.bytes === undefined ? 'over' : `${e.bytes} bytes, over`;
  const message = `${fieldPath}: the element is ${size} the limit of ${e.limitBytes} bytes (${e.setting ?? 'API_MAX_ELEMENT_BYTES'}); skipped unread`;
  const fields = {
    fieldPath,
    limitBytes: e.limitBytes,
    ...(e.bytes === undefined ? {} : { bytes: e.bytes }),
  };
  return new ApiError('element_too_large', {
    endpoint: e.endpoint,
    status: 200,
    message,
    ...fields,
  }) as ApiErrorOf<'element_too_large'>;
}

/**
 * The error of an element of a streamed list nested deeper than `limitDepth` levels, skipped
 * unparsed (data-stream.ts): stored as a rejected record while the rest loads.
 */
export function elementTooDeep(e: {
  endpoint: string;
  index: number;
  limitDepth: number;
}): ApiErrorOf<'element_too_deep'> {
  const fieldPath = `data[${e.index}]`;
  return new ApiError('element_too_deep', {
    endpoint: e.endpoint,
    status: 200,
    message: `${fieldPath}: the element is nested deeper than ${e.limitDepth} levels; skipped unread`,
    fieldPath,
    limitDepth: e.limitDepth,
  }) as ApiErrorOf<'element_too_deep'>;
}

/** Longest server message kept in an error (a proxy's HTML page is not a message). */
const MAX_MESSAGE_CHARS = 300;

/** spec §7: the code of a status whose answer named no code of the spec. */
const BY_STATUS: Readonly<Record<number, ApiErrorKind>> = {
  400: 'bad_request',
  401: 'invalid_service_token',
  403: 'server_error',
  404: 'not_found_unknown',
  422: 'unprocessable',
  429: 'rate_limited',
};

/**
 * Maps a non-2xx response (`body` parsed, undefined if not JSON) onto its code (spec 1.1, §7): a
 * spec code sent with its status is its own; else by status, keeping the server's code.
 */
export function errorFromResponse(
  endpoint: string,
  status: number,
  body: unknown,
  retryAfterMs?: number,
): ApiError {
  const { code, message, payloadDataRequired } = readErrorEnvelope(body);
  const init: ApiErrorInit = { endpoint, status, code, payloadDataRequired };
  if (message) init.message = message.slice(0, MAX_MESSAGE_CHARS);
  const own =
    code !== undefined && Object.hasOwn(API_ERRORS, code) && rowOf(code as ApiErrorKind).status === status;
  // spec §7: 403 is the generic server error unless it is one of the photo codes; a 422 listing fields is validation_failed.
  const kind = own
    ? (code as ApiErrorKind)
    : status >= 500
      ? 'server_error'
      : status === 422 && payloadDataRequired
        ? 'validation_failed'
        : (BY_STATUS[status] ?? 'http_error');
  return new ApiError(kind, {
    ...init,
    ...(kind === 'rate_limited' ? { retryAfterMs: retryAfterMs ?? 0 } : {}),
  });
}

/**
 * The parts of an error envelope (spec 1.1), each read on its own: a 422 `date_range_exceeded`
 * still splits the window whatever `payload_data_required` or `message` hold.
 */
function readErrorEnvelope(body: unknown): {
  code?: string;
  message?: string;
  payloadDataRequired?: string[];
} {
  type Envelope = { error?: { code?: unknown; message?: unknown } | null; payload_data_required?: unknown };
  const { error, payload_data_required: required } = (body ?? {}) as Envelope;
  const listsNames = Array.isArray(required) && required.every((r) => typeof r === 'string');
  return {
    code: typeof error?.code === 'string' ? error.code : undefined,
    message: typeof error?.message === 'string' ? error.message : undefined,
    payloadDataRequired: listsNames ? required : undefined,
  };
}
