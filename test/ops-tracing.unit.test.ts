/**
 * Tracing off, the default (docs/operations.md "Tracing"): the instrumentation points run
 * their work untouched and start no span, no module but src/telemetry/tracing-sdk.ts loads
 * OpenTelemetry (and that one only by dynamic import), and the attributes of job and
 * load spans name the work and count it, nothing else.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { errorType, startSpan, tracingOn, withSpan } from '../src/telemetry/tracing.js';
import { startTracing } from '../src/telemetry/tracing-sdk.js';
import { jobResultAttributes, jobSpanAttributes } from '../src/runtime/job-span.js';
import { loadResultAttributes, loadSpanAttributes } from '../src/load/load-resource.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Every .ts file under `dir`, relative to the repository. */
function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = `${dir}/${name}`;
    return statSync(join(ROOT, path)).isDirectory() ? sources(path) : name.endsWith('.ts') ? [path] : [];
  });
}

describe('tracing off', () => {
  it('runs the work and starts no span', async () => {
    expect(tracingOn()).toBe(false);
    expect(startSpan('GET /x', 'client', { 'http.request.method': 'GET' })).toBeUndefined();
    let seen: unknown = 'not called';
    await expect(
      withSpan('sync punches', 'consumer', {}, async (span) => {
        seen = span;
        return 42;
      }),
    ).resolves.toBe(42);
    expect(seen).toBeUndefined();
    await expect(withSpan('x', 'internal', {}, () => Promise.reject(new Error('boom')))).rejects.toThrow(
      'boom',
    );
  });

  it('is what startTracing leaves without an endpoint or an exporter', async () => {
    await expect(startTracing(undefined)).resolves.toBeUndefined();
    expect(tracingOn()).toBe(false);
  });

  it('loads OpenTelemetry only in src/telemetry/tracing-sdk.ts, by dynamic import; the instrumentation imports types only', () => {
    const found: string[] = [];
    for (const file of [...sources('src'), ...sources('jobs')]) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      for (const m of text.matchAll(/^import (type )?[^;]*?from '(@opentelemetry\/[^']+)'/gm))
        if (!m[1]) found.push(`${file}: static import of ${m[2]}`);
      for (const m of text.matchAll(/import\('(@opentelemetry\/[^']+)'\)/g))
        found.push(`${file}: import('${m[1]}')`);
    }
    expect(found.sort()).toEqual([
      "src/telemetry/tracing-sdk.ts: import('@opentelemetry/api')",
      "src/telemetry/tracing-sdk.ts: import('@opentelemetry/context-async-hooks')",
      "src/telemetry/tracing-sdk.ts: import('@opentelemetry/exporter-trace-otlp-http')",
      "src/telemetry/tracing-sdk.ts: import('@opentelemetry/resources')",
      "src/telemetry/tracing-sdk.ts: import('@opentelemetry/sdk-trace')",
    ]);
  });
});

describe('span attributes', () => {
  it('of a job name its queue, id, connection, resource, company and window, and count its work', () => {
    const job = {
      id: 'punches.default.11222333000181.2025-01-01.2025-01-31',
      name: 'punches',
      queueName: 'sync',
      attemptsMade: 1,
      data: {
        connection: 'default',
        resource: 'punches',
        company: '11222333000181',
        from: '2025-01-01',
        to: '2025-01-31',
        scoped: true,
      },
    };
    expect(jobSpanAttributes(job)).toEqual({
      'messaging.system': 'bullmq',
      'messaging.operation.type': 'process',
      'messaging.operation.name': 'process',
      'messaging.destination.name': 'sync',
      'messaging.message.id': job.id,
      'punchline.connection': 'default',
      'punchline.resource': 'punches',
      'punchline.company': '11222333000181',
      'punchline.window.start': '2025-01-01',
      'punchline.window.end': '2025-01-31',
      'punchline.attempt': 2,
    });
    expect(
      jobSpanAttributes({ ...job, queueName: 'schedules', data: { connection: 'default', kind: 'nightly' } }),
    ).toMatchObject({ 'punchline.resource': 'nightly', 'punchline.company': undefined });
    expect(jobResultAttributes({ requests: 3, inserted: 10, updated: 2, deleted: 1, followUps: [] })).toEqual(
      {
        'punchline.requests': 3,
        'punchline.rows.inserted': 10,
        'punchline.rows.updated': 2,
        'punchline.rows.deleted': 1,
      },
    );
  });

  it('of a load name what it loads and sum its tables', () => {
    expect(
      loadSpanAttributes({
        connection: 'default',
        name: 'punches',
        company: '11222333000181',
        window: { from: '2025-01-01', to: '2025-01-31' },
      }),
    ).toEqual({
      'punchline.connection': 'default',
      'punchline.resource': 'punches',
      'punchline.company': '11222333000181',
      'punchline.window.start': '2025-01-01',
      'punchline.window.end': '2025-01-31',
    });
    const stats = (received: number, inserted: number) => ({
      received,
      inserted,
      updated: 1,
      deleted: 0,
      unchanged: received - inserted - 1,
    });
    expect(
      loadResultAttributes({ tables: { punches: stats(10, 4), work_days: stats(5, 2) }, rejected: 1 }),
    ).toEqual({
      'punchline.rows.received': 15,
      'punchline.rows.inserted': 6,
      'punchline.rows.updated': 2,
      'punchline.rows.deleted': 0,
      'punchline.rejected': 1,
    });
  });

  it('of a failure give its code, else its class name, never its message', () => {
    expect(
      errorType(
        Object.assign(new Error('the API answered 401 for token abc'), { code: 'invalid_service_token' }),
      ),
    ).toBe('invalid_service_token');
    expect(errorType(Object.assign(new Error('duplicate key (cpf)=(52998224725)'), { code: '23505' }))).toBe(
      '23505',
    );
    expect(errorType(new TypeError('cannot read x of 52998224725'))).toBe('TypeError');
    expect(errorType('a string')).toBe('Error');
  });
});
