/**
 * The `monthly_headcount` mart: per company, department and month, a headcount bridge
 * that closes (docs/warehouse.md "Workforce measures"):
 * open + hires + rehires + transfers_in − transfers_out − leavers = close.
 * The movements are the sums of `workforce_events`; the opening and closing headcounts
 * and the average are counted from the day grain on their own, so `punchline verify`
 * (check `headcount_bridge`) finds any row where the two disagree. Turnover follows
 * SHRM: leavers ÷ average headcount, only for a month wholly synced whose leavers can be
 * known.
 */
import { quoteIdent } from '../warehouse/db.js';
import type { BuiltQuery } from '../warehouse/merge-statement.js';
import type { MartModule } from './module.js';
import { rewrite, wholeMonths } from './workforce-events.js';

const T = (schema: string, table: string) => `${quoteIdent(schema)}.${quoteIdent(table)}`;

/** Event types that start a record's employment in the company, and those that end it. */
const ENTRIES = `('hire', 'rehire', 'company_transfer_in')`;
const EXITS = `('leave', 'company_transfer_out')`;

/**
 * Rewrites company `$1`'s rows of the months of `$2`..`$3` (first and last day of whole
 * months); `$4` is the company's today (a month is complete once its last day is over).
 */
export function buildHeadcountRefresh(
  schema: string,
  company: string,
  first: string,
  last: string,
  today: string,
): { delete: BuiltQuery; insert: BuiltQuery } {
  const t = (name: string) => T(schema, name);
  const event = (types: string, alias: string) =>
    `EXISTS (SELECT 1 FROM ${t('workforce_events')} w WHERE w.company_cnpj = $1 AND w.event_date = ${alias}.work_date
       AND w.cpf = ${alias}.cpf AND w.collaborator_record = ${alias}.collaborator_record AND w.event_type IN ${types})`;
  return {
    delete: {
      text: `WITH gone AS (DELETE FROM ${t('monthly_headcount')} WHERE company_cnpj = $1 AND month BETWEEN $2::date AND $3::date RETURNING 1)
SELECT count(*)::int AS n FROM gone`,
      values: [company, first, last],
    },
    insert: {
      text: `WITH days AS (
  SELECT d.cpf, d.collaborator_record, d.work_date, date_trunc('month', d.work_date)::date AS month,
         coalesce(d.department, '') AS department,
         lag(d.work_date) OVER w AS prev_day, lag(coalesce(d.department, '')) OVER w AS prev_department,
         lag(date_trunc('month', d.work_date)) OVER w IS DISTINCT FROM date_trunc('month', d.work_date) AS first_in_month
    FROM ${t('employee_daily')} d
   WHERE d.company_cnpj = $1 AND d.work_date BETWEEN $2::date - 1 AND $3::date
  WINDOW w AS (PARTITION BY d.cpf, d.collaborator_record ORDER BY d.work_date)
),
months AS (
  SELECT month, min(work_date) AS first_day, max(work_date) AS last_day, count(DISTINCT work_date)::int AS n
    FROM days WHERE work_date >= $2::date GROUP BY month
),
flows AS (
  -- Opening: employed at the end of the day before (its department), or a start that is no hire (its first day's).
  SELECT x.month, CASE WHEN x.prev_day IS NOT NULL THEN x.prev_department ELSE x.department END AS department, 'open' AS what
    FROM days x WHERE x.work_date >= $2::date AND x.first_in_month AND NOT ${event(ENTRIES, 'x')}
  UNION ALL
  SELECT x.month, x.department, 'close' FROM days x JOIN months m ON m.month = x.month AND m.last_day = x.work_date
   WHERE NOT ${event(EXITS, 'x')}
  UNION ALL
  SELECT x.month, x.department, 'day' FROM days x WHERE x.work_date >= $2::date
  UNION ALL
  SELECT date_trunc('month', w.event_date)::date, CASE WHEN w.event_type = 'department_change' THEN w.from_department ELSE w.department END,
         CASE w.event_type WHEN 'department_change' THEN 'out' WHEN 'company_transfer_out' THEN 'out' WHEN 'company_transfer_in' THEN 'in'
              WHEN 'leave' THEN 'leave:' || w.leaving_kind ELSE w.event_type END
    FROM ${t('workforce_events')} w WHERE w.company_cnpj = $1 AND w.event_date BETWEEN $2::date AND $3::date
  UNION ALL
  SELECT date_trunc('month', w.event_date)::date, w.to_department, 'in'
    FROM ${t('workforce_events')} w WHERE w.company_cnpj = $1 AND w.event_date BETWEEN $2::date AND $3::date
     AND w.event_type = 'department_change'
),
listed AS (
  SELECT EXISTS (SELECT 1 FROM ${t('employments')} WHERE company_cnpj = $1 AND first_listed_at IS NOT NULL) AS yes
),
counted AS (
  SELECT f.month, f.department,
         count(*) FILTER (WHERE what = 'open')::int AS open, count(*) FILTER (WHERE what = 'close')::int AS close,
         count(*) FILTER (WHERE what = 'day')::int AS person_days,
         count(*) FILTER (WHERE what = 'hire')::int AS hires, count(*) FILTER (WHERE what = 'rehire')::int AS rehires,
         count(*) FILTER (WHERE what = 'in')::int AS transfers_in, count(*) FILTER (WHERE what = 'out')::int AS transfers_out,
         count(*) FILTER (WHERE what LIKE 'leave:%')::int AS leavers,
         count(*) FILTER (WHERE what = 'leave:voluntary')::int AS voluntary,
         count(*) FILTER (WHERE what = 'leave:involuntary')::int AS involuntary,
         count(*) FILTER (WHERE what = 'leave:unknown')::int AS unknown
    FROM flows f GROUP BY f.month, f.department
), made AS (
INSERT INTO ${t('monthly_headcount')} (company_cnpj, department, month, first_day, last_day, days_covered, headcount_open, hires, rehires,
  transfers_in, transfers_out, leavers, headcount_close, average_headcount, voluntary_leavers, involuntary_leavers, unknown_leavers,
  is_complete_month, leavers_known, turnover_rate)
SELECT $1, c.department, c.month, m.first_day, m.last_day, m.n, c.open, c.hires, c.rehires, c.transfers_in, c.transfers_out, c.leavers,
       c.close, round(c.person_days::numeric / m.n, 2), c.voluntary, c.involuntary, c.unknown,
       complete.yes, l.yes,
       CASE WHEN complete.yes AND l.yes AND c.person_days > 0 THEN round(c.leavers::numeric * m.n / c.person_days, 4) END
  FROM counted c JOIN months m ON m.month = c.month CROSS JOIN listed l
 CROSS JOIN LATERAL (SELECT m.n = extract(day FROM m.month + interval '1 month' - interval '1 day')::int AND m.last_day < $4::date AS yes) complete
RETURNING 1
) SELECT count(*)::int AS n FROM made`,
      values: [company, first, last, today],
    },
  };
}

/** `monthly_headcount`, rewritten whole months of the scope after `workforce_events`. */
export const monthlyHeadcount: MartModule = {
  name: 'monthly_headcount',
  reads: ['employee_daily', 'employments', 'workforce_events'],
  writes: ['monthly_headcount'],
  refresh: (client, scope) => {
    const { first, last } = wholeMonths(scope.from, scope.to);
    return rewrite(client, buildHeadcountRefresh(scope.schema, scope.company, first, last, scope.today));
  },
};
