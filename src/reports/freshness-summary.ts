import { FRESHNESS_STATES, type FreshnessState } from './staleness.js';
import type { FreshnessEntry } from './status-report.js';

/** Entries per state. */
export type StateCounts = Readonly<Record<FreshnessState, number>>;

/** One resource across the companies that have it. */
export interface ResourceFreshness {
  readonly resource: string;
  /** Companies (or `group`) per state. */
  readonly counts: StateCounts;
  /** The oldest last success among them, in seconds; null when none ever succeeded. */
  readonly oldestAgeSeconds: number | null;
}

/** One company across its resources. */
export interface CompanyFreshness {
  /** CNPJ, or `group` for group-level resources. */
  readonly company: string;
  /** Its resources per state. */
  readonly counts: StateCounts;
  /** Its entry furthest past (or closest to) its threshold. */
  readonly worst: FreshnessEntry;
  /** Every entry of the company, in the report's order. */
  readonly entries: readonly FreshnessEntry[];
}

const emptyCounts = () =>
  Object.fromEntries(FRESHNESS_STATES.map((s) => [s, 0])) as Record<FreshnessState, number>;

/** How far `e` is towards its threshold: 1 at the threshold, Infinity when never synced. */
export function overdue(e: Pick<FreshnessEntry, 'ageSeconds' | 'staleAfterSeconds'>): number {
  return e.ageSeconds === null ? Number.POSITIVE_INFINITY : e.ageSeconds / e.staleAfterSeconds;
}

/**
 * Counts per resource (fresh, aging, stale, never synced) in the order resources first appear: what
 * `status` prints instead of a line per company and resource when there are many, and the status page
 * shows above its grid.
 */
export function freshnessByResource(entries: readonly FreshnessEntry[]): ResourceFreshness[] {
  const byResource = new Map<string, { counts: Record<FreshnessState, number>; oldest: number | null }>();
  for (const e of entries) {
    let r = byResource.get(e.resource);
    if (!r) byResource.set(e.resource, (r = { counts: emptyCounts(), oldest: null }));
    r.counts[e.state] += 1;
    if (e.ageSeconds !== null && (r.oldest === null || e.ageSeconds > r.oldest)) r.oldest = e.ageSeconds;
  }
  return [...byResource].map(([resource, r]) => ({ resource, counts: r.counts, oldestAgeSeconds: r.oldest }));
}

/** Companies worst first: most stale or never synced, furthest past its threshold, most aging; then CNPJ. */
export function companiesWorstFirst(entries: readonly FreshnessEntry[]): CompanyFreshness[] {
  const byCompany = new Map<string, FreshnessEntry[]>();
  for (const e of entries) {
    if (!byCompany.has(e.company)) byCompany.set(e.company, []);
    byCompany.get(e.company)!.push(e);
  }
  const companies = [...byCompany].map(([company, list]): CompanyFreshness => {
    const counts = emptyCounts();
    for (const e of list) counts[e.state] += 1;
    const worst = list.reduce((a, b) => (overdue(b) > overdue(a) ? b : a));
    return { company, counts, worst, entries: list };
  });
  const bad = (c: CompanyFreshness) => c.counts.stale + c.counts.never;
  return companies.sort(
    (a, b) =>
      bad(b) - bad(a) ||
      overdue(b.worst) - overdue(a.worst) ||
      b.counts.aging - a.counts.aging ||
      a.company.localeCompare(b.company),
  );
}
