/**
 * A fixture API for engine tests: the two calls the load engine makes on the API client
 * (`stream` for list answers, `request` for object answers), answered per endpoint from
 * fixtures instead of HTTP. Every element is validated with the endpoint's real schema,
 * so an invalid fixture arrives as `ok: false` with the same error the real client
 * builds; an answer may be a function of the query (per window, day or item) and may
 * throw an API error. Every call is recorded, so tests can count re-reads.
 */
import type {
  ApiResponse,
  CallOptions,
  RequestParams,
  Scope,
  StreamedElement,
} from '../../src/api/client.js';
import {
  ENDPOINTS,
  streamTarget,
  type ElementOf,
  type EndpointDef,
  type EndpointData,
  type EndpointName,
  type ListEndpointName,
  type ReadEndpointName,
  type StreamEndpoint,
} from '../../src/api/endpoints.js';
import type { ApiErrorOf } from '../../src/api/errors.js';
import type { Params } from '../../src/api/query.js';
import { validatePart } from '../../src/api/validate.js';

/** One call the engine made. */
export interface FixtureCall {
  /** Endpoint asked (a name of the endpoint table, or of an endpoint a declaration describes inline). */
  readonly endpoint: string;
  /** Query parameters, without scope. */
  readonly query: Params;
  /** spec 1.4 scope parameters, when sent. */
  readonly scope: Scope | undefined;
  /** 1 for the first call of this endpoint, 2 for the next, ... */
  readonly n: number;
}

/** The `data` of an answer, or a function of the call giving it (which may throw an API error). */
export type Answer =
  ((query: Params, call: FixtureCall) => unknown) | readonly unknown[] | Record<string, unknown>;

/** Answers by endpoint name. */
export type Answers = Partial<Record<ReadEndpointName, Answer>> & Readonly<Record<string, Answer>>;

/** The fixture API: {@link stream} and {@link request} as the engine uses them. */
export class FixtureApi {
  /** Every call, in order. */
  readonly calls: FixtureCall[] = [];
  readonly #answers = new Map<string, Answer>();

  constructor(answers: Answers = {}) {
    for (const [endpoint, answer] of Object.entries(answers)) this.#answers.set(endpoint, answer);
  }

  /** Sets (or replaces) the answer of `endpoint`. */
  answer(endpoint: string, answer: Answer): this {
    this.#answers.set(endpoint, answer);
    return this;
  }

  /** The calls made to `endpoint`. */
  callsTo(endpoint: string): FixtureCall[] {
    return this.calls.filter((c) => c.endpoint === endpoint);
  }

  /** A list answer, element by element, each validated with the endpoint's element schema. */
  async *stream<E extends ListEndpointName | StreamEndpoint>(
    target: E,
    query: Params,
    scope?: Scope,
    opts: CallOptions = {},
  ): AsyncGenerator<
    StreamedElement<E extends ListEndpointName ? ElementOf<E> : E extends StreamEndpoint<infer T> ? T : never>
  > {
    type Out = E extends ListEndpointName ? ElementOf<E> : E extends StreamEndpoint<infer T> ? T : never;
    const { name: endpoint, element: schema } = streamTarget(target);
    if (!schema) throw new TypeError(`fixture API: ${endpoint} does not answer a list`);
    const data = this.#data(endpoint, query, scope, opts.signal);
    if (!Array.isArray(data)) throw new TypeError(`fixture API: the answer of ${endpoint} must be a list`);
    for (let index = 0; index < data.length; index++) {
      opts.signal?.throwIfAborted();
      const raw: unknown = data[index];
      const checked = schema.safeParse(raw);
      if (checked.success) {
        yield { index, ok: true, value: checked.data as Out, raw };
        continue;
      }
      // The error the real client gives an invalid element: endpoint, `data[i].path` and problem.
      let error: ApiErrorOf<'response_invalid'> | undefined;
      try {
        validatePart(endpoint, `data[${index}]`, schema, raw);
      } catch (err) {
        error = err as ApiErrorOf<'response_invalid'>;
      }
      yield { index, ok: false, raw, error: error! };
    }
  }

  /** An object answer (or a list taken whole), validated with the endpoint's `data` schema (spec 4.1: `include_branches=1` may change it). */
  async request<E extends EndpointName>(
    endpoint: E,
    params: RequestParams = {},
    opts: CallOptions = {},
  ): Promise<ApiResponse<EndpointData<E>>> {
    const data = this.#data(endpoint, params.query ?? {}, params.scope, opts.signal);
    const def: EndpointDef = ENDPOINTS[endpoint];
    const valid = validatePart(
      endpoint,
      'data',
      (params.scope?.includeBranches ? def.dataWithBranches : undefined) ?? def.data,
      data,
    ) as EndpointData<E>;
    return { status: 200, data: valid, bytes: JSON.stringify(data).length };
  }

  #data(endpoint: string, query: Params, scope: Scope | undefined, signal: AbortSignal | undefined): unknown {
    signal?.throwIfAborted();
    const call: FixtureCall = { endpoint, query, scope, n: this.callsTo(endpoint).length + 1 };
    this.calls.push(call);
    const answer = this.#answers.get(endpoint);
    if (answer === undefined) throw new Error(`fixture API: no answer for ${endpoint}`);
    // A copy: the engine never shares objects with the fixtures a test goes on editing.
    return structuredClone(typeof answer === 'function' ? answer(query, call) : answer);
  }
}
