/**
 * The standing outcome of the reconciliation checks (the `quality_status` view, docs/warehouse.md
 * "Reconciliation checks"), summed per check for `punchline status` and `/metrics`: how
 * many parts of the warehouse are ok, warned or failed, how many scopes are not ok, and
 * the worst one to look at first.
 */
import { QUALITY_CHECKS, QUALITY_STATUSES, type QualityStatus } from '../quality/checks.js';
import { isMissingRelation, type QueryablePool } from './freshness.js';
import { quoteIdent } from '../warehouse/db.js';

/** A scope that is not ok, to start with. */
export interface QualityExample {
  readonly company: string;
  readonly part: string;
  readonly scope: string;
  readonly status: QualityStatus;
  /** What the difference is about. */
  readonly detail: string | null;
}

/** The standing outcome of one check. */
export interface QualitySummary {
  /** The check (quality_checks.check_name). */
  readonly check: string;
  /** Parts of the warehouse by the worst status of their latest run. */
  readonly parts: Readonly<Record<QualityStatus, number>>;
  /** Scopes (collaborators, days, gaps, tables) that are not ok. */
  readonly findings: number;
  /** When the check last ran on any part (ISO 8601). */
  readonly lastCheckedAt: string;
  /** The most recent scope of the worst status, when one is not ok. */
  readonly example?: QualityExample;
}

/** The query of {@link readQualityStatus}. */
function buildQualityStatusQuery(schema: string): string {
  const rank = `CASE status WHEN 'fail' THEN 2 WHEN 'warn' THEN 1 ELSE 0 END`;
  return `with rows as (
            select check_name, company_cnpj, part, scope, status, detail, checked_at, ${rank} as rank from ${quoteIdent(schema)}.quality_status
          ), parts as (
            select check_name, company_cnpj, part, max(rank) as worst, max(checked_at) as checked_at from rows group by 1, 2, 3
          )
          select p.check_name as check, count(*) filter (where worst = 0)::int as ok, count(*) filter (where worst = 1)::int as warn,
                 count(*) filter (where worst = 2)::int as fail, max(p.checked_at) as last_checked_at,
                 (select count(*)::int from rows r where r.check_name = p.check_name and r.rank > 0 and r.scope <> 'all') as findings,
                 (select json_build_object('company', r.company_cnpj, 'part', r.part, 'scope', r.scope, 'status', r.status, 'detail', r.detail)
                    from rows r where r.check_name = p.check_name and r.rank > 0
                   order by r.rank desc, r.scope = 'all', r.checked_at desc, r.company_cnpj, r.part, r.scope limit 1) as example
            from parts p group by p.check_name order by p.check_name`;
}

/** Reads the outcome of every check that ran; null when the warehouse has no `quality_status` yet. */
export async function readQualityStatus(pool: QueryablePool, schema: string): Promise<QualitySummary[] | null> {
  try {
    const { rows } = await pool.query(buildQualityStatusQuery(schema));
    type Row = { check: string; ok: number; warn: number; fail: number; findings: number; last_checked_at: Date | string; example: QualityExample | null };
    const order = (check: string) => (QUALITY_CHECKS as readonly string[]).indexOf(check) >>> 0;
    return (rows as Row[]).sort((a, b) => order(a.check) - order(b.check)).map((r) => ({
      check: r.check,
      parts: Object.fromEntries(QUALITY_STATUSES.map((s) => [s, r[s]])) as Record<QualityStatus, number>,
      findings: r.findings,
      lastCheckedAt: (r.last_checked_at instanceof Date ? r.last_checked_at : new Date(r.last_checked_at)).toISOString(),
      ...(r.example ? { example: r.example } : {}),
    }));
  } catch (err) {
    if (isMissingRelation(err)) return null;
    throw err;
  }
}
