/**
 * src/api/ — the Customer API v2 client: endpoints, record schemas, errors, retries,
 * streamed answers.
 *
 * One method per endpoint of spec §4, every response validated against the schemas, errors
 * mapped by `error.code` (errors.ts), transient failures retried (retry.ts), each HTTP
 * attempt admitted by the connection's limiter. The token travels only in the
 * `apiServiceToken` header (spec §5), is scrubbed from every server message that ends up
 * in an error and is never passed to a hook.
 */
import { Pool, type FormData } from 'undici';
import type { z } from 'zod';
import type { ClientHooks, ClientOptions, CallOptions } from './client-options.js';
import { ENDPOINTS, streamTarget, type ElementOf, type EndpointData } from './endpoints.js';
import type { EndpointName, HttpMethod, ListEndpointName, StreamEndpoint } from './endpoints.js';
import {
  ApiError,
  elementTooDeep,
  elementTooLarge,
  errorFromResponse,
  isApiError,
  type ApiErrorOf,
} from './errors.js';
import { DataStream, NotAnEnvelopeError, OversizedElement, TooDeepElement } from './data-stream.js';
import { noteUnknownFields, watchingDrift, type DriftWatch } from './drift.js';
import { abortableSleep, unlimited } from './limiter.js';
import type { DateTimePeriod, NewAbsence, OvertimeQuery, WriteBodies } from './params.js';
import type { PeopleQuery, PeriodByCpfQuery } from './params.js';
import {
  buildMultipart,
  buildQuery,
  scopeParams,
  type Attachment,
  type Params,
  type Scope,
} from './query.js';
import { backoffDelay, parseRetryAfter, retryReason } from './retry.js';
import { openAttempt, sendAttempt } from './transport.js';
import type { AttemptRequest, AttemptResponse, OpenResponse } from './transport.js';
import { validateEnvelope, validatePart } from './validate.js';
import { startSpan, tracingOn, type OpenSpan } from '../telemetry/tracing.js';
import type { Company } from './schemas.js';

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
 * One element of a streamed list ({@link ApiClient.stream}): validated, or as sent with its error
 * (the caller decides what that means); one over `maxElementBytes` comes unread (`raw` undefined).
 */
export type StreamedElement<T> =
  | { readonly index: number; readonly ok: true; readonly value: T; readonly raw: unknown }
  | {
      readonly index: number;
      readonly ok: false;
      readonly raw: unknown;
      readonly error: ApiErrorOf<'response_invalid' | 'element_too_large' | 'element_too_deep'>;
    };

/** The element type of what {@link ApiClient.stream} reads. */
type StreamedOf<E> = E extends ListEndpointName
  ? ElementOf<E>
  : E extends StreamEndpoint<infer T>
    ? T
    : never;

/** One HTTP attempt under way: what its hooks and span report. */
interface Attempt {
  readonly endpoint: string;
  readonly method: HttpMethod;
  readonly attempt: number;
  readonly started: number;
  readonly release: () => void;
  readonly span: OpenSpan | undefined;
  /** Body bytes read so far. */
  bytes: number;
}

/** Counts of one call's failed attempts, for the retry decision. */
type Retries = { failures: number; rateLimited: number };

/** The options with their defaults (docs/client.md "Reference"). */
function settings(o: ClientOptions) {
  const timeoutMs = o.timeoutMs ?? 30_000;
  return {
    timeoutMs,
    bodyIdleTimeoutMs: o.bodyIdleTimeoutMs ?? timeoutMs,
    answerDeadlineMs: o.answerDeadlineMs ?? 600_000,
    maxAnswerBytes: o.maxAnswerBytes ?? 1024 * 1024 * 1024,
    maxElementBytes: o.maxElementBytes ?? 32 * 1024 * 1024,
    maxAttempts: Math.max(1, o.maxAttempts ?? 6),
    maxResponseBytes: o.maxResponseBytes ?? 64 * 1024 * 1024,
    limiter: o.limiter ?? unlimited,
    hooks: o.hooks ?? ({} as ClientHooks),
    retryRateLimited: o.retryRateLimited ?? true,
    maxRateLimitRetries: o.maxRateLimitRetries ?? 10,
    maxRetryAfterMs: o.maxRetryAfterMs ?? 300_000,
    backoff: { baseMs: o.retryBaseMs ?? 500, maxMs: o.retryMaxDelayMs ?? 30_000 },
    sleep: o.sleep ?? abortableSleep,
    random: o.random ?? Math.random,
    now: o.now ?? Date.now,
  };
}

/** Typed client of Customer API v2 (docs/client.md): a method per endpoint of the table, `stream` for any list. */
export class ApiClient {
  readonly #pool: Pool;
  readonly #basePath: string;
  readonly #token: string;
  readonly #cfg: ReturnType<typeof settings>;
  readonly #drift: DriftWatch | undefined;
  /** Scheme, host and port of the API, for the spans of its requests. */
  readonly #server: { readonly scheme: string; readonly address: string; readonly port: number };

  constructor(options: ClientOptions) {
    const url = URL.canParse(options.baseUrl) ? new URL(options.baseUrl) : undefined;
    if (url?.protocol !== 'http:' && url?.protocol !== 'https:') {
      throw new TypeError(
        `ApiClient: baseUrl must be an http(s) URL, got ${JSON.stringify(options.baseUrl)}`,
      );
    }
    if (!options.token) throw new TypeError('ApiClient: token is empty (set SERVICE_API_TOKEN)');
    this.#token = options.token;
    this.#basePath = url.pathname.replace(/\/+$/, '');
    this.#server = {
      scheme: url.protocol.slice(0, -1),
      address: url.hostname,
      port: Number(url.port) || (url.protocol === 'https:' ? 443 : 80),
    };
    this.#cfg = settings(options);
    this.#drift = options.drift;
    this.#pool = new Pool(url.origin, {
      connections: options.connections ?? 16,
      pipelining: 1,
      keepAliveTimeout: 10_000,
      headersTimeout: this.#cfg.timeoutMs,
      bodyTimeout: this.#cfg.bodyIdleTimeoutMs,
      connect: { timeout: Math.min(this.#cfg.timeoutMs, 10_000) },
    });
  }

  // ---- spec 4.1: reads ----------------------------------------------------------------

  /** `GET collaborator`: active collaborators. */
  readonly listCollaborators = this.#list('collaborator');
  /** `GET collaborator/totalHours`: hour totals per collaborator for a period of at most 31 days. */
  readonly getTotalHours = this.#query('collaborator/totalHours', peopleParams);
  /** `GET point/getFromPeriod`: punches per collaborator and day. */
  readonly getPointsFromPeriod = this.#query('point/getFromPeriod', peopleParams);
  /** `GET point/audit`: the audit photo of one punch. */
  readonly getAuditPhoto = this.#query('point/audit', (id: number) => ({ point_id: id }));
  /** `GET tardiness`: late arrivals per collaborator. */
  readonly getTardiness = this.#query('tardiness', periodParams);
  /** `GET adjustment`: punch-adjustment requests per collaborator. */
  readonly getAdjustments = this.#query('adjustment', periodParams);
  /** `GET overtime`: overtime / hour-bank balance of one day per collaborator. */
  readonly getOvertime = this.#query('overtime', (q: OvertimeQuery) => ({
    date: q.date,
    national_registry: q.nationalRegistry,
  }));
  /** `GET absence/types`. */
  readonly listAbsenceTypes = this.#list('absence/types');
  /** `GET absence/getFromPeriod`: absences overlapping a period of local date-times. */
  readonly getAbsencesFromPeriod = this.#query('absence/getFromPeriod', (q: DateTimePeriod) =>
    periodParams(q),
  );
  /** `GET absence/attachment`: the files of one absence (empty when none). */
  readonly getAbsenceAttachments = this.#query('absence/attachment', (id: number) => ({ absence_id: id }));

  /** `GET company`: the token's company, or the one named by `companyNationalRegistry`. */
  async getCompany(scope?: { companyNationalRegistry?: string }, opts?: CallOptions): Promise<Company> {
    const only =
      scope?.companyNationalRegistry === undefined
        ? undefined
        : { companyNationalRegistry: scope.companyNationalRegistry };
    return this.#read('company', {}, only, opts);
  }

  /** `GET company?include_branches=1`: every company of the economic group (spec 4.1). */
  async listGroupCompanies(opts?: CallOptions): Promise<Company[]> {
    const res = await this.request('company', { scope: { includeBranches: true } }, opts);
    return res.data as unknown as Company[];
  }

  /** `GET economic-group`: headquarters and active branches. */
  readonly getEconomicGroup = this.#list('economic-group');
  /** `GET department`. */
  readonly listDepartments = this.#list('department');
  /** `GET occupation` (active only). */
  readonly listOccupations = this.#list('occupation');
  /** `GET fired-type`: dismissal types. */
  readonly listFiredTypes = this.#list('fired-type');
  /** `GET cost-center` (active only). */
  readonly listCostCenters = this.#list('cost-center');
  /** `GET collaborator-settings`. */
  readonly listCollaboratorSettings = this.#list('collaborator-settings');
  /** `GET point-rule`. */
  readonly listPointRules = this.#list('point-rule');
  /** `GET journey`. */
  readonly listJourneys = this.#list('journey');
  /** `GET barrier`: digital fences. */
  readonly listBarriers = this.#list('barrier');
  /** `GET unit` (default unit first). */
  readonly listUnits = this.#list('unit');

  // ---- spec 4.2: writes (no scope, spec 1.4 rule 2) ----------------------------------

  /** `POST collaborator`. */
  readonly createCollaborator = this.#write('POST collaborator');
  /** `POST collaborator/photo`: face photo for recognition. */
  readonly uploadCollaboratorPhoto = this.#write('POST collaborator/photo');
  /** `PUT collaborator/dismissal`. */
  readonly dismissCollaborator = this.#write('PUT collaborator/dismissal');
  /** `POST point`: registers a punch; returns its id and SHA-256 receipt. */
  readonly registerPoint = this.#write('POST point');

  /** `POST absence` (multipart): `national_registry[]` repeated, one `attachment[]` part per file. */
  async createAbsence(fields: NewAbsence, attachments: readonly Attachment[] = [], opts?: CallOptions) {
    const { national_registry, ...rest } = fields;
    const form = { fields: { 'national_registry[]': national_registry, ...rest }, attachments };
    return (await this.request('POST absence', { form }, opts)).data;
  }

  /** `POST department`. */
  readonly createDepartment = this.#write('POST department');
  /** `POST occupation`. */
  readonly createOccupation = this.#write('POST occupation');
  /** `POST fired-type`. */
  readonly createFiredType = this.#write('POST fired-type');
  /** `POST cost-center`. */
  readonly createCostCenter = this.#write('POST cost-center');

  // ---- low level ----------------------------------------------------------------------

  /**
   * One call of any endpoint with retries, validated against the table, with its envelope.
   * Parameters go as given (the conformance suite sends what the typed methods never would).
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
      throw new TypeError(
        `ApiClient: ${endpoint} is a write; scope and query parameters apply to GET only (spec 1.4)`,
      );
    }
    if (def.method === 'GET' && (params.body || params.form)) {
      throw new TypeError(`ApiClient: ${endpoint} is a GET and takes no body`);
    }

    const query = def.method === 'GET' ? buildQuery({ ...params.query, ...scopeParams(params.scope) }) : '';
    const req = this.#requestOf(endpoint, def.method, def.path, query, opts);
    let body: (() => string | FormData) | undefined;
    if (params.form) {
      const form = params.form;
      // A fresh form per attempt: undici consumes the multipart stream when sending.
      body = () => buildMultipart(form.fields, form.attachments);
    } else if (params.body || def.body === 'json') {
      const json = JSON.stringify(params.body ?? {});
      req.headers['content-type'] = 'application/json';
      body = () => json;
    }

    const retries: Retries = { failures: 0, rateLimited: 0 };
    for (let attempt = 1; ; attempt++) {
      let response: AttemptResponse;
      let parsed: unknown;
      try {
        response = await this.#attempt({ ...req, body: body?.() }, attempt, opts);
        parsed = parseJson(response.body);
        // spec 1.1: all responses are JSON; a 200 that is not (a proxy's page, a cut body) is retried.
        if (parsed === NOT_JSON)
          throw new ApiError('response_not_json', { endpoint, status: response.status });
      } catch (err) {
        await this.#waitToRetry(req, err, attempt, retries, opts);
        continue;
      }
      const drift = this.#drift;
      if (def.method === 'GET' && drift)
        noteUnknownFields(drift, endpoint, def.data, (parsed as { data?: unknown } | null)?.data);
      const envelope = watchingDrift(drift, () =>
        validateEnvelope<EndpointData<E>>(endpoint, def, parsed, {
          includeBranches: params.scope?.includeBranches === true,
        }),
      );
      return {
        status: response.status,
        data: envelope.data,
        meta: envelope.meta,
        bytes: response.body.length,
      };
    }
  }

  /**
   * Reads a list endpoint (spec 4.1) as a stream: each element of `data` validated and handed
   * over as it arrives, so memory holds one element, not the answer; `meta` checked at the end.
   * Failures before the first element are retried like {@link ApiClient.request}, later ones
   * thrown, the caller having used part of the answer. Its bounds: docs/client.md.
   */
  async *stream<E extends ListEndpointName | StreamEndpoint>(
    endpointOrDef: E,
    query: Params,
    scope?: Scope,
    opts: CallOptions = {},
  ): AsyncGenerator<StreamedElement<StreamedOf<E>>> {
    const def = streamTarget(endpointOrDef);
    const endpoint = def.name;
    const element = def.element;
    if (!element) throw new TypeError(`ApiClient: ${endpoint} does not answer a list`);
    const search = buildQuery({ ...query, ...scopeParams(scope) });
    const req = this.#requestOf(endpoint, 'GET', def.path, search, opts);
    const retries: Retries = { failures: 0, rateLimited: 0 };
    for (let attempt = 1; ; attempt++) {
      let index = 0;
      try {
        const opened = await this.#open(req, attempt, opts);
        try {
          const { maxElementBytes } = this.#cfg;
          const data = new DataStream(opened.response.body, opened.response.destroy, { maxElementBytes });
          for await (const raw of data) {
            if (raw instanceof OversizedElement) {
              yield {
                index,
                ok: false,
                raw: undefined,
                error: elementTooLarge({ endpoint, index, bytes: raw.bytes, limitBytes: raw.limitBytes }),
              };
              index++;
              continue;
            }
            if (raw instanceof TooDeepElement) {
              const error = elementTooDeep({ endpoint, index, limitDepth: raw.limitDepth });
              yield { index, ok: false, raw: undefined, error };
              index++;
              continue;
            }
            const drift = this.#drift;
            if (index === 0 && drift) noteUnknownFields(drift, endpoint, element, raw);
            const checked = watchingDrift(drift, () => element.safeParse(raw));
            yield checked.success
              ? { index, ok: true, value: checked.data as StreamedOf<E>, raw }
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
        await this.#waitToRetry(req, err, attempt, retries, opts);
      }
    }
  }

  /** Closes the connection pool (waits for requests in flight). */
  async close(): Promise<void> {
    await this.#pool.close();
  }

  // ---- internals ----------------------------------------------------------------------

  async #read<E extends EndpointName>(
    endpoint: E,
    query: Params,
    scope: Scope | undefined,
    opts: CallOptions | undefined,
  ) {
    return (await this.request(endpoint, { query, ...(scope ? { scope } : {}) }, opts)).data;
  }

  /** The typed method of a read that takes only the scope. */
  #list<E extends EndpointName>(endpoint: E) {
    return (scope?: Scope, opts?: CallOptions) => this.#read(endpoint, {}, scope, opts);
  }

  /** The typed method of a read whose parameters `toParams` encodes. */
  #query<E extends EndpointName, Q>(endpoint: E, toParams: (q: Q) => Params) {
    return (q: Q, scope?: Scope, opts?: CallOptions) => this.#read(endpoint, toParams(q), scope, opts);
  }

  /** The typed method of a JSON write. */
  #write<E extends keyof WriteBodies>(endpoint: E) {
    return async (body: WriteBodies[E], opts?: CallOptions) =>
      (await this.request(endpoint, { body: { ...body } }, opts)).data;
  }

  /** What every attempt of one call sends. */
  #requestOf(endpoint: string, method: HttpMethod, path: string, search: string, opts: CallOptions) {
    return {
      endpoint,
      method,
      path: `${this.#basePath}${path}${search ? `?${search}` : ''}`,
      headers: { accept: 'application/json', apiServiceToken: this.#token } as Record<string, string>,
      timeoutMs: opts.timeoutMs ?? this.#cfg.timeoutMs,
      idleTimeoutMs: this.#cfg.bodyIdleTimeoutMs,
      maxResponseBytes: this.#cfg.maxResponseBytes,
      signal: opts.signal,
    };
  }

  /** Waits before the next attempt of a failed call, or rethrows `err` when it may not be retried. */
  async #waitToRetry(req: AttemptRequest, err: unknown, attempt: number, counts: Retries, opts: CallOptions) {
    const reason = retryReason(err, req.method);
    if (reason === null) throw err;
    let delayMs: number;
    if (isApiError(err, 'rate_limited')) {
      counts.rateLimited += 1;
      if (!this.#cfg.retryRateLimited || counts.rateLimited > this.#cfg.maxRateLimitRetries) throw err;
      if (err.retryAfterMs > this.#cfg.maxRetryAfterMs) throw err;
      delayMs = err.retryAfterMs;
    } else {
      counts.failures += 1;
      if (counts.failures >= Math.max(1, opts.maxAttempts ?? this.#cfg.maxAttempts)) throw err;
      delayMs = backoffDelay(counts.failures, this.#cfg.backoff, this.#cfg.random);
    }
    this.#hook('onRetry', { endpoint: req.endpoint, attempt, delayMs, reason });
    await this.#cfg.sleep(delayMs, opts.signal);
  }

  /**
   * Starts one HTTP attempt: limiter admission, hooks, and its span when tracing is on
   * (docs/operations.md "Tracing"), under OpenTelemetry's HTTP client names: the path
   * without its query, which may name CPFs, and never a header, so never the token.
   */
  async #begin(req: AttemptRequest, attempt: number, opts: CallOptions): Promise<Attempt> {
    const { endpoint, method } = req;
    const release = await this.#cfg.limiter.acquire(opts.signal);
    const started = performance.now();
    this.#hook('onRequest', { endpoint, method, attempt });
    opts.onAttempt?.();
    const urlPath = req.path.split('?', 1)[0]!;
    const span = tracingOn()
      ? startSpan(`${method} ${urlPath}`, 'client', {
          'http.request.method': method,
          'url.scheme': this.#server.scheme,
          'url.path': urlPath,
          'server.address': this.#server.address,
          'server.port': this.#server.port,
          'http.request.resend_count': attempt > 1 ? attempt - 1 : undefined,
          'punchline.endpoint': endpoint,
        })
      : undefined;
    return { endpoint, method, attempt, started, release, span, bytes: 0 };
  }

  /**
   * One streamed GET attempt: a 2xx answer whose body is still to be read, its admission held
   * until `end` (in flight until the body is read); a non-2xx answer is thrown as its ApiError.
   */
  async #open(req: AttemptRequest, attempt: number, opts: CallOptions) {
    const a = await this.#begin(req, attempt, opts);
    const limits = { deadlineMs: this.#cfg.answerDeadlineMs, maxAnswerBytes: this.#cfg.maxAnswerBytes };
    let response: OpenResponse;
    try {
      response = await openAttempt(this.#pool, req, limits, this.#scrub, (n) => (a.bytes = n));
    } catch (err) {
      this.#reportFailure(a, err);
      a.span?.end(err);
      a.release();
      throw err;
    }
    a.span?.set({ 'http.response.status_code': response.status });
    if (response.status < 200 || response.status > 299) {
      try {
        const chunks: Buffer[] = [];
        for await (const chunk of response.body) {
          if (a.bytes <= this.#cfg.maxResponseBytes) chunks.push(chunk);
        }
        throw await this.#errorOf(a, response.status, response.headers, Buffer.concat(chunks));
      } catch (err) {
        if (!(err instanceof ApiError && err.status === response.status)) this.#reportFailure(a, err);
        a.span?.end(err);
        throw err;
      } finally {
        response.destroy();
        a.release();
      }
    }
    let ended = false;
    return {
      response,
      end: (err?: unknown) => {
        if (ended) return;
        ended = true;
        if (err === undefined) this.#responded(a, response.status);
        else this.#reportFailure(a, err);
        a.span?.set({ 'http.response.body.size': a.bytes });
        a.span?.end(err);
        response.destroy();
        a.release();
      },
    };
  }

  /** One HTTP attempt read whole; a non-2xx answer is thrown as its ApiError. */
  async #attempt(req: AttemptRequest, attempt: number, opts: CallOptions): Promise<AttemptResponse> {
    const a = await this.#begin(req, attempt, opts);
    try {
      const response = await sendAttempt(this.#pool, req, this.#scrub, (n) => (a.bytes = n));
      a.span?.set({ 'http.response.status_code': response.status, 'http.response.body.size': a.bytes });
      if (response.status >= 200 && response.status <= 299) {
        this.#responded(a, response.status);
        a.span?.end();
        return response;
      }
      throw await this.#errorOf(a, response.status, response.headers, response.body);
    } catch (err) {
      this.#reportFailure(a, err);
      a.span?.end(err);
      throw err;
    } finally {
      a.release();
    }
  }

  /** The ApiError of a non-2xx answer, reported to the hooks; a 429 also slows the limiter. */
  async #errorOf(a: Attempt, status: number, headers: AttemptResponse['headers'], body: Buffer) {
    const { now, backoff, random } = this.#cfg;
    const retryAfterMs =
      status === 429
        ? (parseRetryAfter(headers['retry-after'], now()) ?? backoffDelay(a.attempt, backoff, random))
        : undefined;
    const error = errorFromResponse(a.endpoint, status, this.#scrubBody(parseJson(body)), retryAfterMs);
    this.#responded(a, status, error.code);
    if (isApiError(error, 'rate_limited')) {
      this.#hook('onRateLimited', { endpoint: a.endpoint, retryAfterMs: error.retryAfterMs });
      try {
        await this.#cfg.limiter.onRateLimited?.(error.retryAfterMs);
      } catch {
        // A limiter that cannot record the slowdown must not turn a 429 into another error.
      }
    }
    return error;
  }

  /** Reports an attempt that ended without a reported answer (no response, or a body that could not be used). */
  #reportFailure(a: Attempt, err: unknown): void {
    if (!(err instanceof ApiError)) return;
    if (err.status !== undefined && !REPORTED_WITH_STATUS.has(err.code)) return;
    this.#responded(a, err.status ?? (err.code === 'timeout' ? 'timeout' : 'network'), err.code);
  }

  /** Tells the `onResponse` hook how an attempt ended. */
  #responded(a: Attempt, status: number | 'network' | 'timeout', code?: string): void {
    const { endpoint, method, bytes, attempt } = a;
    const event = { endpoint, method, status, durationMs: performance.now() - a.started, bytes, attempt };
    this.#hook('onResponse', code === undefined ? event : { ...event, code });
  }

  readonly #scrub = (text: string): string =>
    text.includes(this.#token) ? text.split(this.#token).join(REDACTED) : text;

  /** Removes the token from a server's error envelope before it becomes an error message. */
  #scrubBody(body: unknown): unknown {
    if (body === NOT_JSON) return undefined;
    const text = JSON.stringify(body);
    return text !== undefined && text.includes(this.#token) ? JSON.parse(this.#scrub(text)) : body;
  }

  #hook<K extends keyof ClientHooks>(name: K, event: Parameters<NonNullable<ClientHooks[K]>>[0]): void {
    try {
      (this.#cfg.hooks[name] as ((e: typeof event) => void) | undefined)?.(event);
    } catch {
      // Hooks observe; a failing metric must not fail the request.
    }
  }
}

const REDACTED = '[REDACTED]';
const NOT_JSON = Symbol('not json');
/** Failures after an answer arrived that the `onResponse` hook hears of with its status. */
const REPORTED_WITH_STATUS = new Set(['response_too_large', 'response_not_json', 'answer_too_large']);

/** What a failure while reading a streamed body means for the call. */
function streamFailure(endpoint: string, err: unknown): unknown {
  // spec 1.1: all responses are JSON; an HTML page or a cut body is retried. The scanner's
  // messages say where (`data[3]: is not valid JSON`), never what: a body may hold personal data.
  if (err instanceof SyntaxError)
    return new ApiError('response_not_json', { endpoint, status: 200, message: err.message });
  if (err instanceof NotAnEnvelopeError) {
    const fieldPath = err.message.slice(0, err.message.indexOf(':'));
    return new ApiError('response_invalid', { endpoint, status: 200, fieldPath, message: err.message });
  }
  return err;
}

/** The validation error of one element of `data` (its path starts `data[index]`). */
function elementError(
  endpoint: string,
  index: number,
  schema: z.ZodType,
  raw: unknown,
): ApiErrorOf<'response_invalid'> {
  try {
    validatePart(endpoint, `data[${index}]`, schema, raw);
  } catch (err) {
    if (isApiError(err, 'response_invalid')) return err;
    throw err;
  }
  throw new Error(`elementError: data[${index}] of ${endpoint} is valid`);
}

function parseJson(body: Buffer): unknown {
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

/** spec 4.1: a period, and at most one CPF. */
function periodParams(q: PeriodByCpfQuery): Params {
  return { begin_date: q.beginDate, end_date: q.endDate, national_registry: q.nationalRegistry };
}
