/**
 * Gauges computed when `/metrics` is scraped rather than when something happens: queue
 * depth per queue and state, and seconds since the last successful sync per company ×
 * resource. Both are read from Redis and the warehouse, so every worker process reports
 * the same, correct figure whichever process ran the jobs.
 */
import { Gauge, Registry } from 'prom-client';
import type { Logger } from '../logger.js';
import { metricsRegistry } from './metrics.js';
import { readQueueCounts, type CountableQueue } from './queue-counts.js';
import { ageSeconds, readFreshness, type QueryablePool } from './freshness.js';
import { withTimeout } from './timeout.js';

/** Sources of the scrape-time gauges. */
export interface ScrapeSources {
  /** Queues whose depth is reported. */
  readonly queues: readonly CountableQueue[];
  /** Warehouse pool for the `sync_freshness` view; omit to report no freshness. */
  readonly pool?: QueryablePool;
  /** Warehouse schema holding `sync_freshness`. */
  readonly schema?: string;
  /** Clock (injected in tests). */
  readonly now?: () => Date;
  /** Longest a scrape waits on Redis or Postgres, in milliseconds (default 2000). */
  readonly timeoutMs?: number;
  /** Where failed reads are reported (a scrape still answers without those series). */
  readonly logger?: Logger;
}

/** Label used for group-level runs, which belong to no single company. */
export const GROUP_COMPANY_LABEL = 'group';

/**
 * A registry with every process metric of {@link metricsRegistry} plus the scrape-time
 * gauges over `sources`. One per ops server, so several servers in a process (tests)
 * do not share sources.
 */
export function createScrapeRegistry(sources: ScrapeSources): Registry {
  const now = sources.now ?? (() => new Date());
  const timeoutMs = sources.timeoutMs ?? 2000;
  const own = new Registry();

  new Gauge({
    name: 'punchline_queue_jobs',
    help: 'Jobs in each BullMQ queue by state, read from Redis at scrape time',
    labelNames: ['queue', 'state'] as const,
    registers: [own],
    async collect() {
      this.reset();
      try {
        const all = await withTimeout(readQueueCounts(sources.queues), timeoutMs, 'Redis (queue counts)');
        for (const { queue, counts } of all) {
          for (const [state, n] of Object.entries(counts)) this.set({ queue, state }, n);
        }
      } catch (err) {
        sources.logger?.warn({ err }, 'metrics: could not read queue counts');
      }
    },
  });

  new Gauge({
    name: 'punchline_sync_age_seconds',
    help: 'Seconds since the last successful sync per company and resource (from the warehouse sync_freshness view)',
    labelNames: ['company', 'resource'] as const,
    registers: [own],
    async collect() {
      this.reset();
      if (!sources.pool || !sources.schema) return;
      try {
        const rows = await withTimeout(readFreshness(sources.pool, sources.schema), timeoutMs, 'Postgres (freshness)');
        const at = now();
        for (const r of rows ?? []) {
          this.set({ company: r.companyCnpj ?? GROUP_COMPANY_LABEL, resource: r.resource }, ageSeconds(r.lastSuccessAt, at));
        }
      } catch (err) {
        sources.logger?.warn({ err }, 'metrics: could not read sync_freshness');
      }
    },
  });

  return Registry.merge([metricsRegistry, own]);
}
