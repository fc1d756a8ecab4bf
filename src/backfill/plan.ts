/**
 * The plan of a backfill: the warehouse and every connection checked (the group walk says which
 * companies each reaches), then the jobs of the range per connection, windows already done
 * skipped unless forced. Writes nothing, queues nothing: `backfill --dry-run` prints it, and
 * `runBackfill` queues it.
 */
import type { ConnectionClient } from '../connections/api-clients.js';
import type { Connection } from '../config.js';
import { CATALOG } from '../resources/index.js';
import { planByCompanyDay } from '../plan/company-days.js';
import { backfillItems, planJobs, type PlannedJob } from '../plan/planner.js';
import { isFollowUp } from '../plan/resources.js';
import { daysOf } from '../plan/windows.js';
import { checkConnection, checkWarehouse } from '../runtime/preflight.js';
import { doneWindows } from '../runtime/run-records.js';
import type { SqlRunner } from '../warehouse/db.js';
import { UsageError } from '../util/usage-error.js';
import type { BackfillOptions } from './args.js';

/** What planning needs: the warehouse (read only), a client per connection (one group walk each), the clock. */
export interface PlanningDeps {
  readonly warehouse: { readonly pool: SqlRunner; readonly schema: string };
  client(name: string): Pick<ConnectionClient, 'connection' | 'api'>;
  readonly now: () => Date;
}

/** The jobs of a backfill, and what planning found on the way. */
export interface BackfillPlan {
  /** The connections whose token works and that reach the company asked for. */
  readonly connections: readonly Connection[];
  readonly jobs: readonly PlannedJob[];
  /** Windows skipped as already synced. */
  readonly skipped: number;
  /** Every company the backfill covers, with its connection (its marts are brought current after). */
  readonly companies: readonly { readonly connection: string; readonly company: string }[];
}

/** Checks the warehouse and each connection, then plans every job of the range; see the file comment. */
export async function planBackfill(deps: PlanningDeps, opts: BackfillOptions): Promise<BackfillPlan> {
  const { pool: db, schema } = deps.warehouse;
  await checkWarehouse(db, schema);
  // Check every connection before planning anything, so a bad one loads nothing.
  const walks = [];
  for (const connection of opts.connections) {
    const walk = await checkConnection(deps.client(connection.name));
    if (opts.company && !walk.companies.includes(opts.company)) {
      if (opts.connections.length === 1) {
        throw new UsageError(
          `--company ${opts.company} is not reachable with connection "${connection.name}" (companies: ${walk.companies.join(', ')})`,
        );
      }
      continue;
    }
    walks.push({ connection, walk });
  }
  if (walks.length === 0)
    throw new UsageError(`--company ${opts.company} is not reachable with any connection`);

  let skipped = 0;
  const jobs: PlannedJob[] = [];
  const covered: { connection: string; company: string }[] = [];
  for (const { connection, walk } of walks) {
    const companies = opts.company ? [opts.company] : walk.companies;
    covered.push(...companies.map((company) => ({ connection: connection.name, company })));
    const done = opts.force ? undefined : await doneWindows(db, schema, connection.name);
    // The hour bank stops at each company's own today (src/plan/company-days.ts).
    const plan = planByCompanyDay(connection, companies, deps.now(), (today, group) =>
      planJobs({
        connection: connection.name,
        companies: group,
        scoped: walk.scoped,
        items: backfillItems(opts.resources, opts.from, opts.to, today),
        followUps: opts.resources.filter(isFollowUp),
        force: opts.force,
        done,
        origin: 'backfill',
      }),
    );
    skipped += plan.skipped;
    jobs.push(...plan.jobs);
  }
  return { connections: walks.map((w) => w.connection), jobs, skipped, companies: covered };
}

/**
 * The API requests a planned job makes when nothing is split or retried: one per endpoint it
 * reads (per day of the window for a daily read); `per item` for a follow-up, which makes one per
 * item its parent's window loaded (known only then).
 */
export function requestsOf(job: PlannedJob): number | 'per item' {
  const declaration = CATALOG[job.name];
  switch (declaration.read) {
    case 'group':
      return 2;
    case 'items':
      return 'per item';
    case 'day': {
      const { from, to } = job.data;
      return declaration.reads.length * (from && to ? daysOf({ from, to }).length : 1);
    }
    default:
      return declaration.reads.length;
  }
}
