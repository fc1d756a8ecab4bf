/**
 * The marts' follow-up of a company (docs/warehouse.md "Marts"): after a load commits, a
 * job of the `marts` queue, one per company (its id is the company's), takes in every load
 * the company's marts have not seen yet (`pending_changes`), rewrites the marts once for
 * their union, runs the reconciliation checks of those loads, and analyses the tables
 * written in bulk (src/warehouse/analyze.ts). The job waits a little
 * before it starts, so the loads that commit meanwhile (a backfill's windows) are taken in
 * by the same refresh.
 */
import type { Job } from 'bullmq';
import { z } from 'zod';
import { companyTimezone } from '../config.js';
import { lockCompanyMarts, refreshMarts, type MartStats } from '../marts/upkeep.js';
import { claimPendingChanges, type ChangeSet } from '../marts/pending.js';
import { upholdPrivacy } from '../privacy/erasures.js';
import { checkAfterRuns } from '../quality/after-run.js';
import { recordJob, recordQualityCheckError } from '../telemetry/metrics.js';
import { todayIn } from '../util/time.js';
import { quoteIdent } from '../warehouse/db.js';
import { withTransaction, type TransactionPool } from '../warehouse/transaction.js';
import { AFTER_LARGE_WINDOW, analyzeWritten } from '../warehouse/analyze.js';
import { RESOURCES, type Resource } from '../resources/index.js';
import type { SyncQueues } from './queues.js';
import type { SyncRuntime } from './runtime.js';

/** What a marts job is about. */
export const martsJobData = z.object({
  connection: z.string().min(1),
  company: z.string().regex(/^[0-9]{14}$/),
});
export type MartsJobData = z.infer<typeof martsJobData>;

/** How long a follow-up waits for more loads of its company: after a window, and while a backfill runs. */
export const MARTS_DELAY_MS = { window: 1_000, backfill: 5_000 } as const;

/** The job id of a company's follow-up (BullMQ ids have no ':'). */
export const martsJobId = (d: MartsJobData, suffix?: string): string =>
  ['marts', d.connection, d.company, ...(suffix === undefined ? [] : [suffix])].join('.');

/** States in which a job has not started: it will see every change committed before it starts. */
const NOT_STARTED = new Set(['waiting', 'delayed', 'prioritized', 'waiting-children']);

/**
 * Queues the company's follow-up unless one that has not started yet is queued (it takes
 * in this load too). One that has started may have claimed before this load committed: a
 * second one is queued then, under an id of its own.
 */
export async function queueMartsRefresh(
  queues: SyncQueues,
  data: MartsJobData,
  delayMs: number,
): Promise<string> {
  const opts = { delay: delayMs, removeOnComplete: true } as const;
  for (const suffix of [undefined, 'next']) {
    const jobId = martsJobId(data, suffix);
    const job = await queues.marts.add('marts', data, { ...opts, jobId });
    const state = await job.getState();
    if (NOT_STARTED.has(state)) return jobId;
    if (state === 'completed' || state === 'failed' || state === 'unknown') {
      // Finished (a failure kept for the dashboard): queued afresh under the same id.
      const again = await job.remove().then(
        () => queues.marts.add('marts', data, { ...opts, jobId }),
        () => undefined,
      );
      if (again && NOT_STARTED.has(await again.getState())) return jobId;
    }
  }
  const jobId = martsJobId(data, String(Date.now()));
  await queues.marts.add('marts', data, { ...opts, jobId });
  return jobId;
}

/** Has the company's follow-up run now: a delayed one starts at once, and one is queued when none waits or runs. */
export async function startMartsRefresh(queues: SyncQueues, data: MartsJobData): Promise<void> {
  const job = await queues.marts.getJob(martsJobId(data));
  const state = job ? await job.getState() : 'missing';
  if (state === 'delayed') await job!.promote().catch(() => undefined);
  else if (!NOT_STARTED.has(state) && state !== 'active') await queueMartsRefresh(queues, data, 0);
}

/**
 * Has a follow-up run for every company with pending changes (a worker calls it when it
 * starts): changes whose job was lost, and those a migration that changed a mart's
 * definition recorded (`request_marts_rebuild`), are taken in without waiting for a load.
 * Returns the companies.
 */
export async function startPendingMarts(rt: Pick<SyncRuntime, 'warehouse' | 'queues'>): Promise<number> {
  const { pool, schema } = rt.warehouse;
  const { rows } = await pool.query<MartsJobData>(
    `SELECT DISTINCT ON (company_cnpj) connection, company_cnpj AS company FROM ${quoteIdent(schema)}.pending_changes
      ORDER BY company_cnpj, id DESC`,
  );
  for (const data of rows) await startMartsRefresh(rt.queues, data);
  return rows.length;
}

/** What one follow-up did. */
export interface MartsJobResult {
  /** Refreshes run (one per claim: loads that commit during one are claimed by the next). */
  readonly refreshes: number;
  /** Loads taken in, and rows written. */
  readonly loads: number;
  readonly days: number;
}

/** Runs a company's follow-up: refreshes until nothing is pending, then the checks of the loads taken in. */
export async function runMartsJob(rt: SyncRuntime, job: Pick<Job, 'data'>): Promise<MartsJobResult> {
  const started = Date.now();
  const data = martsJobData.parse(job.data);
  const zone = zoneOf(rt, data);
  const result = { refreshes: 0, loads: 0, days: 0 };
  for (;;) {
    const done = await catchUpMarts(rt.warehouse, rt.now(), data.company, zone);
    if (!done) break;
    result.refreshes += 1;
    result.loads += done.changes.loads;
    result.days += done.stats.days;
    // A large window (or many coalesced) leaves tables whose estimates autovacuum has not caught up with.
    await analyzeWritten(rt.warehouse.pool, rt.warehouse.schema, AFTER_LARGE_WINDOW);
    await checkLoads(rt, data.company, zone, done.changes);
  }
  recordJob({ queue: 'marts', state: 'completed', durationMs: Date.now() - started });
  return result;
}

/** The company's zone by its connection's configuration; by the warehouse's record for a connection no longer configured. */
function zoneOf(rt: SyncRuntime, data: MartsJobData): string {
  const connection = rt.config.connections.find((c) => c.name === data.connection);
  return connection ? companyTimezone(connection, data.company) : DEFAULT_ZONE;
}

/** The zone a company of no configured connection is taken to be in (as daily_attendance does). */
export const DEFAULT_ZONE = 'America/Sao_Paulo';

/** One refresh of the company's marts, in one transaction; undefined when nothing was pending. */
export async function catchUpMarts(
  warehouse: { readonly pool: TransactionPool; readonly schema: string },
  now: Date,
  company: string,
  zone: string,
): Promise<{ changes: ChangeSet; stats: MartStats } | undefined> {
  const { pool, schema } = warehouse;
  return withTransaction(pool, async (client) => {
    const started = Date.now();
    await lockCompanyMarts(client, schema, company);
    const changes = await claimPendingChanges(client, schema, company);
    if (!changes) return undefined;
    const today = todayIn(zone, now);
    const stats = await refreshMarts(client, { schema, company, zone, today }, changes);
    // People erased in this company stay erased in the marts too (docs/privacy.md).
    await upholdPrivacy(client, schema, company, undefined);
    await client.query(
      `INSERT INTO ${quoteIdent(schema)}.mart_refreshes (company_cnpj, first_day, last_day, changes, loads, oldest_change_at, duration_ms)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (company_cnpj) DO UPDATE SET refreshed_at = now(), first_day = excluded.first_day,
         last_day = excluded.last_day, changes = excluded.changes, loads = excluded.loads,
         oldest_change_at = excluded.oldest_change_at, duration_ms = excluded.duration_ms`,
      [
        company,
        stats.span?.from ?? null,
        stats.span?.to ?? null,
        changeNames(changes),
        changes.loads,
        changes.since,
        Date.now() - started,
      ],
    );
    return { changes, stats };
  });
}

/** The inputs a change set names, as in `pending_changes.changes`. */
const changeNames = (c: ChangeSet): string[] => [
  ...(c.directory ? ['directory'] : []),
  ...(c.seen ? ['seen'] : []),
  ...Object.keys(c.spans),
];

/** docs/warehouse.md "Reconciliation checks": what the loads taken in changed, each check once. */
async function checkLoads(rt: SyncRuntime, company: string, zone: string, changes: ChangeSet): Promise<void> {
  const { schema, checks: pool } = rt.warehouse;
  const settings = {
    timeZones: { [company]: zone },
    defaultTimeZone: zone,
    lookbackDays: rt.config.syncLookbackDays,
    now: rt.now(),
  };
  // A check that fails to run counts against the resource of the first load.
  const onError = () => recordQualityCheckError({ resource: runs[0]?.resource ?? 'marts' });
  // A rebuild (resource `marts`) loaded nothing: no check follows it.
  const runs = changes.runs.flatMap((r) =>
    isResource(r.resource) ? [{ ...r, resource: r.resource, company }] : [],
  );
  await checkAfterRuns({ pool, schema, logger: rt.logger, settings, onError }, runs);
}

const isResource = (name: string): name is Resource => (RESOURCES as readonly string[]).includes(name);
