/**
 * The Grafana dashboard and the Prometheus rules under deploy/ query only metrics a real
 * worker exports: every PromQL expression is parsed with Prometheus's own grammar and
 * each metric it names is looked up in a real `/metrics` scrape of the ops server (over
 * the real queues, Redis and a migrated warehouse), not in a hand-written list.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parser } from '@prometheus-io/lezer-promql';
import { parse as parseYaml } from 'yaml';
import { loadConfig } from '../src/config.js';
import { openQueues, type SyncQueues } from '../src/runtime/queues.js';
import { startOpsServer, type RunningOpsServer } from '../src/http/server.js';
import { migrate } from '../src/migrations/migrate.js';
import type pg from 'pg';
import type { Redis } from 'ioredis';
import {
  TEST_DATABASE_URL,
  TEST_REDIS_URL,
  connectPostgres,
  connectRedis,
  dropQueuePrefix,
  dropSchema,
  uniqueName,
} from './support/isolation.js';

const DASHBOARD = new URL('../deploy/grafana/punchline.json', import.meta.url);
const RULES = new URL('../deploy/prometheus/alerts.yml', import.meta.url);

/** Metric names a PromQL expression selects, parsed with the Prometheus grammar; throws on a syntax error. */
function metricNames(expr: string): string[] {
  // Grafana's interval variables stand for a duration.
  const promql = expr.replace(/\$__(rate_interval|interval|range)\b/g, '5m');
  const tree = parser.parse(promql);
  const names: string[] = [];
  tree.iterate({
    enter(node) {
      if (node.type.isError) throw new Error(`PromQL syntax error at ${node.from} in: ${expr}`);
      if (node.name === 'Identifier' && node.node.parent?.name === 'VectorSelector')
        names.push(promql.slice(node.from, node.to));
    },
  });
  return names;
}

/** Every `expr` of a Grafana dashboard, nested rows included. */
function dashboardExprs(dashboard: { panels?: unknown[] }): { panel: string; expr: string }[] {
  const out: { panel: string; expr: string }[] = [];
  const visit = (panels: unknown[] = []) => {
    for (const p of panels as { title: string; targets?: { expr?: string }[]; panels?: unknown[] }[]) {
      for (const t of p.targets ?? []) if (t.expr) out.push({ panel: p.title, expr: t.expr });
      visit(p.panels);
    }
  };
  visit(dashboard.panels);
  return out;
}

/** Every metric name a Prometheus text exposition declares (histogram series included). */
function exportedNames(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const m of exposition.matchAll(/^# TYPE (\S+) (\w+)$/gm)) {
    const [, name, type] = m as unknown as [string, string, string];
    names.add(name);
    if (type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(`${name}${s}`);
    if (type === 'summary') for (const s of ['_sum', '_count']) names.add(`${name}${s}`);
  }
  return names;
}

const schema = uniqueName('deploy_queries');
const prefix = uniqueName('deploy_queries');
let pool: pg.Pool;
let queues: SyncQueues;
let redis: Redis;
let server: RunningOpsServer;
let exported: Set<string>;

beforeAll(async () => {
  pool = await connectPostgres();
  await migrate(TEST_DATABASE_URL, schema);
  redis = await connectRedis();
  queues = openQueues(loadConfig({ REDIS_URL: TEST_REDIS_URL, QUEUE_PREFIX: prefix }), redis);
  server = await startOpsServer({ port: 0, queues: queues.all, redisUrl: TEST_REDIS_URL, pool, schema });
  const res = await fetch(`${server.url}/metrics`);
  exported = exportedNames(await res.text());
}, 60_000);

afterAll(async () => {
  await server?.close();
  await queues?.close();
  await dropQueuePrefix(redis, prefix);
  redis.disconnect();
  await dropSchema(pool, schema);
  await pool.end();
});

describe('the metric-name check itself', () => {
  it('finds the metrics of an expression, not its functions, labels or durations', () => {
    expect(
      metricNames(
        'sum by (queue) (rate(punchline_jobs_total{state="failed"}[$__rate_interval])) / on (queue) max(punchline_queue_jobs)',
      ),
    ).toEqual(['punchline_jobs_total', 'punchline_queue_jobs']);
    expect(metricNames('absent(up)')).toEqual(['up']);
    expect(() => metricNames('sum(rate(punchline_jobs_total[5m])')).toThrow(/syntax error/);
  });

  it('sees what a real worker exports, scrape-time gauges and histogram series included', () => {
    for (const name of [
      'punchline_queue_jobs',
      'punchline_sync_age_seconds',
      'punchline_api_request_duration_seconds_bucket',
    ]) {
      expect(exported.has(name), name).toBe(true);
    }
    expect(exported.has('punchline_no_such_metric')).toBe(false);
  });
});

describe('deploy/grafana/punchline.json', () => {
  const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as { panels: unknown[]; uid: string };
  const exprs = dashboardExprs(dashboard);

  it('queries only metrics the worker exports', () => {
    expect(exprs.length).toBeGreaterThan(10);
    const unknown = exprs.flatMap(({ panel, expr }) =>
      metricNames(expr)
        .filter((n) => !exported.has(n))
        .map((n) => `${panel}: ${n}`),
    );
    expect(unknown).toEqual([]);
  });

  it('shows what an operator needs: queues, outcomes, rows, API, 429s and budget, freshness, data quality, memory', () => {
    const used = new Set(exprs.flatMap(({ expr }) => metricNames(expr)));
    for (const name of [
      'punchline_queue_jobs',
      'punchline_queue_oldest_waiting_seconds',
      'punchline_jobs_total',
      'punchline_jobs_failed_permanently_total',
      'punchline_rows_loaded_total',
      'punchline_api_requests_total',
      'punchline_api_rate_limit_wait_seconds_total',
      'punchline_api_budget_wait_seconds_sum',
      'punchline_sync_age_seconds',
      'punchline_sync_stale',
      'punchline_quality_checks',
      'punchline_quality_findings',
      'punchline_process_process_resident_memory_bytes',
      'punchline_process_nodejs_heap_size_used_bytes',
    ]) {
      expect(used.has(name), name).toBe(true);
    }
  });
});

describe('deploy/prometheus/alerts.yml', () => {
  const rules = parseYaml(readFileSync(RULES, 'utf8')) as {
    groups: { rules: { record?: string; alert?: string; expr: string }[] }[];
  };
  const all = rules.groups.flatMap((g) => g.rules);
  const recorded = new Set(all.flatMap((r) => (r.record ? [r.record] : [])));

  it('names only metrics the worker exports, or the file records itself', () => {
    const unknown = all.flatMap((r) =>
      metricNames(r.expr)
        .filter((n) => !exported.has(n) && !recorded.has(n))
        .map((n) => `${r.alert ?? r.record}: ${n}`),
    );
    expect(unknown).toEqual([]);
  });

  it('has the alerts that need a person', () => {
    expect(all.flatMap((r) => (r.alert ? [r.alert] : [])).sort()).toEqual([
      'PunchlineDataStale',
      'PunchlineJobsFailingPermanently',
      'PunchlineNoWorkerAlive',
      'PunchlineQualityCheckFailing',
      'PunchlineQueueBacklogGrowing',
      'PunchlineRateLimitedRepeatedly',
      'PunchlineTokenRejected',
    ]);
  });
});
