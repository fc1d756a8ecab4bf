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
import { dateTimeBounds, daysOf } from '../src/plan/windows.js';

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

/** spec 2.4 lookup lists, one GET each (src/resources/lookups.ts). */
const LOOKUP_ENDPOINTS = [
  'department',
  'occupation',
  'cost-center',
  'unit',
  'journey',
  'point-rule',
  'collaborator-settings',
  'barrier',
  'fired-type',
  'absence/types',
] as const;

/** Period endpoints per resource (spec 4.1). */
const PERIOD_ENDPOINTS: Partial<Record<Resource, string>> = {
  punches: 'point/getFromPeriod',
  hour_totals: 'collaborator/totalHours',
  tardiness: 'tardiness',
  adjustments: 'adjustment',
  inconsistencies: 'inconsistency',
};

function get(endpoint: string, params: Params = {}): PlannedRequest {
  const query = buildQuery(params);
  return { endpoint, path: `${API_PREFIX}/${endpoint}${query ? `?${query}` : ''}` };
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
    switch (d.resource) {
      case 'companies':
        out.push(get('economic-group'), get('company'));
        if (scoped) out.push(get('company', { include_branches: true }));
        break;
      case 'lookups':
        for (const e of LOOKUP_ENDPOINTS) out.push(get(e, scope));
        break;
      case 'collaborators':
        out.push(get('collaborator', scope));
        break;
      case 'hour_bank':
        // spec 4.1 overtime takes one date: one call per day of the window.
        for (const date of daysOf({ from: d.from!, to: d.to! })) out.push(get('overtime', { date, ...scope }));
        break;
      case 'absences': {
        // spec 4.1: absence/getFromPeriod takes date-times.
        const b = dateTimeBounds({ from: d.from!, to: d.to! });
        out.push(get('absence/getFromPeriod', { begin_date: b.beginDate, end_date: b.endDate, ...scope }));
        break;
      }
      default: {
        const endpoint = PERIOD_ENDPOINTS[d.resource];
        if (!endpoint) throw new RangeError(`the source floor cannot plan the requests of ${d.resource}`);
        out.push(get(endpoint, { begin_date: d.from!, end_date: d.to!, ...scope }));
      }
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
  return companies.map((c) => get('overtime', { date: lastDay, ...(scoped ? { company_national_registry: c } : {}) }));
}

/** Requests per endpoint name. */
export function countByEndpoint(requests: readonly PlannedRequest[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of requests) counts[r.endpoint] = (counts[r.endpoint] ?? 0) + 1;
  return counts;
}
