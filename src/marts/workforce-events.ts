/**
 * The `workforce_events` mart: every movement of a company's workforce, one row per
 * record and event on the day it takes effect (docs/warehouse.md "Workforce measures").
 * Events are read off the day grain, so the ledger and the headcount bridge agree by
 * construction: a record's first synced day is a hire (rehire, company transfer in) when
 * it is its known admission date, its last day a leave (company transfer out) when it is
 * `employments.left_on`, and a day whose department differs from the day before a
 * department change. Rewritten whole months at a time.
 */
import { quoteIdent } from '../warehouse/db.js';
import type { BuiltQuery } from '../warehouse/merge-statement.js';
import type { MartModule, MartScope } from './module.js';

const T = (schema: string, table: string) => `${quoteIdent(schema)}.${quoteIdent(table)}`;

/** Days between a record's end in one company of the group and the CPF's start in another for a transfer. */
export const TRANSFER_DAYS = 31;

/** The first day of the month of `day` and the last day of the month of `to` (`YYYY-MM-DD`). */
export function wholeMonths(from: string, to: string): { first: string; last: string } {
  const [y, m] = to.slice(0, 7).split('-').map(Number) as [number, number];
  const last = new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
  return { first: `${from.slice(0, 7)}-01`, last };
}

/**
 * The records of company `$1` and the other records of their CPFs in the companies of
 * the same economic group (`companies.headquarter_cnpj`), as a CTE `group_records`.
 */
function groupRecords(schema: string): string {
  const t = (name: string) => T(schema, name);
  return `grp AS (
  SELECT coalesce(c.headquarter_cnpj, c.cnpj) AS root FROM ${t('companies')} c WHERE c.cnpj = $1
  UNION ALL SELECT $1 WHERE NOT EXISTS (SELECT 1 FROM ${t('companies')} WHERE cnpj = $1)
),
group_records AS (
  SELECT e.company_cnpj, e.cpf, e.employed_from, e.employed_from_source, e.left_on
    FROM ${t('employments')} e LEFT JOIN ${t('companies')} c ON c.cnpj = e.company_cnpj CROSS JOIN grp
   WHERE coalesce(c.headquarter_cnpj, e.company_cnpj) = grp.root
     AND e.cpf IN (SELECT cpf FROM ${t('employments')} WHERE company_cnpj = $1)
)`;
}

/**
 * Rewrites company `$1`'s events of the days `$2`..`$3` (whole months): a delete and an
 * insert, each returning the rows it touched.
 */
export function buildWorkforceEventsRefresh(
  schema: string,
  company: string,
  first: string,
  last: string,
): { delete: BuiltQuery; insert: BuiltQuery } {
  const t = (name: string) => T(schema, name);
  const values = [company, first, last];
  return {
    delete: {
      text: `WITH gone AS (DELETE FROM ${t('workforce_events')} WHERE company_cnpj = $1 AND event_date BETWEEN $2::date AND $3::date RETURNING 1)
SELECT count(*)::int AS n FROM gone`,
      values,
    },
    insert: {
      text: `WITH ${groupRecords(schema)},
days AS (
  SELECT d.cpf, d.collaborator_record, d.work_date, coalesce(d.department, '') AS department,
         lag(d.work_date) OVER w AS prev_day, lag(coalesce(d.department, '')) OVER w AS prev_department
    FROM ${t('employee_daily')} d
   WHERE d.company_cnpj = $1 AND d.work_date BETWEEN $2::date - 1 AND $3::date
  WINDOW w AS (PARTITION BY d.cpf, d.collaborator_record ORDER BY d.work_date)
),
dismissal AS (
  -- The type of the dismissal punchline pushed for the record's CPF on its last day.
  SELECT DISTINCT ON (p.cpf, p.dismissal_date) p.cpf, p.dismissal_date, p.dismissal_type
    FROM ${t('pushed_dismissals')} p WHERE p.company_cnpj = $1 AND p.cpf IS NOT NULL
   ORDER BY p.cpf, p.dismissal_date, p.id DESC
),
entries AS (
  SELECT x.cpf, x.collaborator_record, x.work_date AS event_date, x.department,
         CASE WHEN o.company_cnpj IS NOT NULL THEN 'company_transfer_in'
              WHEN EXISTS (SELECT 1 FROM ${t('employments')} r WHERE r.company_cnpj = $1 AND r.cpf = x.cpf
                              AND r.collaborator_record <> x.collaborator_record AND r.left_on < e.employed_from) THEN 'rehire'
              ELSE 'hire' END AS event_type,
         o.company_cnpj AS other_company_cnpj
    FROM days x
    JOIN ${t('employments')} e ON e.company_cnpj = $1 AND e.cpf = x.cpf AND e.collaborator_record = x.collaborator_record
    LEFT JOIN LATERAL (
      SELECT g.company_cnpj FROM group_records g
       WHERE g.cpf = x.cpf AND g.company_cnpj <> $1 AND g.employed_from < e.employed_from
         AND g.left_on BETWEEN e.employed_from - ${TRANSFER_DAYS} AND e.employed_from + ${TRANSFER_DAYS - 1}
       ORDER BY g.left_on DESC, g.company_cnpj LIMIT 1
    ) o ON true
   WHERE x.prev_day IS NULL AND x.work_date = e.employed_from AND e.employed_from_source = 'admission'
),
exits AS (
  SELECT x.cpf, x.collaborator_record, x.work_date AS event_date, x.department,
         CASE WHEN o.company_cnpj IS NOT NULL THEN 'company_transfer_out' ELSE 'leave' END AS event_type,
         o.company_cnpj AS other_company_cnpj,
         CASE WHEN o.company_cnpj IS NULL THEN CASE WHEN e.left_on_source = 'dismissal' THEN dismissal_kind(p.dismissal_type) ELSE 'unknown' END END AS leaving_kind,
         e.left_on_source AS date_source
    FROM days x
    JOIN ${t('employments')} e ON e.company_cnpj = $1 AND e.cpf = x.cpf AND e.collaborator_record = x.collaborator_record
    LEFT JOIN dismissal p ON e.left_on_source = 'dismissal' AND p.cpf = x.cpf AND p.dismissal_date = e.left_on
    LEFT JOIN LATERAL (
      SELECT g.company_cnpj FROM group_records g
       WHERE g.cpf = x.cpf AND g.company_cnpj <> $1 AND g.employed_from_source = 'admission' AND g.employed_from > e.employed_from
         AND g.employed_from BETWEEN e.left_on - ${TRANSFER_DAYS - 1} AND e.left_on + ${TRANSFER_DAYS}
       ORDER BY g.employed_from, g.company_cnpj LIMIT 1
    ) o ON true
   WHERE x.work_date = e.left_on
),
events AS (
  SELECT cpf, collaborator_record, event_date, event_type, department, NULL::text AS from_department, NULL::text AS to_department,
         other_company_cnpj, NULL::text AS leaving_kind, 'admission' AS date_source FROM entries
  UNION ALL
  SELECT cpf, collaborator_record, event_date, event_type, department, NULL, NULL, other_company_cnpj, leaving_kind, date_source FROM exits
  UNION ALL
  SELECT cpf, collaborator_record, work_date, 'department_change', department, prev_department, department, NULL, NULL, 'history'
    FROM days WHERE prev_day IS NOT NULL AND prev_department <> department
)
, made AS (
  INSERT INTO ${t('workforce_events')} (company_cnpj, cpf, collaborator_record, event_date, event_type, department, from_department,
    to_department, other_company_cnpj, leaving_kind, date_source)
  SELECT $1, cpf, collaborator_record, event_date, event_type, department, from_department, to_department, other_company_cnpj,
         leaving_kind, date_source
    FROM events WHERE event_date BETWEEN $2::date AND $3::date
  RETURNING 1
) SELECT count(*)::int AS n FROM made`,
      values,
    },
  };
}

/** Runs a delete and an insert; the rows both touched. */
export async function rewrite(
  client: Parameters<MartModule['refresh']>[0],
  statements: { delete: BuiltQuery; insert: BuiltQuery },
): Promise<number> {
  let n = 0;
  for (const s of [statements.delete, statements.insert])
    n += (await client.query<{ n: number }>(s.text, s.values)).rows[0]!.n;
  return n;
}

/** `workforce_events`, rewritten whole months of the scope. */
export const workforceEvents: MartModule = {
  name: 'workforce_events',
  reads: ['employee_daily', 'employments', 'pushed_dismissals', 'companies'],
  writes: ['workforce_events'],
  refresh: (client, scope: MartScope) => {
    const { first, last } = wholeMonths(scope.from, scope.to);
    return rewrite(client, buildWorkforceEventsRefresh(scope.schema, scope.company, first, last));
  },
};
