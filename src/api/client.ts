/**
 * Typed client of Customer API v2: one method per endpoint of spec §4, every response
 * validated against the schemas, errors mapped by `error.code` (errors.ts), transient
 * failures retried (retry.ts), each HTTP attempt admitted by the connection's limiter.
 *
 * The token travels only in the `apiServiceToken` header (spec §5); it is scrubbed from
 * every server message that ends up in an error and is never passed to a hook.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { Pool, type FormData } from 'undici';
import type { ClientHooks, ClientOptions, CallOptions } from './client-options.js';
import { ENDPOINTS, type EndpointData, type EndpointName } from './endpoints.js';
import { ApiError, RateLimitedError, ResponseValidationError, errorFromResponse } from './errors.js';
import { unlimited, type RateLimitListener, type RequestLimiter } from './limiter.js';
import type {
  CollaboratorPhoto,
  DateTimePeriod,
  Dismissal,
  NewAbsence,
  NewCollaborator,
  NewOccupation,
  NewPoint,
  OvertimeQuery,
  PeopleQuery,
  PeriodByCpfQuery,
} from './params.js';
import { buildMultipart, buildQuery, scopeParams, type Attachment, type Params, type Scope } from './query.js';
import { DEFAULT_BACKOFF, backoffDelay, parseRetryAfter, retryReason, type BackoffOptions } from './retry.js';
import { sendAttempt, type AttemptResponse } from './transport.js';
import { validateEnvelope } from './validate.js';
import type {
  Absence,
  AbsenceAttachment,
  AbsenceType,
  AuditPhoto,
  CollaboratorAdjustments,
  CollaboratorBlock,
  CollaboratorInconsistencies,
  CollaboratorPoints,
  CollaboratorTardiness,
  CollaboratorTotalHours,
  Company,
  DescribedLookup,
  EconomicGroupEntry,
  NamedLookup,
  OvertimeBalance,
} from './schemas.js';

export type { ClientHooks, ClientOptions, CallOptions } from './client-options.js';
export type { Scope, Attachment } from './query.js';
export type * from './params.js';

/** Parameters of a low-level {@link ApiClient.request}. */
export interface RequestParams {
  /** Query parameters (GET), exactly as sent: list names end in `[]` (spec 1.3). */
  query?: Params;
  /** spec 1.4: scope parameters, GET only. */
  scope?: Scope;
  /** JSON body (POST/PUT). */
  body?: Readonly<Record<string, unknown>>;
  /** Multipart fields and files (`POST absence`). */
  form?: { fields: Params; attachments?: readonly Attachment[] };
}

/** A validated success envelope and how it arrived. */
export interface ApiResponse<T> {
  /** HTTP status (200 or 201). */
  status: number;
  /** The validated `data`. */
  data: T;
  /** The validated `meta`, where the endpoint has one. */
  meta?: unknown;
  /** Bytes of the response body. */
  bytes: number;
}

const DEFAULTS = {
  timeoutMs: 30_000,
  maxAttempts: 6,
  maxResponseBytes: 64 * 1024 * 1024,
  maxRateLimitRetries: 10,
  maxRetryAfterMs: 300_000,
  connections: 16,
} as const;

const REDACTED = '[REDACTED]';

/** Sleeps `ms`, rejecting with the signal's reason when it aborts. */
const defaultSleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  delay(ms, undefined, signal ? { signal } : {}).then(
    () => undefined,
    (err: unknown) => {
      throw signal?.aborted ? (signal.reason ?? err) : err;
    },
  );

/** Typed client of the 31 endpoints of Customer API v2 (see README, "API client"). */
export class ApiClient {
  readonly #pool: Pool;
  readonly #basePath: string;
  readonly #token: string;
  readonly #timeoutMs: number;
  readonly #maxAttempts: number;
  readonly #maxResponseBytes: number;
  readonly #limiter: RequestLimiter & Partial<RateLimitListener>;
  readonly #hooks: ClientHooks;
  readonly #retryRateLimited: boolean;
  readonly #maxRateLimitRetries: number;
  readonly #maxRetryAfterMs: number;
  readonly #backoff: BackoffOptions;
  readonly #sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  readonly #random: () => number;
  readonly #now: () => number;

  constructor(options: ClientOptions) {
    let url: URL;
    try {
      url = new URL(options.baseUrl);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http');
    } catch {
      throw new TypeError(`ApiClient: baseUrl must be an http(s) URL, got ${JSON.stringify(options.baseUrl)}`);
    }
    if (!options.token) throw new TypeError('ApiClient: token is empty (set SERVICE_API_TOKEN)');
    this.#token = options.token;
    this.#basePath = url.pathname.replace(/\/+$/, '');
    this.#timeoutMs = options.timeoutMs ?? DEFAULTS.timeoutMs;
    this.#maxAttempts = Math.max(1, options.maxAttempts ?? DEFAULTS.maxAttempts);
    this.#maxResponseBytes = options.maxResponseBytes ?? DEFAULTS.maxResponseBytes;
    this.#limiter = options.limiter ?? unlimited;
    this.#hooks = options.hooks ?? {};
    this.#retryRateLimited = options.retryRateLimited ?? true;
    this.#maxRateLimitRetries = options.maxRateLimitRetries ?? DEFAULTS.maxRateLimitRetries;
    this.#maxRetryAfterMs = options.maxRetryAfterMs ?? DEFAULTS.maxRetryAfterMs;
    this.#backoff = {
      baseMs: options.retryBaseMs ?? DEFAULT_BACKOFF.baseMs,
      maxMs: options.retryMaxDelayMs ?? DEFAULT_BACKOFF.maxMs,
    };
    this.#sleep = options.sleep ?? defaultSleep;
    this.#random = options.random ?? Math.random;
    this.#now = options.now ?? Date.now;
    this.#pool = new Pool(url.origin, {
      connections: options.connections ?? DEFAULTS.connections,
      pipelining: 1,
      keepAliveTimeout: 10_000,
      headersTimeout: this.#timeoutMs,
      bodyTimeout: this.#timeoutMs,
      connect: { timeout: Math.min(this.#timeoutMs, 10_000) },
    });
  }

  // ---- spec 4.1: reads ----------------------------------------------------------------

  /** `GET collaborator`: active collaborators. */
  async listCollaborators(scope?: Scope, opts?: CallOptions): Promise<CollaboratorBlock[]> {
    return this.#read('collaborator', {}, scope, opts);
  }

  /** `GET collaborator/totalHours`: hour totals per collaborator for a period of at most 31 days. */
  async getTotalHours(q: PeopleQuery, scope?: Scope, opts?: CallOptions): Promise<CollaboratorTotalHours[]> {
    return this.#read('collaborator/totalHours', peopleParams(q), scope, opts);
  }

  /** `GET point/getFromPeriod`: punches per collaborator and day. */
  async getPointsFromPeriod(q: PeopleQuery, scope?: Scope, opts?: CallOptions): Promise<CollaboratorPoints[]> {
    return this.#read('point/getFromPeriod', peopleParams(q), scope, opts);
  }

  /** `GET point/audit`: the audit photo of one punch. */
  async getAuditPhoto(pointId: number, scope?: Scope, opts?: CallOptions): Promise<AuditPhoto> {
    return this.#read('point/audit', { point_id: pointId }, scope, opts);
  }

  /** `GET tardiness`: late arrivals per collaborator. */
  async getTardiness(q: PeriodByCpfQuery, scope?: Scope, opts?: CallOptions): Promise<CollaboratorTardiness[]> {
    return this.#read('tardiness', periodByCpfParams(q), scope, opts);
  }

  /** `GET adjustment`: punch-adjustment requests per collaborator. */
  async getAdjustments(q: PeriodByCpfQuery, scope?: Scope, opts?: CallOptions): Promise<CollaboratorAdjustments[]> {
    return this.#read('adjustment', periodByCpfParams(q), scope, opts);
  }

  /** `GET inconsistency`: inconsistencies per collaborator. */
  async getInconsistencies(
    q: PeriodByCpfQuery,
    scope?: Scope,
    opts?: CallOptions,
  ): Promise<CollaboratorInconsistencies[]> {
    return this.#read('inconsistency', periodByCpfParams(q), scope, opts);
  }

  /** `GET overtime`: overtime / hour-bank balance of one day per collaborator. */
  async getOvertime(q: OvertimeQuery, scope?: Scope, opts?: CallOptions): Promise<OvertimeBalance[]> {
    return this.#read('overtime', { date: q.date, national_registry: q.nationalRegistry }, scope, opts);
  }

  /** `GET absence/types`. */
  async listAbsenceTypes(scope?: Scope, opts?: CallOptions): Promise<AbsenceType[]> {
    return this.#read('absence/types', {}, scope, opts);
  }

  /** `GET absence/getFromPeriod`: absences overlapping a period of local date-times. */
  async getAbsencesFromPeriod(q: DateTimePeriod, scope?: Scope, opts?: CallOptions): Promise<Absence[]> {
    return this.#read('absence/getFromPeriod', { begin_date: q.beginDate, end_date: q.endDate }, scope, opts);
  }

  /** `GET absence/attachment`: the files of one absence (empty when none). */
  async getAbsenceAttachments(absenceId: number, scope?: Scope, opts?: CallOptions): Promise<AbsenceAttachment[]> {
    return this.#read('absence/attachment', { absence_id: absenceId }, scope, opts);
  }

  /** `GET company`: the token's company, or the one named by `companyNationalRegistry`. */
  async getCompany(scope?: { companyNationalRegistry?: string }, opts?: CallOptions): Promise<Company> {
    const only = scope?.companyNationalRegistry === undefined ? undefined : { companyNationalRegistry: scope.companyNationalRegistry };
    return this.#read('company', {}, only, opts) as Promise<Company>;
  }

  /** `GET company?include_branches=1`: every company of the economic group (spec 4.1). */
  async listGroupCompanies(opts?: CallOptions): Promise<Company[]> {
    const res = await this.request('company', { scope: { includeBranches: true } }, opts);
    return res.data as unknown as Company[];
  }

  /** `GET economic-group`: headquarters and active branches. */
  async getEconomicGroup(scope?: Scope, opts?: CallOptions): Promise<EconomicGroupEntry[]> {
    return this.#read('economic-group', {}, scope, opts);
  }

  /** `GET department`. */
  async listDepartments(scope?: Scope, opts?: CallOptions): Promise<DescribedLookup[]> {
    return this.#read('department', {}, scope, opts);
  }

  /** `GET occupation` (active only). */
  async listOccupations(scope?: Scope, opts?: CallOptions): Promise<DescribedLookup[]> {
    return this.#read('occupation', {}, scope, opts);
  }

  /** `GET fired-type`: dismissal types. */
  async listFiredTypes(scope?: Scope, opts?: CallOptions): Promise<NamedLookup[]> {
    return this.#read('fired-type', {}, scope, opts);
  }

  /** `GET cost-center` (active only). */
  async listCostCenters(scope?: Scope, opts?: CallOptions): Promise<NamedLookup[]> {
    return this.#read('cost-center', {}, scope, opts);
  }

  /** `GET collaborator-settings`. */
  async listCollaboratorSettings(scope?: Scope, opts?: CallOptions): Promise<DescribedLookup[]> {
    return this.#read('collaborator-settings', {}, scope, opts);
  }

  /** `GET point-rule`. */
  async listPointRules(scope?: Scope, opts?: CallOptions): Promise<DescribedLookup[]> {
    return this.#read('point-rule', {}, scope, opts);
  }

  /** `GET journey`. */
  async listJourneys(scope?: Scope, opts?: CallOptions): Promise<DescribedLookup[]> {
    return this.#read('journey', {}, scope, opts);
  }

  /** `GET barrier`: digital fences. */
  async listBarriers(scope?: Scope, opts?: CallOptions): Promise<NamedLookup[]> {
    return this.#read('barrier', {}, scope, opts);
  }

  /** `GET unit` (default unit first). */
  async listUnits(scope?: Scope, opts?: CallOptions): Promise<NamedLookup[]> {
    return this.#read('unit', {}, scope, opts);
  }

  // ---- spec 4.2: writes (no scope, spec 1.4 rule 2) ----------------------------------

  /** `POST collaborator`. */
  async createCollaborator(body: NewCollaborator, opts?: CallOptions): Promise<{ id: number }> {
    return (await this.request('POST collaborator', { body: { ...body } }, opts)).data;
  }

  /** `POST collaborator/photo`: face photo for recognition. */
  async uploadCollaboratorPhoto(body: CollaboratorPhoto, opts?: CallOptions): Promise<{ success: true }> {
    return (await this.request('POST collaborator/photo', { body: { ...body } }, opts)).data;
  }

  /** `PUT collaborator/dismissal`. */
  async dismissCollaborator(body: Dismissal, opts?: CallOptions): Promise<{ success: true }> {
    return (await this.request('PUT collaborator/dismissal', { body: { ...body } }, opts)).data;
  }

  /** `POST point`: registers a punch; returns its id and SHA-256 receipt. */
  async registerPoint(body: NewPoint, opts?: CallOptions): Promise<{ point_id: number; hash: string }> {
    return (await this.request('POST point', { body: { ...body } }, opts)).data;
  }

  /** `POST absence` (multipart): `national_registry[]` repeated, one `attachment[]` part per file. */
  async createAbsence(
    fields: NewAbsence,
    attachments: readonly Attachment[] = [],
    opts?: CallOptions,
  ): Promise<{ absence_id: number }> {
    const { national_registry, ...rest } = fields;
    const form = { fields: { 'national_registry[]': national_registry, ...rest }, attachments };
    return (await this.request('POST absence', { form }, opts)).data;
  }

  /** `POST department`. */
  async createDepartment(body: { description: string }, opts?: CallOptions): Promise<{ id: number }> {
    return (await this.request('POST department', { body: { ...body } }, opts)).data;
  }

  /** `POST occupation`. */
  async createOccupation(body: NewOccupation, opts?: CallOptions): Promise<{ id: number }> {
    return (await this.request('POST occupation', { body: { ...body } }, opts)).data;
  }

  /** `POST fired-type`. */
  async createFiredType(body: { name: string }, opts?: CallOptions): Promise<{ id: number }> {
    return (await this.request('POST fired-type', { body: { ...body } }, opts)).data;
  }

  /** `POST cost-center`. */
  async createCostCenter(body: { name: string }, opts?: CallOptions): Promise<{ id: number }> {
    return (await this.request('POST cost-center', { body: { ...body } }, opts)).data;
  }

  // ---- low level ----------------------------------------------------------------------

  /**
   * One call of any endpoint with retries, validated against the endpoint table, with
   * its envelope. Parameters are sent as given (the conformance suite uses this to send
   * what the typed methods never would); non-2xx answers throw the mapped ApiError.
   */
  async request<E extends EndpointName>(
    endpoint: E,
    params: RequestParams = {},
    opts: CallOptions = {},
  ): Promise<ApiResponse<EndpointData<E>>> {
    const def = ENDPOINTS[endpoint];
    if (!def) throw new TypeError(`ApiClient: unknown endpoint ${JSON.stringify(endpoint)}`);
    if (def.method !== 'GET' && (params.scope || params.query)) {
      // spec 1.4 rule 2: writes always act on the token's company.
      throw new TypeError(`ApiClient: ${endpoint} is a write; scope and query parameters apply to GET only (spec 1.4)`);
    }
    if (def.method === 'GET' && (params.body || params.form)) {
      throw new TypeError(`ApiClient: ${endpoint} is a GET and takes no body`);
    }

    const query = def.method === 'GET' ? buildQuery({ ...params.query, ...scopeParams(params.scope) }) : '';
    const path = `${this.#basePath}${def.path}${query ? `?${query}` : ''}`;
    const headers: Record<string, string> = { accept: 'application/json', apiServiceToken: this.#token };
    let body: (() => string | FormData) | undefined;
    if (params.form) {
      const form = params.form;
      // A fresh form per attempt: undici consumes the multipart stream when sending.
      body = () => buildMultipart(form.fields, form.attachments);
    } else if (params.body || def.body === 'json') {
      const json = JSON.stringify(params.body ?? {});
      headers['content-type'] = 'application/json';
      body = () => json;
    }

    const maxAttempts = Math.max(1, opts.maxAttempts ?? this.#maxAttempts);
    const timeoutMs = opts.timeoutMs ?? this.#timeoutMs;
    let attempt = 0;
    let failures = 0;
    let rateLimited = 0;
    for (;;) {
      attempt += 1;
      let response: AttemptResponse;
      try {
        response = await this.#attempt(endpoint, def.method, path, headers, body?.(), timeoutMs, attempt, opts.signal);
      } catch (err) {
        const reason = retryReason(err, def.method);
        if (reason === null) throw err;
        let delayMs: number;
        if (err instanceof RateLimitedError) {
          rateLimited += 1;
          if (!this.#retryRateLimited || rateLimited > this.#maxRateLimitRetries) throw err;
          if (err.retryAfterMs > this.#maxRetryAfterMs) throw err;
          delayMs = err.retryAfterMs;
        } else {
          failures += 1;
          if (failures >= maxAttempts) throw err;
          delayMs = backoffDelay(failures, this.#backoff, this.#random);
        }
        this.#hook('onRetry', { endpoint, attempt, delayMs, reason });
        await this.#sleep(delayMs, opts.signal);
        continue;
      }
      const parsed = parseJson(response.body);
      if (response.status < 200 || response.status > 299) {
        // Unreachable for non-2xx: #attempt throws those.
        throw errorFromResponse(endpoint, response.status, parsed);
      }
      if (parsed === NOT_JSON) {
        throw new ResponseValidationError({
          endpoint,
          status: response.status,
          fieldPath: '(body)',
          message: '(body): not valid JSON (spec 1.1: all responses are JSON)',
        });
      }
      const envelope = validateEnvelope<EndpointData<E>>(endpoint, def, parsed, {
        includeBranches: params.scope?.includeBranches === true,
      });
      return { status: response.status, data: envelope.data, meta: envelope.meta, bytes: response.body.length };
    }
  }

  /** Closes the connection pool (waits for requests in flight). */
  async close(): Promise<void> {
    await this.#pool.close();
  }

  // ---- internals ----------------------------------------------------------------------

  async #read<E extends EndpointName>(endpoint: E, query: Params, scope: Scope | undefined, opts: CallOptions | undefined) {
    const res = await this.request(endpoint, { query, ...(scope ? { scope } : {}) }, opts);
    return res.data;
  }

  /** One HTTP attempt: limiter admission, send, hooks; a non-2xx answer is thrown as its ApiError. */
  async #attempt(
    endpoint: EndpointName,
    method: 'GET' | 'POST' | 'PUT',
    path: string,
    headers: Record<string, string>,
    body: string | FormData | undefined,
    timeoutMs: number,
    attempt: number,
    signal: AbortSignal | undefined,
  ): Promise<AttemptResponse> {
    const release = await this.#limiter.acquire(signal);
    let bytes = 0;
    const started = performance.now();
    this.#hook('onRequest', { endpoint, method, attempt });
    try {
      const response = await sendAttempt(
        this.#pool,
        { endpoint, method, path, headers, body, timeoutMs, maxResponseBytes: this.#maxResponseBytes, signal },
        (s) => this.#scrub(s),
        (n) => (bytes = n),
      );
      const durationMs = performance.now() - started;
      if (response.status >= 200 && response.status <= 299) {
        this.#hook('onResponse', { endpoint, method, status: response.status, durationMs, bytes, attempt });
        return response;
      }
      const retryAfterMs =
        response.status === 429
          ? (parseRetryAfter(response.headers['retry-after'], this.#now()) ??
            backoffDelay(attempt, this.#backoff, this.#random))
          : undefined;
      const error = errorFromResponse(endpoint, response.status, this.#scrubBody(parseJson(response.body)), retryAfterMs);
      this.#hook('onResponse', { endpoint, method, status: response.status, durationMs, bytes, attempt, code: error.code });
      if (error instanceof RateLimitedError) {
        this.#hook('onRateLimited', { endpoint, retryAfterMs: error.retryAfterMs });
        try {
          await this.#limiter.onRateLimited?.(error.retryAfterMs);
        } catch {
          // A limiter that cannot record the slowdown must not turn a 429 into another error.
        }
      }
      throw error;
    } catch (err) {
      if (err instanceof ApiError && err.status === undefined) {
        const status = err.code === 'timeout' ? 'timeout' : 'network';
        this.#hook('onResponse', { endpoint, method, status, durationMs: performance.now() - started, bytes, attempt, code: err.code });
      } else if (err instanceof ApiError && err.code === 'response_too_large') {
        this.#hook('onResponse', {
          endpoint,
          method,
          status: err.status ?? 'network',
          durationMs: performance.now() - started,
          bytes,
          attempt,
          code: err.code,
        });
      }
      throw err;
    } finally {
      release();
    }
  }

  #scrub(text: string): string {
    return text.includes(this.#token) ? text.split(this.#token).join(REDACTED) : text;
  }

  /** Removes the token from a server's error envelope before it becomes an error message. */
  #scrubBody(body: unknown): unknown {
    if (body === NOT_JSON) return undefined;
    const text = JSON.stringify(body);
    return text !== undefined && text.includes(this.#token) ? JSON.parse(this.#scrub(text)) : body;
  }

  #hook<K extends keyof ClientHooks>(name: K, event: Parameters<NonNullable<ClientHooks[K]>>[0]): void {
    try {
      (this.#hooks[name] as ((e: typeof event) => void) | undefined)?.(event);
    } catch {
      // Hooks observe; a failing metric must not fail the request.
    }
  }
}

const NOT_JSON = Symbol('not json');

function parseJson(body: Buffer): unknown {
  if (body.length === 0) return NOT_JSON;
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    return NOT_JSON;
  }
}

/** spec 4.1 / 1.3: people filters as repeated `name[]` keys, `decimal_format` as 1/0. */
function peopleParams(q: PeopleQuery): Params {
  return {
    begin_date: q.beginDate,
    end_date: q.endDate,
    'national_registry_list[]': q.nationalRegistryList,
    'email_list[]': q.emailList,
    decimal_format: q.decimalFormat,
  };
}

function periodByCpfParams(q: PeriodByCpfQuery): Params {
  return { begin_date: q.beginDate, end_date: q.endDate, national_registry: q.nationalRegistry };
}
