import { warehouseDb, type SqlRunner } from '../warehouse/db.js';
import { ageSeconds, unlessMissing } from './freshness.js';

/** How far one company's marts lag its loaded tables (docs/warehouse.md "Marts"). */
export interface MartsLag {
  /** CNPJ of the company. */
  readonly company: string;
  /** Loads its marts have not taken in yet. */
  readonly pendingLoads: number;
  /** Seconds the oldest of them has waited; 0 when the marts are current. */
  readonly lagSeconds: number;
  /** The last refresh of its marts (ISO 8601), and how many loads it took in at once; null when none ran. */
  readonly lastRefreshAt: string | null;
  readonly lastRefreshLoads: number | null;
}

/** A lag past which `status --check` fails: the follow-ups are not keeping up (or not running). */
export const MARTS_LAG_LIMIT_SECONDS = 15 * 60;

/**
 * Reads every company with pending loads or a refresh from `pending_changes` and
 * `mart_refreshes`, most lagging first; null before those tables exist.
 */
export async function readMartsLag(pool: SqlRunner, schema: string, now: Date): Promise<MartsLag[] | null> {
  const db = warehouseDb(pool, schema);
  const query = db
    .selectFrom('pending_changes')
    .select(['company_cnpj as company'])
    .select((eb) => [eb.fn.countAll<string>().as('pending'), eb.fn.min('recorded_at').as('since')])
    .groupBy('company_cnpj');
  const rows = await unlessMissing(
    Promise.all([
      query.execute(),
      db.selectFrom('mart_refreshes').select(['company_cnpj as company', 'refreshed_at', 'loads']).execute(),
    ]),
  );
  if (rows === null) return null;
  const [pending, refreshes] = rows;
  const byCompany = new Map<string, MartsLag>();
  for (const r of refreshes)
    byCompany.set(r.company, {
      company: r.company,
      pendingLoads: 0,
      lagSeconds: 0,
      lastRefreshAt: r.refreshed_at.toISOString(),
      lastRefreshLoads: r.loads,
    });
  for (const p of pending) {
    const known = byCompany.get(p.company);
    byCompany.set(p.company, {
      company: p.company,
      pendingLoads: Number(p.pending),
      lagSeconds: ageSeconds(new Date(p.since), now),
      lastRefreshAt: known?.lastRefreshAt ?? null,
      lastRefreshLoads: known?.lastRefreshLoads ?? null,
    });
  }
  return [...byCompany.values()].sort(
    (a, b) => b.lagSeconds - a.lagSeconds || a.company.localeCompare(b.company),
  );
}

/** The problem `status --check` reports for companies whose marts lag past {@link MARTS_LAG_LIMIT_SECONDS}. */
export function martsLagProblems(lags: readonly MartsLag[] | null | undefined): string[] {
  const late = (lags ?? []).filter((l) => l.lagSeconds > MARTS_LAG_LIMIT_SECONDS);
  if (late.length === 0) return [];
  const n = late.length;
  const who = n === 1 ? '1 company' : `${n} companies`;
  return [`marts of ${who} more than ${MARTS_LAG_LIMIT_SECONDS / 60} minutes behind their tables`];
}
