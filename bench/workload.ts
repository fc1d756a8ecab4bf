/**
 * The HTTP requests a backfill makes, planned without running it (pure), so the source
 * floor fetches exactly the sync's windows: the sync's own planner lays out the jobs
 * (same month windows, same per-day hour-bank calls, same companies), and each job is
 * turned into the calls its processor in jobs/ makes.
 */
import { API_PREFIX } from '../src/api/endpoints.js';
import { buildQuery, scopeParams, type Params } from '../src/api/query.js';
import { backfillItems, planJobs } from '../src/plan/planner.js';
import type { Resource } from '../src/plan/resources.js';
import { daysOf } from '../src/plan/windows.js';
import { CATALOG } from '../src/resources/index.js';
import type { CallTarget, ReadDeclaration, ReadEndpoint } from '../src/resources/declaration.js';

/** One GET of the workload. */
export interface PlannedRequest {
  /** Endpoint name (src/api/endpoints.ts), for the per-endpoint counts. */
  readonly endpoint: string;
  /** Path and query, starting with `/customer/v2/`. */
  readonly path: string;
}

/** What the plan needs to know about the source. */
export interface WorkloadInput {
  /** CNPJs the headquarters token reaches, headquarters first (the group walk's result). */
  readonly companies: readonly string[];
  /** Resources of the backfill. */
  readonly resources: readonly Resource[];
  /** Synced range, inclusive. */
  readonly from: string;
  readonly to: string;
  /** The sync's today (hour-bank windows stop there). */
  readonly today: string;
}

function get(endpoint: ReadEndpoint, params: Params = {}): PlannedRequest {
  const query = buildQuery(params);
  const { name, path } =
    typeof endpoint === 'string' ? { name: endpoint, path: `${API_PREFIX}/${endpoint}` } : endpoint;
  return { endpoint: name, path: `${path}${query ? `?${query}` : ''}` };
}

/**
 * Every GET of a backfill of `input` with a headquarters token, in the order the jobs
 * are planned: the preflight group walk, the companies job, then each company's jobs.
 */
export function planWorkload(input: WorkloadInput): PlannedRequest[] {
  // spec 1.4: a headquarters token with branches reads every company with company_national_registry.
  const scoped = input.companies.length > 1;
  const out: PlannedRequest[] = [get('economic-group'), get('company')]; // preflight (src/runtime/preflight.ts)
  const plan = planJobs({
    connection: 'bench',
    companies: input.companies,
    scoped,
    items: backfillItems(input.resources, input.from, input.to, input.today),
    followUps: [],
    force: false,
    origin: 'backfill',
  });
  for (const job of plan.jobs) {
    const d = job.data;
    const scope = scopeParams(d.scoped && d.company ? { companyNationalRegistry: d.company } : undefined);
    const declaration = CATALOG[d.resource];
    // The calls the engine makes for the job's read kind (src/load/read-calls.ts), from the declaration's reads.
    const reads = declaration.read === 'group' ? [] : (declaration.reads as readonly ReadDeclaration[]);
    const calls = (targets: readonly CallTarget[]) =>
      targets.forEach((t) => reads.forEach((r) => out.push(get(r.endpoint, { ...r.query(t), ...scope }))));
    const window = { from: d.from!, to: d.to! };
    switch (declaration.read) {
      case 'group':
        out.push(get(declaration.walk.group), get(declaration.walk.company));
        if (scoped) out.push(get(declaration.walk.company, { include_branches: true }));
        break;
      case 'list':
        calls([{}]);
        break;
      case 'month':
        calls([{ window }]);
        break;
      case 'day':
        // spec 4.1 overtime takes one date: one call per day of the window.
        calls(daysOf(window).map((date) => ({ date })));
        break;
      case 'items':
        throw new RangeError(`the source floor cannot plan the requests of ${d.resource}`);
    }
  }
  return out;
}

/**
 * Requests that fill the emulator's caches before anything is timed: one hour-bank read
 * per company on the range's last day makes it sum every earlier month of every
 * collaborator (and generate their absences), work otherwise paid by whichever stage
 * came first. The real API has caches of its own; the floors and the backfill must
 * meet the same state of this one.
 */
export function planWarmUp(companies: readonly string[], lastDay: string): PlannedRequest[] {
  const scoped = companies.length > 1;
  return companies.map((c) =>
    get('overtime', { date: lastDay, ...(scoped ? { company_national_registry: c } : {}) }),
  );
}

/** Requests per endpoint name. */
export function countByEndpoint(requests: readonly PlannedRequest[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of requests) counts[r.endpoint] = (counts[r.endpoint] ?? 0) + 1;
  return counts;
}
