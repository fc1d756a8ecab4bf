/**
 * src/reports/ — what `punchline status` and `punchline verify` report, read from Redis and
 * the warehouse, as data and as text.
 */
import { readQueueCounts, type CountableQueue, type QueueCounts } from './queue-counts.js';
import type { SqlRunner } from '../warehouse/db.js';
import { ageSeconds, readFreshness, type FreshnessRow } from './freshness.js';
import { freshnessState, staleAfterSeconds, type FreshnessState } from './staleness.js';
import { readOpenRejections, type RejectionSummary } from './rejections-report.js';
import { readSchemaDrift, type DriftEntry } from './drift-report.js';
import { readCompanyAddresses, timeZoneWarnings } from './time-zone-report.js';
import type { TimeZoneWarning, ZonesInUse } from './time-zone-report.js';
import { readQualityStatus, type QualitySummary } from './quality-report.js';
import { martsLagProblems, readMartsLag, type MartsLag } from './marts-lag.js';

/** A job that failed for good, or failed and waits for its next attempt. */
export interface FailingJob {
  readonly queue: string;
  readonly id: string;
  /** `failed` (attempts exhausted or permanent error) or `retrying` (delayed after a failure). */
  readonly state: 'failed' | 'retrying';
  /** Resource, company CNPJ and window (`from..to`), when the job's data names them. */
  readonly resource?: string;
  readonly company?: string;
  readonly window?: string;
  readonly attempts: number;
  readonly lastError: string;
  /** When it last failed (ISO 8601), if known. */
  readonly failedAt?: string;
}

/** Freshness of one company × resource. */
export interface FreshnessEntry {
  /** CNPJ, or `group` for group-level runs. */
  readonly company: string;
  readonly resource: string;
  /** Last successful sync (ISO 8601) and seconds since then; null when never synced. */
  readonly lastSuccessAt: string | null;
  readonly ageSeconds: number | null;
  /** Age after which it counts as stale. */
  readonly staleAfterSeconds: number;
  /** Never synced, or older than the threshold. */
  readonly stale: boolean;
  /** `fresh`, `aging` (close to the threshold), `stale` or `never` (docs/operations.md "punchline status"). */
  readonly state: FreshnessState;
}

/** An API connection paused because the API rejected its token (src/connections/connection-pause.ts). */
export interface PausedConnection {
  readonly connection: string;
  /** The API's `error.code`. */
  readonly code: string;
  /** What was rejected (never the token). */
  readonly reason: string;
  /** When it paused, and when its token is checked again (ISO 8601). */
  readonly since: string;
  readonly nextCheckAt: string;
}

/** The whole `punchline status` answer (also its `--json` output). */
export interface StatusReport {
  /** When the report was made (ISO 8601). */
  readonly generatedAt: string;
  readonly queues: readonly QueueCounts[];
  /** Failing jobs, most recent first (at most 20). */
  readonly failing: readonly FailingJob[];
  /** Freshness per company × resource, or null when the warehouse is not migrated. */
  readonly freshness: readonly FreshnessEntry[] | null;
  /** Stale entries (never synced included), aging ones, failed jobs (all queues) and jobs waiting to retry after a failure (first 1000 delayed per queue). */
  readonly summary: {
    readonly stale: number;
    readonly aging: number;
    readonly failed: number;
    readonly retrying: number;
  };
  /** What `status --check` judges: ok when nothing is stale, no job failed, no connection is paused and no company's marts lag by more than 15 minutes; else each problem in words. */
  readonly check: { readonly ok: boolean; readonly problems: readonly string[] };
  /** Connections paused after a 401 (present when the configuration names connections). */
  readonly pausedConnections?: readonly PausedConnection[];
  /** Open rejected records per resource and endpoint; null when the warehouse is not migrated. */
  readonly rejections?: readonly RejectionSummary[] | null;
  /** Schema drift the sync recorded; null when the warehouse is not migrated. */
  readonly schemaDrift?: readonly DriftEntry[] | null;
  /** Companies read in a zone that is not the legal time at their address (present when the zones in use are known). */
  readonly timeZoneWarnings?: readonly TimeZoneWarning[];
  /** The standing outcome of each reconciliation check that ran (quality_status); null when the warehouse is not migrated. */
  readonly quality?: readonly QualitySummary[] | null;
  /** How far each company's marts lag its loaded tables, most lagging first; null when the warehouse is not migrated. */
  readonly marts?: readonly MartsLag[] | null;
}

/** The subset of a BullMQ Job that the report reads. */
export interface JobLike {
  id?: string;
  data?: unknown;
  attemptsMade: number;
  failedReason?: string;
  finishedOn?: number;
  processedOn?: number;
  timestamp?: number;
}

/** The subset of a BullMQ Queue that the report reads. */
export interface StatusQueue extends CountableQueue {
  getFailed(start?: number, end?: number): Promise<JobLike[]>;
  getDelayed(start?: number, end?: number): Promise<JobLike[]>;
}

/** Inputs of {@link collectStatus}. */
export interface StatusSources {
  /** Every queue of the deployment. */
  readonly queues: readonly StatusQueue[];
  readonly pool: SqlRunner;
  readonly schema: string;
  /** `--stale-after` in seconds, overriding the per-resource defaults. */
  readonly staleAfterSeconds?: number;
  readonly now?: () => Date;
  /** Reads the paused connections (from Redis). */
  readonly pausedConnections?: () => Promise<readonly PausedConnection[]>;
  /** The zones the sync uses per company (from the configuration), for the time-zone warnings. */
  readonly zonesInUse?: ZonesInUse;
}

function describeJob(queue: string, job: JobLike, state: FailingJob['state']): FailingJob {
  const d = (job.data ?? {}) as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
  const [resource, company, from, to] = [d.resource, d.company, d.from, d.to].map(text);
  const at = job.finishedOn ?? job.processedOn;
  return {
    queue,
    id: job.id ?? '?',
    state,
    ...(resource ? { resource } : {}),
    ...(company ? { company } : {}),
    ...(from && to ? { window: from === to ? from : `${from}..${to}` } : {}),
    attempts: job.attemptsMade,
    lastError: job.failedReason ?? '(no error recorded)',
    ...(at ? { failedAt: new Date(at).toISOString() } : {}),
  };
}

/**
 * Turns freshness rows into entries for every company × resource seen: a combination
 * that some company has synced but another never has is listed as never synced.
 */
export function buildFreshnessEntries(
  rows: readonly { company: string; resource: string; lastSuccessAt: Date }[],
  now: Date,
  overrideSeconds?: number,
): FreshnessEntry[] {
  const companies = [...new Set(rows.filter((r) => r.company !== 'group').map((r) => r.company))].sort();
  const companyResources = [
    ...new Set(rows.filter((r) => r.company !== 'group').map((r) => r.resource)),
  ].sort();
  const byKey = new Map(rows.map((r) => [`${r.company}\u0000${r.resource}`, r]));
  const keys: [string, string][] = rows
    .filter((r) => r.company === 'group')
    .map((r) => ['group', r.resource]);
  for (const c of companies) for (const res of companyResources) keys.push([c, res]);
  return keys.map(([company, resource]) => {
    const threshold = staleAfterSeconds(resource, overrideSeconds);
    const row = byKey.get(`${company}\u0000${resource}`);
    const age = row ? ageSeconds(row.lastSuccessAt, now) : null;
    const state = freshnessState(age, threshold);
    const lastSuccessAt = row ? row.lastSuccessAt.toISOString() : null;
    const stale = state === 'stale' || state === 'never';
    return { company, resource, lastSuccessAt, ageSeconds: age, staleAfterSeconds: threshold, stale, state };
  });
}

/**
 * Entries of the rows of the `sync_freshness` view (null when the warehouse is not
 * migrated), group-level runs under company `group`: what `status`, `/metrics` and the
 * notifier all report.
 */
export function freshnessEntriesOf(rows: readonly FreshnessRow[] | null, now: Date, override?: number) {
  const entries = rows?.map((r) => ({ ...r, company: r.companyCnpj ?? 'group' }));
  return entries ? buildFreshnessEntries(entries, now, override) : null;
}

/**
 * The verdict of `status --check` (pure): stale data, a job failed for good, a paused
 * connection each make it fail, and so does a warehouse that never synced (`neverSynced`: a
 * probe of a fresh install must not say all is well). Jobs waiting to retry do not: they may
 * yet succeed, and fail for good when they do not.
 */
export function checkOf(
  summary: Pick<StatusReport['summary'], 'stale' | 'failed'> & { readonly neverSynced?: boolean },
  paused: readonly Pick<PausedConnection, 'connection' | 'code'>[],
  marts?: readonly MartsLag[] | null,
): StatusReport['check'] {
  const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  const problems = [
    ...(summary.neverSynced
      ? ['the warehouse has never synced (run punchline backfill, or start punchline worker)']
      : []),
    ...(summary.stale > 0
      ? [`${plural(summary.stale, 'company × resource', 'company × resource pairs')} stale`]
      : []),
    ...(summary.failed > 0 ? [`${plural(summary.failed, 'job', 'jobs')} failed`] : []),
    ...paused.map((p) => `connection "${p.connection}" paused (${p.code})`),
    ...martsLagProblems(marts),
  ];
  return { ok: problems.length === 0, problems };
}

/**
 * Gathers the status report from Redis (queue counts, failing jobs, paused connections) and the
 * warehouse (freshness, open rejections, schema drift, companies' CEPs against their zones,
 * quality_status).
 */
export async function collectStatus(sources: StatusSources): Promise<StatusReport> {
  const now = (sources.now ?? (() => new Date()))();
  const limit = 20; // failing jobs listed
  const { pool, schema, zonesInUse } = sources;
  const [queues, failingPerQueue, rows, paused, rejections, schemaDrift, companies, quality, marts] =
    await Promise.all([
      readQueueCounts(sources.queues),
      Promise.all(
        sources.queues.map(async (q) => {
          const [failed, delayed] = await Promise.all([q.getFailed(0, limit - 1), q.getDelayed(0, 999)]);
          return [
            ...failed.map((j) => describeJob(q.name, j, 'failed')),
            ...delayed
              .filter((j) => j.attemptsMade > 0 && j.failedReason)
              .map((j) => describeJob(q.name, j, 'retrying')),
          ];
        }),
      ),
      readFreshness(pool, schema),
      sources.pausedConnections?.(),
      readOpenRejections(pool, schema),
      readSchemaDrift(pool, schema),
      zonesInUse && readCompanyAddresses(pool, schema),
      readQualityStatus(pool, schema),
      readMartsLag(pool, schema, now),
    ]);
  const allFailing = failingPerQueue
    .flat()
    .sort((a, b) => (b.failedAt ?? '').localeCompare(a.failedAt ?? ''));
  const freshness = freshnessEntriesOf(rows, now, sources.staleAfterSeconds);
  const summary = {
    stale: freshness?.filter((f) => f.stale).length ?? 0,
    aging: freshness?.filter((f) => f.state === 'aging').length ?? 0,
    failed: queues.reduce((n, q) => n + q.counts.failed, 0),
    retrying: allFailing.filter((f) => f.state === 'retrying').length,
  };
  return {
    generatedAt: now.toISOString(),
    queues,
    failing: allFailing.slice(0, limit),
    freshness,
    summary,
    // Migrated, and no successful sync of anything yet.
    check: checkOf(
      { ...summary, neverSynced: freshness !== null && freshness.every((f) => f.lastSuccessAt === null) },
      paused ?? [],
      marts,
    ),
    ...(paused ? { pausedConnections: paused } : {}),
    rejections,
    schemaDrift,
    ...(zonesInUse ? { timeZoneWarnings: timeZoneWarnings(companies ?? [], zonesInUse, now) } : {}),
    quality,
    marts,
  };
}
