/**
 * Gauges computed when `/metrics` is scraped rather than when something happens: queue
 * depth per queue and state, the age of the oldest waiting job, per company × resource
 * the last successful sync, its age and whether it is stale, the open rejected records,
 * the standing outcome of the reconciliation checks, and per company whether its time
 * zone disagrees with its CEP. They are read from Redis and the warehouse, so every
 * worker process reports the same, correct figure whichever process ran the jobs;
 * freshness is built exactly as `punchline status` builds it (src/reports/status-report.ts), so both
 * always agree.
 */
import { Gauge, Registry } from 'prom-client';
import type { Logger } from '../logger.js';
import { metricsRegistry } from '../telemetry/metrics.js';
import { readOldestWaiting, readQueueCounts, type CountableQueue, type WaitingQueue } from '../reports/queue-counts.js';
import type { SqlRunner } from '../warehouse/db.js';
import { readFreshness } from '../reports/freshness.js';
import { freshnessEntriesOf, type FreshnessEntry } from '../reports/status-report.js';
import { staleAfterSeconds } from '../reports/staleness.js';
import { ROLE_TABLES } from '../resources/index.js';
import { withTimeout } from '../util/timeout.js';
import { readOpenRejections } from '../reports/rejections-report.js';
import { readCompanyAddresses, timeZoneWarnings, type ZonesInUse } from '../reports/time-zone-report.js';
import { readQualityStatus, type QualitySummary } from '../reports/quality-report.js';
import { QUALITY_STATUSES } from '../quality/checks.js';

/** Sources of the scrape-time gauges. */
export interface ScrapeSources {
  /** Queues whose depth and oldest waiting job are reported. */
  readonly queues: readonly (CountableQueue & Partial<WaitingQueue>)[];
  /** Warehouse pool for the `sync_freshness` view; omit to report no freshness. */
  readonly pool?: SqlRunner;
  /** Warehouse schema holding `sync_freshness`. */
  readonly schema?: string;
  /** Clock (injected in tests). */
  readonly now?: () => Date;
  /** Longest a scrape waits on Redis or Postgres, in milliseconds (default 2000). */
  readonly timeoutMs?: number;
  /** Where failed reads are reported (a scrape still answers without those series). */
  readonly logger?: Logger;
  /** The zones the sync uses per company (from the configuration); omit to report no time-zone check. */
  readonly zonesInUse?: ZonesInUse;
}

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
    name: 'punchline_queue_oldest_waiting_seconds',
    help: 'Seconds the oldest waiting job of each queue has waited (0 when none waits), read from Redis at scrape time',
    labelNames: ['queue'] as const,
    registers: [own],
    async collect() {
      this.reset();
      const waiting = sources.queues.filter((q): q is CountableQueue & WaitingQueue => typeof q.getWaiting === 'function');
      try {
        const all = await withTimeout(readOldestWaiting(waiting, now()), timeoutMs, 'Redis (oldest waiting job)');
        for (const { queue, seconds } of all) this.set({ queue }, seconds);
      } catch (err) {
        sources.logger?.warn({ err }, 'metrics: could not read the oldest waiting jobs');
      }
    },
  });

  // Per company × resource, each from the same freshness entry.
  const perEntry: readonly { name: string; help: string; value: (e: FreshnessEntry) => number | null }[] = [
    {
      name: 'punchline_sync_age_seconds',
      help: 'Seconds since the last successful sync per company and resource (from the warehouse sync_freshness view)',
      value: (e) => e.ageSeconds,
    },
    {
      name: 'punchline_sync_freshness_timestamp_seconds',
      help: 'Unix time of the last successful sync per company and resource (from the warehouse sync_freshness view)',
      value: (e) => (e.lastSuccessAt === null ? null : Date.parse(e.lastSuccessAt) / 1000),
    },
    {
      name: 'punchline_sync_stale',
      help: '1 when a company and resource is older than its schedule allows, or never synced while other companies were, else 0 (as punchline status)',
      value: (e) => (e.stale ? 1 : 0),
    },
  ];

  // One read of sync_freshness serves every freshness gauge of a scrape (the thresholds' too).
  const freshness = sharedBy(perEntry.length + 1, async (): Promise<FreshnessEntry[]> => {
    if (!sources.pool || !sources.schema) return [];
    try {
      const rows = await withTimeout(readFreshness(sources.pool, sources.schema), timeoutMs, 'Postgres (freshness)');
      return freshnessEntriesOf(rows, now()) ?? [];
    } catch (err) {
      sources.logger?.warn({ err }, 'metrics: could not read sync_freshness');
      return [];
    }
  });

  for (const spec of perEntry) {
    new Gauge({
      name: spec.name,
      help: spec.help,
      labelNames: ['company', 'resource'] as const,
      registers: [own],
      async collect() {
        this.reset();
        for (const e of await freshness()) {
          const v = spec.value(e);
          if (v !== null) this.set({ company: e.company, resource: e.resource }, v);
        }
      },
    });
  }

  new Gauge({
    name: 'punchline_sync_stale_after_seconds',
    help: 'Age after which a resource counts as stale (a few runs of its schedule)',
    labelNames: ['resource'] as const,
    registers: [own],
    async collect() {
      this.reset();
      for (const resource of new Set((await freshness()).map((e) => e.resource))) {
        this.set({ resource }, staleAfterSeconds(resource));
      }
    },
  });

  new Gauge({
    name: 'punchline_rejected_records_open',
    help: 'Rejected records not yet resolved by a later sync, by resource and endpoint (from the warehouse rejected_records table at scrape time)',
    labelNames: ['resource', 'endpoint'] as const,
    registers: [own],
    async collect() {
      this.reset();
      if (!sources.pool || !sources.schema) return;
      try {
        const open = await withTimeout(readOpenRejections(sources.pool, sources.schema), timeoutMs, 'Postgres (rejected records)');
        for (const r of open ?? []) this.set({ resource: r.resource, endpoint: r.endpoint }, r.open);
      } catch (err) {
        sources.logger?.warn({ err }, 'metrics: could not read rejected_records');
      }
    },
  });

  // One read of quality_status serves both quality gauges of a scrape.
  const quality = sharedBy(2, async (): Promise<QualitySummary[]> => {
    if (!sources.pool || !sources.schema) return [];
    try {
      return (await withTimeout(readQualityStatus(sources.pool, sources.schema), timeoutMs, 'Postgres (quality_status)')) ?? [];
    } catch (err) {
      sources.logger?.warn({ err }, 'metrics: could not read quality_status');
      return [];
    }
  });

  new Gauge({
    name: 'punchline_quality_checks',
    help: 'Parts of the warehouse (windows, months, totals periods, resources) by reconciliation check and the status of its latest run: ok, warn or fail (from the warehouse quality_status view at scrape time)',
    labelNames: ['check', 'status'] as const,
    registers: [own],
    async collect() {
      this.reset();
      for (const q of await quality()) for (const status of QUALITY_STATUSES) this.set({ check: q.check, status }, q.parts[status]);
    },
  });

  new Gauge({
    name: 'punchline_quality_findings',
    help: 'Scopes (tables of a window, collaborator records, days, gaps) a reconciliation check reports as warn or fail in its latest runs (from quality_status at scrape time)',
    labelNames: ['check'] as const,
    registers: [own],
    async collect() {
      this.reset();
      for (const q of await quality()) this.set({ check: q.check }, q.findings);
    },
  });

  new Gauge({
    name: 'punchline_company_time_zone_mismatch',
    help: `1 when a company's date-times are read in a zone whose UTC offset is not the legal time at its CEP (${ROLE_TABLES.company}.zip_code), else 0`,
    labelNames: ['company'] as const,
    registers: [own],
    async collect() {
      this.reset();
      const { pool, schema, zonesInUse } = sources;
      if (!pool || !schema || !zonesInUse) return;
      try {
        const companies = (await withTimeout(readCompanyAddresses(pool, schema), timeoutMs, 'Postgres (companies)')) ?? [];
        const warned = new Set(timeZoneWarnings(companies, zonesInUse, now()).map((w) => w.company));
        for (const c of companies) this.set({ company: c.cnpj }, warned.has(c.cnpj) ? 1 : 0);
      } catch (err) {
        sources.logger?.warn({ err }, 'metrics: could not check the companies\' time zones');
      }
    },
  });

  return Registry.merge([metricsRegistry, own]);
}

/**
 * Wraps `read` so that each run of it serves `consumers` calls: the gauges of one scrape
 * (one call each, collected in parallel) show the same reading, and the next scrape reads
 * afresh.
 */
function sharedBy<T>(consumers: number, read: () => Promise<T>): () => Promise<T> {
  let current: Promise<T> | undefined;
  let left = 0;
  return () => {
    if (left === 0 || current === undefined) {
      current = read();
      left = consumers;
    }
    left -= 1;
    return current;
  };
}
