/**
 * Turns the optional tracing on (docs/operations.md "Tracing"): loads OpenTelemetry's
 * trace SDK and the OTLP/HTTP exporter — only now, by dynamic import, so a process without
 * OTEL_EXPORTER_OTLP_ENDPOINT never loads them — registers a tracer provider and an
 * AsyncLocalStorage context manager (which carries the active span across `await`s; the 3.x
 * SDK has no Node provider that registers one) and installs its tracer for the
 * instrumentation points (src/telemetry/tracing.ts). `shutdown` sends what is buffered and
 * turns it all off again.
 */
import type { SpanExporter } from '@opentelemetry/sdk-trace';
import type { TracingSettings } from '../config.js';
import type { Logger } from '../logger.js';
import { redactUrl } from '../util/database-url.js';
import { installTracing } from './tracing.js';
import { withTimeout } from '../util/timeout.js';

/** Name and version of the instrumentation (the tracer's scope). */
const INSTRUMENTATION = 'punchline';

/** Longest wait for the collector when the process ends, ms: a collector that is down must not hold the exit. */
const SHUTDOWN_TIMEOUT_MS = 5_000;

/** Options of {@link startTracing}. */
export interface TracingOptions {
  /** Where spans go instead of the OTLP exporter (tests: an InMemorySpanExporter). */
  readonly exporter?: SpanExporter;
  /** Export each span when it ends instead of in batches (tests). */
  readonly immediate?: boolean;
  /** Logs a failed export (never the headers). */
  readonly logger?: Logger;
}

/** Tracing that runs until {@link RunningTracing.shutdown}. */
export interface RunningTracing {
  /** Exports the spans still buffered (at most a few seconds) and turns tracing off. */
  shutdown(): Promise<void>;
}

/**
 * Starts tracing to `settings.endpoint` (or `options.exporter`). Returns undefined, having
 * loaded nothing, when neither is given.
 */
export async function startTracing(
  settings: TracingSettings | undefined,
  options: TracingOptions = {},
): Promise<RunningTracing | undefined> {
  if (settings === undefined && options.exporter === undefined) return undefined;
  const [api, sdk, resources, hooks] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/sdk-trace'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/context-async-hooks'),
  ]);
  let exporter = options.exporter;
  if (exporter === undefined) {
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
    exporter = new OTLPTraceExporter({
      url: `${settings!.endpoint}/v1/traces`,
      headers: { ...settings!.headers },
      timeoutMillis: SHUTDOWN_TIMEOUT_MS,
    });
  }
  const processor = options.immediate
    ? new sdk.SimpleSpanProcessor({ exporter })
    : new sdk.BatchSpanProcessor({ exporter, exportTimeoutMillis: SHUTDOWN_TIMEOUT_MS });
  const provider = new sdk.TracerProvider({
    resource: resources.resourceFromAttributes({ 'service.name': settings?.serviceName ?? INSTRUMENTATION }),
    spanProcessors: [processor],
  });
  api.context.setGlobalContextManager(new hooks.AsyncLocalStorageContextManager().enable());
  api.trace.setGlobalTracerProvider(provider);
  installTracing({ api, tracer: api.trace.getTracer(INSTRUMENTATION) });
  options.logger?.info(
    { endpoint: settings ? redactUrl(settings.endpoint) : 'in process' },
    'tracing on: jobs, API requests and loads are spans',
  );
  return {
    async shutdown() {
      installTracing(undefined);
      try {
        await withTimeout(provider.shutdown(), SHUTDOWN_TIMEOUT_MS + 1_000, 'the tracing collector');
      } catch (err) {
        options.logger?.warn({ err }, 'could not send the last spans');
      } finally {
        api.trace.disable();
        api.context.disable();
        api.propagation.disable();
      }
    },
  };
}
