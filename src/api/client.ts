/**
 * src/api/ — the Customer API v2 client: endpoints, record schemas, errors, retries,
 * streamed answers.
 *
 * Typed client of Customer API v2: one method per endpoint of spec §4, every response
 * validated against the schemas, errors mapped by `error.code` (errors.ts), transient
 * failures retried (retry.ts), each HTTP attempt admitted by the connection's limiter.
 *
 * The token travels only in the `apiServiceToken` header (spec §5); it is scrubbed from
 * every server message that ends up in an error and is never passed to a hook.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { Pool, type FormData } from 'undici';
import type { z } from 'zod';
import type { ClientHooks, ClientOptions, CallOptions } from './client-options.js';
import { ENDPOINTS, streamTarget, type ElementOf, type EndpointData, type EndpointName, type HttpMethod, type ListEndpointName, type StreamEndpoint } from './endpoints.js';
import { ApiError, elementTooLarge, errorFromResponse, isApiError, type ApiErrorOf } from './errors.js';
import { DataStream, NotAnEnvelopeError, OversizedElement } from './data-stream.js';
import { noteUnknownFields } from './drift.js';
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
import { openAttempt, sendAttempt, type AttemptResponse, type OpenResponse } from './transport.js';
import { validateEnvelope, validatePart } from './validate.js';
import { startSpan, tracingOn, type OpenSpan } from '../telemetry/tracing.js';
import type {
  Absence,
  AbsenceAttachment,
  AbsenceType,
  AuditPhoto,
  CollaboratorAdjustments,
  CollaboratorBlock,
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

/**
 * One element of a streamed list ({@link ApiClient.stream}): validated against its
 * schema, or the element as sent with what is wrong with it (the caller decides whether
 * one bad element fails the whole answer). An element over `maxElementBytes` is not
 * read: its `raw` is undefined and its error an `element_too_large`.
 */
export type StreamedElement<T> =
  | { readonly index: number; readonly ok: true; readonly value: T; readonly raw: unknown }
  | { readonly index: number; readonly ok: false; readonly raw: unknown; readonly error: ApiErrorOf<'response_invalid' | 'element_too_large'> };

/** Counts of one call's failed attempts, for the retry decision. */
interface RetryState {
  failures: number;
  rateLimited: number;
}

const DEFAULTS = {
  timeoutMs: 30_000,
  answerDeadlineMs: 600_000,
  maxAnswerBytes: 1024 * 1024 * 1024,
  maxElementBytes: 32 * 1024 * 1024,
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

/** Typed client of Customer API v2 (docs/client.md): a method per endpoint of the table, `stream` for any list. */
export class ApiClient {
  readonly #pool: Pool;
  readonly #basePath: string;
  readonly #token: string;
  readonly #timeoutMs: number;
  readonly #bodyIdleTimeoutMs: number;
  readonly #answerDeadlineMs: number;
  readonly #maxAnswerBytes: number;
  readonly #maxElementBytes: number;
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
  /** Scheme, host and port of the API, for the spans of its requests. */
  readonly #server: { readonly scheme: string; readonly address: string; readonly port: number };

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
    this.#server = { scheme: url.protocol.slice(0, -1), address: url.hostname, port: Number(url.port) || (url.protocol === 'https:' ? 443 : 80) };
    this.#timeoutMs = options.timeoutMs ?? DEFAULTS.timeoutMs;
    this.#bodyIdleTimeoutMs = options.bodyIdleTimeoutMs ?? this.#timeoutMs;
    this.#answerDeadlineMs = options.answerDeadlineMs ?? DEFAULTS.answerDeadlineMs;
    this.#maxAnswerBytes = options.maxAnswerBytes ?? DEFAULTS.maxAnswerBytes;
    this.#maxElementBytes = options.maxElementBytes ?? DEFAULTS.maxElementBytes;
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
      bodyTimeout: this.#bodyIdleTimeoutMs,
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

    const timeoutMs = opts.timeoutMs ?? this.#timeoutMs;
    const retries: RetryState = { failures: 0, rateLimited: 0 };
    for (let attempt = 1; ; attempt++) {
      let response: AttemptResponse;
      let parsed: unknown;
      try {
        response = await this.#attempt(endpoint, def.method, path, headers, body?.(), timeoutMs, attempt, opts);
        parsed = parseJson(response.body);
        // spec 1.1: all responses are JSON; a 200 that is not (a proxy's page, a cut body) is retried.
        if (parsed === NOT_JSON) throw new ApiError('response_not_json', { endpoint, status: response.status });
      } catch (err) {
        await this.#waitToRetry(endpoint, def.method, err, attempt, retries, opts);
        continue;
      }
      if (def.method === 'GET') noteUnknownFields(endpoint, def.data, (parsed as { data?: unknown } | null)?.data);
      const envelope = validateEnvelope<EndpointData<E>>(endpoint, def, parsed, {
        includeBranches: params.scope?.includeBranches === true,
      });
      return { status: response.status, data: envelope.data, meta: envelope.meta, bytes: response.body.length };
    }
  }

  /**
   * Reads a list endpoint (spec 4.1) as a stream: each element of `data` is validated
   * and handed over as soon as it has arrived, so memory holds one element, not the
   * answer. Failures before the first element (status errors, a body that is not JSON)
   * are retried like {@link ApiClient.request}; a failure after it throws (a transient
   * one as a retryable error), since the caller has already used part of the answer.
   * `meta` is validated when the body has ended. The answer is bounded
   * (`bodyIdleTimeoutMs`, `answerDeadlineMs`, `maxAnswerBytes`, docs/client.md), and so
   * is each element (`maxElementBytes`): a larger one is handed over unread, as an error.
   */
  async *stream<E extends ListEndpointName | StreamEndpoint>(
    endpointOrDef: E,
    query: Params,
    scope?: Scope,
    opts: CallOptions = {},
  ): AsyncGenerator<StreamedElement<E extends ListEndpointName ? ElementOf<E> : E extends StreamEndpoint<infer T> ? T : never>> {
    type Out = E extends ListEndpointName ? ElementOf<E> : E extends StreamEndpoint<infer T> ? T : never;
    const def = streamTarget(endpointOrDef);
    const endpoint = def.name as EndpointName;
    const element = def.element;
    if (!element) throw new TypeError(`ApiClient: ${endpoint} does not answer a list`);
    const search = buildQuery({ ...query, ...scopeParams(scope) });
    const path = `${this.#basePath}${def.path}${search ? `?${search}` : ''}`;
    const headers: Record<string, string> = { accept: 'application/json', apiServiceToken: this.#token };
    const timeoutMs = opts.timeoutMs ?? this.#timeoutMs;
    const retries: RetryState = { failures: 0, rateLimited: 0 };
    for (let attempt = 1; ; attempt++) {
      let index = 0;
      try {
        const opened = await this.#open(endpoint, path, headers, timeoutMs, attempt, opts);
        try {
          const data = new DataStream(opened.response.body, opened.response.destroy, { maxElementBytes: this.#maxElementBytes });
          for await (const raw of data) {
            if (raw instanceof OversizedElement) {
              yield { index, ok: false, raw: undefined, error: elementTooLarge({ endpoint, index, bytes: raw.bytes, limitBytes: raw.limitBytes }) };
              index++;
              continue;
            }
            if (index === 0) noteUnknownFields(endpoint, element, raw);
            const checked = element.safeParse(raw);
            yield checked.success
              ? { index, ok: true, value: checked.data as Out, raw }
              : { index, ok: false, raw, error: elementError(endpoint, index, element, raw) };
            index++;
          }
          if (def.meta !== null) validatePart(endpoint, 'meta', def.meta, data.rest?.meta);
          return;
        } catch (err) {
          const failure = streamFailure(endpoint, err);
          opened.end(failure);
          throw failure;
        } finally {
          // Also when the consumer stopped early: the body is dropped, the slot freed.
          opened.end();
        }
      } catch (err) {
        // Once elements were handed over the answer cannot be read again here.
        if (index > 0) throw err;
        await this.#waitToRetry(endpoint, 'GET', err, attempt, retries, opts);
      }
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

  /** Waits before the next attempt of a failed call, or rethrows `err` when it may not be retried. */
  async #waitToRetry(
    endpoint: EndpointName,
    method: HttpMethod,
    err: unknown,
    attempt: number,
    retries: RetryState,
    opts: CallOptions,
  ): Promise<void> {
    const reason = retryReason(err, method);
    if (reason === null) throw err;
    let delayMs: number;
    if (isApiError(err, 'rate_limited')) {
      retries.rateLimited += 1;
      if (!this.#retryRateLimited || retries.rateLimited > this.#maxRateLimitRetries) throw err;
      if (err.retryAfterMs > this.#maxRetryAfterMs) throw err;
      delayMs = err.retryAfterMs;
    } else {
      retries.failures += 1;
      if (retries.failures >= Math.max(1, opts.maxAttempts ?? this.#maxAttempts)) throw err;
      delayMs = backoffDelay(retries.failures, this.#backoff, this.#random);
    }
    this.#hook('onRetry', { endpoint, attempt, delayMs, reason });
    await this.#sleep(delayMs, opts.signal);
  }

  /**
   * One streamed GET attempt: limiter admission, send, and a 2xx response whose body is
   * still to be read; the admission is held until `end` (the request is in flight until
   * its body has been read). A non-2xx answer is read, reported and thrown as its ApiError.
   */
  async #open(
    endpoint: EndpointName,
    path: string,
    headers: Record<string, string>,
    timeoutMs: number,
    attempt: number,
    opts: CallOptions,
  ): Promise<{ response: OpenResponse; end(err?: unknown): void }> {
    const { signal } = opts;
    const release = await this.#limiter.acquire(signal);
    let bytes = 0;
    const started = performance.now();
    this.#hook('onRequest', { endpoint, method: 'GET', attempt });
    opts.onAttempt?.();
    const span = this.#requestSpan(endpoint, 'GET', path, attempt);
    let response: OpenResponse;
    try {
      response = await openAttempt(
        this.#pool,
        { endpoint, method: 'GET', path, headers, timeoutMs, idleTimeoutMs: this.#bodyIdleTimeoutMs, signal },
        { deadlineMs: this.#answerDeadlineMs, maxAnswerBytes: this.#maxAnswerBytes },
        (s) => this.#scrub(s),
        (n) => (bytes = n),
      );
    } catch (err) {
      this.#reportFailure(endpoint, 'GET', err, started, bytes, attempt);
      span?.end(err);
      release();
      throw err;
    }
    span?.set({ 'http.response.status_code': response.status });
    if (response.status < 200 || response.status > 299) {
      try {
        const chunks: Buffer[] = [];
        for await (const chunk of response.body) if (bytes <= this.#maxResponseBytes) chunks.push(chunk);
        throw await this.#errorOf(endpoint, 'GET', response.status, response.headers, Buffer.concat(chunks), started, bytes, attempt);
      } catch (err) {
        if (!(err instanceof ApiError && err.status === response.status)) this.#reportFailure(endpoint, 'GET', err, started, bytes, attempt);
        span?.end(err);
        throw err;
      } finally {
        response.destroy();
        release();
      }
    }
    let ended = false;
    return {
      response,
      end: (err?: unknown) => {
        if (ended) return;
        ended = true;
        if (err === undefined) {
          this.#hook('onResponse', { endpoint, method: 'GET', status: response.status, durationMs: performance.now() - started, bytes, attempt });
        } else {
          this.#reportFailure(endpoint, 'GET', err, started, bytes, attempt);
        }
        span?.set({ 'http.response.body.size': bytes });
        span?.end(err);
        response.destroy();
        release();
      },
    };
  }

  /** One HTTP attempt: limiter admission, send, hooks; a non-2xx answer is thrown as its ApiError. */
  async #attempt(
    endpoint: EndpointName,
    method: HttpMethod,
    path: string,
    headers: Record<string, string>,
    body: string | FormData | undefined,
    timeoutMs: number,
    attempt: number,
    opts: CallOptions,
  ): Promise<AttemptResponse> {
    const { signal } = opts;
    const release = await this.#limiter.acquire(signal);
    let bytes = 0;
    const started = performance.now();
    this.#hook('onRequest', { endpoint, method, attempt });
    opts.onAttempt?.();
    const span = this.#requestSpan(endpoint, method, path, attempt);
    try {
      const response = await sendAttempt(
        this.#pool,
        { endpoint, method, path, headers, body, timeoutMs, idleTimeoutMs: this.#bodyIdleTimeoutMs, maxResponseBytes: this.#maxResponseBytes, signal },
        (s) => this.#scrub(s),
        (n) => (bytes = n),
      );
      span?.set({ 'http.response.status_code': response.status, 'http.response.body.size': bytes });
      if (response.status >= 200 && response.status <= 299) {
        this.#hook('onResponse', { endpoint, method, status: response.status, durationMs: performance.now() - started, bytes, attempt });
        span?.end();
        return response;
      }
      throw await this.#errorOf(endpoint, method, response.status, response.headers, response.body, started, bytes, attempt);
    } catch (err) {
      this.#reportFailure(endpoint, method, err, started, bytes, attempt);
      span?.end(err);
      throw err;
    } finally {
      release();
    }
  }

  /** The ApiError of a non-2xx answer, reported to the hooks; a 429 also slows the limiter. */
  async #errorOf(
    endpoint: EndpointName,
    method: HttpMethod,
    status: number,
    headers: Record<string, string | string[] | undefined>,
    body: Buffer,
    started: number,
    bytes: number,
    attempt: number,
  ): Promise<ApiError> {
    const retryAfterMs =
      status === 429
        ? (parseRetryAfter(headers['retry-after'], this.#now()) ?? backoffDelay(attempt, this.#backoff, this.#random))
        : undefined;
    const error = errorFromResponse(endpoint, status, this.#scrubBody(parseJson(body)), retryAfterMs);
    this.#hook('onResponse', { endpoint, method, status, durationMs: performance.now() - started, bytes, attempt, code: error.code });
    if (isApiError(error, 'rate_limited')) {
      this.#hook('onRateLimited', { endpoint, retryAfterMs: error.retryAfterMs });
      try {
        await this.#limiter.onRateLimited?.(error.retryAfterMs);
      } catch {
        // A limiter that cannot record the slowdown must not turn a 429 into another error.
      }
    }
    return error;
  }

  /** Reports an attempt that ended without a reported answer (no response, or a body that could not be used). */
  #reportFailure(endpoint: EndpointName, method: HttpMethod, err: unknown, started: number, bytes: number, attempt: number): void {
    if (!(err instanceof ApiError)) return;
    let status: number | 'network' | 'timeout';
    if (err.status === undefined) status = err.code === 'timeout' ? 'timeout' : 'network';
    else if (err.code === 'response_too_large' || err.code === 'response_not_json' || err.code === 'answer_too_large') status = err.status;
    else return;
    this.#hook('onResponse', { endpoint, method, status, durationMs: performance.now() - started, bytes, attempt, code: err.code });
  }

  /**
   * The span of one HTTP attempt when tracing is on (docs/operations.md "Tracing"), under
   * OpenTelemetry's HTTP client names: method, server, and the path without its query,
   * which may name CPFs; never a header, so never the token.
   */
  #requestSpan(endpoint: EndpointName, method: HttpMethod, path: string, attempt: number): OpenSpan | undefined {
    if (!tracingOn()) return undefined;
    const urlPath = path.split('?', 1)[0]!;
    return startSpan(`${method} ${urlPath}`, 'client', {
      'http.request.method': method,
      'url.scheme': this.#server.scheme,
      'url.path': urlPath,
      'server.address': this.#server.address,
      'server.port': this.#server.port,
      'http.request.resend_count': attempt > 1 ? attempt - 1 : undefined,
      'punchline.endpoint': endpoint,
    });
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

/** What a failure while reading a streamed body means for the call. */
function streamFailure(endpoint: string, err: unknown): unknown {
  // spec 1.1: all responses are JSON; an HTML page or a cut body is retried. The scanner's
  // messages say where (`data[3]: is not valid JSON`), never what: a body may hold personal data.
  if (err instanceof SyntaxError) return new ApiError('response_not_json', { endpoint, status: 200, message: err.message });
  if (err instanceof NotAnEnvelopeError) {
    const fieldPath = err.message.slice(0, err.message.indexOf(':'));
    return new ApiError('response_invalid', { endpoint, status: 200, fieldPath, message: err.message });
  }
  return err;
}

/** The validation error of one element of `data` (its path starts `data[index]`). */
function elementError(endpoint: string, index: number, schema: z.ZodType, raw: unknown): ApiErrorOf<'response_invalid'> {
  try {
    validatePart(endpoint, `data[${index}]`, schema, raw);
  } catch (err) {
    if (isApiError(err, 'response_invalid')) return err;
    throw err;
  }
  throw new Error(`elementError: data[${index}] of ${endpoint} is valid`);
}

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
