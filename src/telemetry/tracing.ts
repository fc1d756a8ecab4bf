/**
 * The instrumentation side of the optional tracing (docs/operations.md "Tracing"): the
 * job, API-request and load code start their spans here. Until `src/telemetry/tracing-sdk.ts`
 * installs a tracer (only when OTEL_EXPORTER_OTLP_ENDPOINT is set) every call is one
 * check of a module variable and nothing of OpenTelemetry is loaded: this file imports
 * its types only. Attributes carry names, codes and counts, never a message, a token or
 * a person's data; callers pass only such values.
 */
import type * as otel from '@opentelemetry/api';

/** The OpenTelemetry API and the tracer, once tracing is on. */
export interface InstalledTracing {
  /** The `@opentelemetry/api` module (for the context and span kinds). */
  readonly api: typeof otel;
  /** Where spans come from. */
  readonly tracer: otel.Tracer;
}

/** Span kinds used here, as OpenTelemetry names them. */
export type SpanKindName = 'internal' | 'client' | 'consumer';

/** Attributes of a span; undefined values are left out. */
export type SpanAttributes = Readonly<Record<string, string | number | boolean | undefined>>;

/** A span in progress, ended by whoever started it. */
export interface OpenSpan {
  /** Adds attributes. */
  set(attributes: SpanAttributes): void;
  /** Ends the span; with `err`, marks it failed with the error's code as `error.type` (never its message). */
  end(err?: unknown): void;
}

let installed: InstalledTracing | undefined;

/** Turns tracing on with `tracing`, or off with undefined (src/telemetry/tracing-sdk.ts does both). */
export function installTracing(tracing: InstalledTracing | undefined): void {
  installed = tracing;
}

/** True while a tracer is installed. */
export function tracingOn(): boolean {
  return installed !== undefined;
}

/** `error.type` of a failure: its code (`timeout`, `invalid_service_token`, `23505`), else its class name. */
export function errorType(err: unknown): string {
  const e = err as { code?: unknown; name?: unknown } | null | undefined;
  if (e && typeof e.code === 'string' && e.code !== '') return e.code;
  if (e && typeof e.code === 'number') return String(e.code);
  return e && typeof e.name === 'string' && e.name !== '' ? e.name : 'Error';
}

function defined(attributes: SpanAttributes): otel.Attributes {
  const out: otel.Attributes = {};
  for (const [k, v] of Object.entries(attributes)) if (v !== undefined) out[k] = v;
  return out;
}

function kindOf(api: typeof otel, kind: SpanKindName): otel.SpanKind {
  return kind === 'client'
    ? api.SpanKind.CLIENT
    : kind === 'consumer'
      ? api.SpanKind.CONSUMER
      : api.SpanKind.INTERNAL;
}

function open(api: typeof otel, span: otel.Span): OpenSpan {
  let ended = false;
  return {
    set: (attributes) => void span.setAttributes(defined(attributes)),
    end(err) {
      if (ended) return;
      ended = true;
      if (err !== undefined) {
        const type = errorType(err);
        span.setAttribute('error.type', type);
        span.setStatus({ code: api.SpanStatusCode.ERROR, message: type });
      }
      span.end();
    },
  };
}

/**
 * Starts a span, child of the active one, when tracing is on (undefined otherwise). It
 * does not become the active span: what runs meanwhile is not nested under it.
 */
export function startSpan(
  name: string,
  kind: SpanKindName,
  attributes: SpanAttributes = {},
): OpenSpan | undefined {
  const t = installed;
  if (!t) return undefined;
  return open(
    t.api,
    t.tracer.startSpan(name, { kind: kindOf(t.api, kind), attributes: defined(attributes) }),
  );
}

/**
 * Runs `work` inside a span, child of the active one, that is active while it runs (the
 * spans `work` starts nest under it), and ends it with the outcome: failed when `work`
 * throws, unless `failed` says the error is no failure. Without tracing, just runs `work`.
 */
export async function withSpan<T>(
  name: string,
  kind: SpanKindName,
  attributes: SpanAttributes,
  work: (span: OpenSpan | undefined) => Promise<T>,
  failed: (err: unknown) => boolean = () => true,
): Promise<T> {
  const t = installed;
  if (!t) return work(undefined);
  const span = t.tracer.startSpan(name, { kind: kindOf(t.api, kind), attributes: defined(attributes) });
  const handle = open(t.api, span);
  try {
    const result = await t.api.context.with(t.api.trace.setSpan(t.api.context.active(), span), () =>
      work(handle),
    );
    handle.end();
    return result;
  } catch (err) {
    handle.end(failed(err) ? err : undefined);
    throw err;
  }
}
