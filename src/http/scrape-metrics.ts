import { Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { Logger } from '../logger.js';
import { metricsRegistry } from '../telemetry/metrics.js';
import {
  readOldestWaiting,
  readQueueCounts,
  type CountableQueue,
  type WaitingQueue,
} from '../reports/queue-counts.js';
import type { SqlRunner } from '../warehouse/db.js';
import { readFreshness } from '../reports/freshness.js';
import { freshnessEntriesOf, type FreshnessEntry } from '../reports/status-report.js';
import { staleAfterSeconds } from '../reports/staleness.js';
import { ROLE_TABLES } from '../resources/index.js';
import { withTimeout } from '../util/timeout.js';
import { readOpenRejections } from '../reports/rejections-report.js';
import { readCompanyAddresses, timeZoneWarnings, type ZonesInUse } from '../reports/time-zone-report.js';
import { readQualityStatus } from '../reports/quality-report.js';
import { QUALITY_STATUSES } from '../quality/checks.js';
import { readMartsLag } from '../reports/marts-lag.js';

/** Sources of the scrape-time gauges. */
export interface ScrapeSources {
  /** Queues whose depth and oldest waiting job are reported. */
  readonly queues: readonly (CountableQueue & Partial<WaitingQueue>)[];
  /** Warehouse pool and schema for the warehouse's gauges; omit to report none of them. */
  readonly pool?: SqlRunner;
  readonly schema?: string;
  readonly now?: () => Date;
  /** Longest a scrape waits on Redis or Postgres, in milliseconds (default 2000). */
  readonly timeoutMs?: number;
  /** Where failed reads are reported (a scrape still answers without those series). */
  readonly logger?: Logger;
  /** The zones the sync uses per company (from the configuration); omit to report no time-zone check. */
  readonly zonesInUse?: ZonesInUse;
}

/** One series of a gauge: its labels and value. */
type Series<L extends string> = readonly [Partial<Record<L, string>>, number];
/** Reads the series of a gauge. */
type SeriesRead<L extends string> = () => Promise<readonly Series<L>[]>;

/**
 * A registry with every process metric of {@link metricsRegistry} plus the gauges computed when `/metrics` is
 * scraped, read from Redis and the warehouse so every process reports the same figure whichever ran the jobs;
 * freshness is built as `punchline status` builds it. One per ops server: servers in a process (tests) do not
 * share sources.
 */
export function createScrapeRegistry(sources: ScrapeSources): Registry {
  const { pool, schema, zonesInUse, logger } = sources;
  const now = sources.now ?? (() => new Date());
  const own = new Registry();
  // Memory, CPU, event loop and GC of the process, from when the registry is created.
  collectDefaultMetrics({ register: own, prefix: 'punchline_process_' });

  type Read<T> = (() => Promise<readonly T[] | null>) | undefined;
  /** What `read` gives within the deadline; none when it fails (logged) or is not given. */
  const guarded = async <T>(read: Read<T>, what: string, failure: string) => {
    try {
      return (read && (await withTimeout(read(), sources.timeoutMs ?? 2000, what))) ?? [];
    } catch (err) {
      logger?.warn({ err }, failure);
      return [];
    }
  };
  /** A warehouse read, when the sources name a warehouse. */
  const fromWarehouse = <T>(read: (pool: SqlRunner, schema: string) => Promise<T>) =>
    pool && schema ? () => read(pool, schema) : undefined;

  /** A gauge whose series `series` gives afresh at every scrape. */
  const gauge = <L extends string>(name: string, labels: readonly L[], help: string, series: SeriesRead<L>) =>
    new Gauge({
      name,
      help,
      labelNames: labels,
      registers: [own],
      async collect() {
        this.reset();
        for (const [values, value] of await series()) this.set(values, value);
      },
    });

  gauge(
    'punchline_queue_jobs',
    ['queue', 'state'],
    'Jobs in each BullMQ queue by state, read from Redis at scrape time',
    async () => {
      const all = await guarded(
        () => readQueueCounts(sources.queues),
        'Redis (queue counts)',
        'metrics: could not read queue counts',
      );
      return all.flatMap(({ queue, counts }) =>
        Object.entries(counts).map(([state, n]) => [{ queue, state }, n] as const),
      );
    },
  );

  gauge(
    'punchline_queue_oldest_waiting_seconds',
    ['queue'],
    'Seconds the oldest waiting job of each queue has waited (0 when none waits), read from Redis at scrape time',
    async () => {
      const waiting = sources.queues.filter(
        (q): q is CountableQueue & WaitingQueue => typeof q.getWaiting === 'function',
      );
      const all = await guarded(
        () => readOldestWaiting(waiting, now()),
        'Redis (oldest waiting job)',
        'metrics: could not read the oldest waiting jobs',
      );
      return all.map(({ queue, seconds }) => [{ queue }, seconds] as const);
    },
  );

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
  const freshness = sharedBy(perEntry.length + 1, () =>
    guarded(
      fromWarehouse(async (p, s) => freshnessEntriesOf(await readFreshness(p, s), now())),
      'Postgres (freshness)',
      'metrics: could not read sync_freshness',
    ),
  );

  for (const spec of perEntry) {
    gauge(spec.name, ['company', 'resource'], spec.help, async () =>
      (await freshness()).flatMap((e) => {
        const v = spec.value(e);
        return v === null ? [] : [[{ company: e.company, resource: e.resource }, v] as const];
      }),
    );
  }

  gauge(
    'punchline_sync_stale_after_seconds',
    ['resource'],
    'Age after which a resource counts as stale (a few runs of its schedule)',
    async () => {
      const resources = new Set((await freshness()).map((e) => e.resource));
      return [...resources].map((resource) => [{ resource }, staleAfterSeconds(resource)] as const);
    },
  );

  gauge(
    'punchline_rejected_records_open',
    ['resource', 'endpoint'],
    'Rejected records not yet resolved by a later sync, by resource and endpoint (from the warehouse rejected_records table at scrape time)',
    async () => {
      const open = await guarded(
        fromWarehouse(readOpenRejections),
        'Postgres (rejected records)',
        'metrics: could not read rejected_records',
      );
      return open.map((r) => [{ resource: r.resource, endpoint: r.endpoint }, r.open] as const);
    },
  );

  // One read of quality_status serves both quality gauges of a scrape.
  const quality = sharedBy(2, () =>
    guarded(
      fromWarehouse(readQualityStatus),
      'Postgres (quality_status)',
      'metrics: could not read quality_status',
    ),
  );

  gauge(
    'punchline_quality_checks',
    ['check', 'status'],
    'Parts of the warehouse (windows, months, totals periods, resources) by reconciliation check and the status of its latest run: ok, warn or fail (from the warehouse quality_status view at scrape time)',
    async () =>
      (await quality()).flatMap((q) =>
        QUALITY_STATUSES.map((status) => [{ check: q.check, status }, q.parts[status]] as const),
      ),
  );

  gauge(
    'punchline_quality_findings',
    ['check'],
    'Scopes (tables of a window, collaborator records, days, gaps) a reconciliation check reports as warn or fail in its latest runs (from quality_status at scrape time)',
    async () => (await quality()).map((q) => [{ check: q.check }, q.findings] as const),
  );

  gauge(
    'punchline_marts_lag_seconds',
    ['company'],
    'Seconds the oldest load of each company that its marts have not taken in yet has waited (0 when current; from the warehouse pending_changes at scrape time)',
    async () => {
      const lags = await guarded(
        fromWarehouse((p, s) => readMartsLag(p, s, now())),
        'Postgres (marts lag)',
        'metrics: could not read the marts lag',
      );
      return lags.map((l) => [{ company: l.company }, l.lagSeconds] as const);
    },
  );

  gauge(
    'punchline_company_time_zone_mismatch',
    ['company'],
    `1 when a company's date-times are read in a zone whose UTC offset is not the legal time at its CEP (${ROLE_TABLES.company}.zip_code), else 0`,
    () => {
      const read =
        zonesInUse &&
        fromWarehouse(async (p, s) => {
          const companies = (await readCompanyAddresses(p, s)) ?? [];
          const warned = new Set(timeZoneWarnings(companies, zonesInUse, now()).map((w) => w.company));
          return companies.map((c) => [{ company: c.cnpj }, warned.has(c.cnpj) ? 1 : 0] as const);
        });
      return guarded(read, 'Postgres (companies)', "metrics: could not check the companies' time zones");
    },
  );

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
