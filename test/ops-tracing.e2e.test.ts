/**
 * Optional tracing (docs/operations.md "Tracing") on a real sync: a backfill from the
 * emulator over HTTP into a warehouse of its own, with OpenTelemetry's in-memory
 * exporter. Each job, API request and load is a span; they nest (job → load → request,
 * COPY and MERGE); they carry OpenTelemetry's HTTP and database attribute names; and no
 * span holds the token, a CPF or a query string. Without OTEL_EXPORTER_OTLP_ENDPOINT a
 * `punchline` process loads nothing of the SDK; with it, it does, and still exits 0.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { startTracing, type RunningTracing } from '../src/telemetry/tracing-sdk.js';
import { tracingOn } from '../src/telemetry/tracing.js';
import { parseBackfillArgs } from '../src/backfill/args.js';
import { runBackfill, type BackfillSummary } from '../src/backfill/run.js';
import type { SyncRuntime } from '../src/runtime/runtime.js';
import { runPunchline, startHarness, type Harness } from './sync-harness.js';

const TODAY = '2025-06-30';
const FROM = '2025-05-01';
const TO = '2025-05-31';

let h: Harness;
let rt: SyncRuntime;
let tracing: RunningTracing | undefined;
let summary: BackfillSummary;
const exporter = new InMemorySpanExporter();
let spans: ReadableSpan[];

const byId = () => new Map(spans.map((s) => [s.spanContext().spanId, s]));
const parentOf = (s: ReadableSpan) =>
  s.parentSpanContext ? byId().get(s.parentSpanContext.spanId) : undefined;
/** The span and its ancestors, innermost first. */
function chain(s: ReadableSpan): ReadableSpan[] {
  const out = [s];
  for (let p = parentOf(s); p; p = parentOf(p)) out.push(p);
  return out;
}

beforeAll(async () => {
  h = await startHarness('tracing', { today: TODAY });
  expect(tracingOn()).toBe(false);
  tracing = await startTracing(undefined, { exporter, immediate: true });
  rt = await h.runtime();
  summary = await runBackfill(
    rt,
    parseBackfillArgs({ from: FROM, to: TO, resources: 'collaborators,punches' }, rt.config),
    { pollMs: 100 },
  );
  // Each span is exported as it ends; the exporter forgets them when tracing shuts down.
  spans = [...exporter.getFinishedSpans()];
  await tracing!.shutdown();
  expect(tracingOn()).toBe(false);
}, 180_000);

afterAll(async () => {
  await tracing?.shutdown();
  await h?.close();
});

describe('a backfill traced with an in-memory exporter', () => {
  it('makes a span of every job, with its queue, id, resource, company and window', () => {
    expect(summary.failed, JSON.stringify(summary.failures)).toBe(0);
    const jobs = spans.filter((s) => s.kind === SpanKind.CONSUMER);
    const companies = h.emulator.companies.map((c) => c.cnpj);
    const punches = jobs.filter((s) => s.name === 'sync punches');
    expect(punches.map((s) => s.attributes['punchline.company']).sort()).toEqual([...companies].sort());
    for (const s of punches) {
      expect(s.attributes).toMatchObject({
        'messaging.system': 'bullmq',
        'messaging.operation.type': 'process',
        'messaging.destination.name': 'sync',
        'messaging.message.id': `punches.default.${s.attributes['punchline.company']}.${FROM}.${TO}`,
        'punchline.connection': 'default',
        'punchline.resource': 'punches',
        'punchline.window.start': FROM,
        'punchline.window.end': TO,
        'punchline.attempt': 1,
      });
      expect(s.attributes['punchline.rows.inserted']).toBeGreaterThan(0);
      expect(s.status.code).not.toBe(SpanStatusCode.ERROR);
    }
    expect(jobs.filter((s) => s.name === 'sync collaborators')).toHaveLength(companies.length);
  });

  it('nests each load under its job, and the requests, COPY batches and merges of the load under the load', () => {
    const loads = spans.filter((s) => s.name === 'load punches');
    expect(loads).toHaveLength(h.emulator.companies.length);
    for (const load of loads) {
      const job = parentOf(load)!;
      expect(job.name).toBe('sync punches');
      expect(load.attributes).toMatchObject({
        'punchline.resource': 'punches',
        'punchline.company': job.attributes['punchline.company'],
        'punchline.window.start': FROM,
      });
      const children = spans.filter((s) => parentOf(s) === load);
      const requests = children.filter(
        (s) => s.kind === SpanKind.CLIENT && s.attributes['http.request.method'] === 'GET',
      );
      expect(requests.map((s) => s.attributes['url.path'])).toEqual(['/customer/v2/point/getFromPeriod']);
      const writes = children.filter((s) => s.attributes['db.system'] === 'postgresql');
      expect(writes.map((s) => s.name)).toEqual(
        expect.arrayContaining(['COPY punches', 'MERGE punches', 'COPY work_days', 'MERGE work_days']),
      );
      expect(load.attributes['punchline.rows.received']).toBeGreaterThan(0);
    }
  });

  it('gives API requests OpenTelemetry HTTP client attributes, and each request of a job lies within its trace', () => {
    const requests = spans.filter((s) => s.attributes['http.request.method'] !== undefined);
    expect(requests.length).toBeGreaterThan(h.emulator.companies.length * 2);
    const api = new URL(h.emulator.url);
    for (const s of requests) {
      expect(s.kind).toBe(SpanKind.CLIENT);
      expect(s.attributes).toMatchObject({
        'url.scheme': 'http',
        'server.address': api.hostname,
        'server.port': Number(api.port),
        'http.response.status_code': 200,
      });
      expect(s.name).toBe(`GET ${s.attributes['url.path']}`);
    }
    const inJobs = requests.filter((s) => chain(s).some((p) => p.kind === SpanKind.CONSUMER));
    // Only the backfill's own group walk, before any job, is outside one.
    expect(
      requests
        .filter((s) => !inJobs.includes(s))
        .map((s) => s.attributes['punchline.endpoint'])
        .sort(),
    ).toEqual(['company', 'economic-group']);
    for (const s of inJobs) expect(s.spanContext().traceId).toBe(chain(s).at(-1)!.spanContext().traceId);
  });

  it('gives the warehouse writes OpenTelemetry database attributes', () => {
    const writes = spans.filter((s) => s.attributes['db.system'] === 'postgresql');
    expect(writes.length).toBeGreaterThan(0);
    for (const s of writes) {
      expect(s.attributes['db.system.name']).toBe('postgresql');
      expect(['COPY', 'MERGE']).toContain(s.attributes['db.operation.name']);
      expect(s.name).toBe(`${s.attributes['db.operation.name']} ${s.attributes['db.collection.name']}`);
      expect(chain(s).map((p) => p.name)).toContain(
        `sync ${chain(s).find((p) => p.kind === SpanKind.CONSUMER)!.attributes['punchline.resource']}`,
      );
    }
  });

  it('holds no token, no CPF, no name and no query string', () => {
    const text = JSON.stringify(
      spans.map((s) => ({
        name: s.name,
        attributes: s.attributes,
        status: s.status,
        events: s.events,
        resource: s.resource.attributes,
      })),
    );
    for (const c of h.emulator.companies) expect(text).not.toContain(c.token);
    const people = h.emulator.companies.flatMap((c) => h.emulator.truth.collaborators(c.cnpj));
    expect(people.length).toBeGreaterThan(0);
    for (const p of people) {
      expect(text).not.toContain(p.national_registry);
      expect(text).not.toContain(p.name);
    }
    expect(text).not.toMatch(/apiServiceToken|begin_date|\?/);
  });
});

describe('the punchline command', () => {
  const dir = mkdtempSync(join(tmpdir(), 'punchline-tracing-'));
  const log = join(dir, 'loaded.txt');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Runs `punchline status --json`, recording every ES module of OpenTelemetry's SDK it loads. */
  async function sdkModulesLoadedBy(
    env: Record<string, string>,
  ): Promise<{ code: number | null; stderr: string; modules: string[] }> {
    writeFileSync(log, '');
    const hooks = join(dir, 'hooks.mjs');
    writeFileSync(
      hooks,
      `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const found = await next(specifier, context);
  if (/@opentelemetry\\/(sdk-|exporter-|resources|otlp-|core)/.test(found.url)) appendFileSync(${JSON.stringify(log)}, found.url + '\\n');
  return found;
}
`,
    );
    const register = join(dir, 'register.mjs');
    writeFileSync(
      register,
      `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`,
    );
    const r = await runPunchline(
      ['status', '--json'],
      h.env({ NODE_OPTIONS: `--import ${pathToFileURL(register).href}`, ...env }),
    );
    return {
      code: r.code,
      stderr: r.stderr,
      modules: readFileSync(log, 'utf8')
        .split('\n')
        .filter((l) => l !== ''),
    };
  }

  it('loads nothing of the SDK without OTEL_EXPORTER_OTLP_ENDPOINT', async () => {
    const off = await sdkModulesLoadedBy({});
    expect({ code: off.code, stderr: off.stderr }).toEqual({ code: 0, stderr: '' });
    expect(off.modules).toEqual([]);
  }, 60_000);

  it('sends the spans of a backfill to the collector of OTEL_EXPORTER_OTLP_ENDPOINT, with its headers', async () => {
    const received: { path: string; headers: IncomingHttpHeaders; body: string }[] = [];
    const collector = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += String(d)));
      req.on('end', () => {
        received.push({ path: req.url ?? '', headers: req.headers, body });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
    try {
      const port = (collector.address() as { port: number }).port;
      const r = await runPunchline(
        ['backfill', '--from', FROM, '--to', TO, '--resources', 'collaborators', '--no-progress'],
        h.env({
          OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}/`,
          OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=collector%20secret',
          OTEL_SERVICE_NAME: 'punchline-test',
        }),
      );
      expect(r.code, r.stderr).toBe(0);
      expect(received.length).toBeGreaterThan(0);
      for (const x of received) {
        expect(x.path).toBe('/v1/traces');
        expect(x.headers['x-api-key']).toBe('collector secret');
      }
      const body = received.map((x) => x.body).join('\n');
      expect(body).toContain('"punchline-test"');
      for (const company of h.emulator.companies) expect(body).toContain(company.cnpj);
      expect(body).toContain('sync collaborators');
      expect(body).toContain('/customer/v2/collaborator');
      for (const c of h.emulator.companies) expect(body).not.toContain(c.token);
    } finally {
      await new Promise<void>((r) => collector.close(() => r()));
    }
  }, 90_000);

  it('loads it with the variable set, and still exits when the collector is not there', async () => {
    const on = await sdkModulesLoadedBy({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' });
    expect({ code: on.code, stderr: on.stderr }).toEqual({ code: 0, stderr: '' });
    expect(on.modules.some((m) => m.includes('@opentelemetry/sdk-trace/'))).toBe(true);
    expect(on.modules.some((m) => m.includes('@opentelemetry/exporter-trace-otlp-http'))).toBe(true);
  }, 60_000);
});
