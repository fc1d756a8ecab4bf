/**
 * Cross-endpoint agreement of worked time (pure builders): the API states a
 * collaborator's worked time twice, as the period's totals (`collaborator/totalHours`,
 * spec 2.7) and day by day (`point/getFromPeriod`, spec 2.12 `worked_time`). Per
 * collaborator record and totals period, the sum of the record's days must equal:
 *
 * - `totals_vs_days`: the totals' `worked_actual_time` ("hours actually punched"), to the
 *   minute a day (a source that rounds each day to the minute);
 * - `rule_vs_days`: the totals' `worked_time` ("hours computed by the rule"), within the
 *   point rule's tolerance of 10 minutes a worked day (variations of the punch clock up
 *   to 10 minutes a day are neither discounted nor overtime, CLT art. 58 §1).
 *
 * Only settled periods are compared (ending before the lookback horizon: inside it the
 * two endpoints are read at different times while the source still changes), and only
 * when every day of the period lies in a completed punches window (otherwise the days
 * are not all there; the coverage check says which are missing).
 */
import { DETAIL_ROWS_PER_PART } from './checks.js';
import { checkName, hms, type CheckBuilder, type CheckStatement } from './statement.js';

/** One comparison of the totals with the days. */
interface Agreement {
  readonly check: 'totals_vs_days' | 'rule_vs_days';
  /** Column of hour_totals compared. */
  readonly column: string;
  /** Allowed difference per day with worked time, in seconds. */
  readonly perDay: number;
  /** The spec's name of the figure, for details. */
  readonly figure: string;
}

/** The days of the company's period that no completed punches window covers (none for a checkable period). */
function uncoveredDays(s: CheckStatement, p: string): string {
  const covered = (table: string, extra: string) =>
    `EXISTS (SELECT 1 FROM ${s.table(table)} w WHERE w.company_cnpj = ${p}.company_cnpj AND w.resource = 'punches'${extra} AND g.day::date BETWEEN w.window_start AND w.window_end)`;
  return (
    `SELECT 1 FROM generate_series(${p}.period_start::timestamp, ${p}.period_end::timestamp, interval '1 day') AS g(day) ` +
    `WHERE NOT ${covered('window_loads', ` AND w.table_name = 'work_days'`)} AND NOT ${covered('sync_windows', '')}`
  );
}

function agreement({ check, column, perDay, figure }: Agreement): CheckBuilder {
  return (s) => {
    const totals = s.table('hour_totals');
    const days = s.table('work_days');
    const part = `c.period_start || '..' || c.period_end`;
    return `
  WITH periods AS (
    SELECT DISTINCT h.company_cnpj, h.period_start, h.period_end FROM ${totals} h
     WHERE h.deleted_at IS NULL AND ${s.company('h.company_cnpj')} AND ${s.overlaps('h.period_start', 'h.period_end')}
  ), checked AS (
    SELECT p.* FROM periods p
     WHERE p.period_end < ${s.horizon('p.company_cnpj')} AND NOT EXISTS (${uncoveredDays(s, 'p')})
  ), stated AS (
    SELECT h.company_cnpj, h.period_start, h.period_end, h.cpf, h.collaborator_record, h.${column}::bigint AS stated
      FROM ${totals} h JOIN checked c USING (company_cnpj, period_start, period_end)
     WHERE h.deleted_at IS NULL
  ), summed AS (
    SELECT c.company_cnpj, c.period_start, c.period_end, d.cpf, d.collaborator_record,
           sum(d.worked_seconds)::bigint AS worked, count(*) FILTER (WHERE d.worked_seconds <> 0) AS worked_days
      FROM checked c JOIN ${days} d
        ON d.company_cnpj = c.company_cnpj AND d.work_date BETWEEN c.period_start AND c.period_end AND d.deleted_at IS NULL
     GROUP BY 1, 2, 3, 4, 5
  ), judged AS (
    SELECT company_cnpj, period_start, period_end, cpf, collaborator_record, coalesce(d.worked, 0) AS expected, t.stated AS actual,
           ${s.param(perDay, 'int8')} * coalesce(d.worked_days, 0) AS tolerance,
           CASE WHEN t.stated IS NOT NULL AND abs(t.stated - coalesce(d.worked, 0)) <= ${s.param(perDay, 'int8')} * coalesce(d.worked_days, 0)
                THEN 'ok' ELSE 'fail' END AS status
      FROM stated t FULL JOIN summed d USING (company_cnpj, period_start, period_end, cpf, collaborator_record)
  ), ranked AS (
    SELECT j.*, row_number() OVER (PARTITION BY company_cnpj, period_start, period_end ORDER BY abs(coalesce(actual, 0) - expected) DESC, cpf) AS n
      FROM judged j WHERE status <> 'ok'
  )
  SELECT ${checkName(check)}, c.company_cnpj, ${part}, 'record ' || coalesce(nullif(c.collaborator_record, ''), '(no admission date)'), c.cpf,
         'seconds', c.expected, c.actual, c.tolerance, c.status,
         CASE WHEN c.actual IS NULL THEN 'days without totals: the totals of the period do not list this record'
              ELSE 'totals'' ${figure} (spec 2.7) is ' || ${hms('c.actual')} || ', the record''s days (spec 2.12) sum to ' || ${hms('c.expected')} END
    FROM ranked c WHERE c.n <= ${s.detailLimit}
  UNION ALL
  SELECT ${checkName(check)}, c.company_cnpj, ${part}, 'all', NULL, 'seconds', sum(c.expected), sum(coalesce(c.actual, 0)), sum(c.tolerance),
         CASE WHEN bool_or(c.status = 'fail') THEN 'fail' ELSE 'ok' END,
         count(*) FILTER (WHERE c.status <> 'ok') || ' of ' || count(*) || ' collaborator records beyond tolerance' ||
           CASE WHEN count(*) FILTER (WHERE c.status <> 'ok') > ${DETAIL_ROWS_PER_PART} THEN ' (the first ${DETAIL_ROWS_PER_PART} are listed)' ELSE '' END
    FROM judged c GROUP BY c.company_cnpj, c.period_start, c.period_end`;
  };
}

/** `totals_vs_days`: the totals' worked_actual_time against the sum of the days, to the minute a day. */
export const totalsVsDays = agreement({ check: 'totals_vs_days', column: 'worked_actual_time_seconds', perDay: 60, figure: 'worked_actual_time' });

/** `rule_vs_days`: the totals' worked_time against the sum of the days, within the point rule's 10 minutes a worked day. */
export const ruleVsDays = agreement({ check: 'rule_vs_days', column: 'worked_time_seconds', perDay: 600, figure: 'worked_time' });
