import { CATALOG, RESOURCES, ROLE_TABLES } from '../resources/index.js';
import { DETAIL_ROWS_PER_PART } from './checks.js';
import { checkName, hms, type CheckBuilder, type CheckStatement } from './statement.js';

/** Per check: the totals' column, the allowed seconds per worked day, the spec's name of the figure. */
const AGREEMENTS = {
  totals_vs_days: { column: 'worked_actual_time_seconds', perDay: 60, figure: 'worked_actual_time' },
  rule_vs_days: { column: 'worked_time_seconds', perDay: 600, figure: 'worked_time' },
} as const;

/** The days of the company's period that no completed window of the days' resource covers (none for a checkable period). */
function uncoveredDays(s: CheckStatement, p: string): string {
  const resource = s.text(RESOURCES.find((r) => CATALOG[r].roles?.day !== undefined)!);
  const covered = (table: string, extra: string) =>
    `EXISTS (SELECT 1 FROM ${s.table(table)} w WHERE w.company_cnpj = ${p}.company_cnpj AND w.resource = ${resource}${extra} AND g.day::date BETWEEN w.window_start AND w.window_end)`;
  return (
    `SELECT 1 FROM generate_series(${p}.period_start::timestamp, ${p}.period_end::timestamp, interval '1 day') AS g(day) ` +
    `WHERE NOT ${covered('window_loads', ` AND w.table_name = ${s.text(ROLE_TABLES.day)}`)} AND NOT ${covered('sync_windows', '')}`
  );
}

/**
 * The findings of the agreement checks in `checks` (pure builder), in one pass over the totals and the
 * days. The API states worked time as the period's totals (`collaborator/totalHours`, spec 2.7) and
 * day by day (`point/getFromPeriod`, spec 2.12 `worked_time`). Per record and totals period, the days
 * must sum to:
 * - `totals_vs_days`: the totals' `worked_actual_time` ("hours actually punched"), to the minute a day
 *   (a source that rounds each day to the minute);
 * - `rule_vs_days`: the totals' `worked_time` ("hours computed by the rule"), within the point rule's
 *   10 minutes a worked day (punch clock variations up to 10 minutes a day are neither discounted nor
 *   overtime, CLT art. 58 §1).
 * Only settled periods (ending before the lookback horizon: inside it the endpoints are read at different
 * times while the source changes) whose days all lie in completed punches windows are compared (the
 * coverage check names missing days).
 */
export const hoursAgreement: CheckBuilder = (s, checks) => {
  const wanted = (Object.keys(AGREEMENTS) as (keyof typeof AGREEMENTS)[]).filter((c) => checks.includes(c));
  if (wanted.length === 0) return '';
  const totals = s.table(ROLE_TABLES.totals);
  const days = s.table(ROLE_TABLES.day);
  const part = `c.period_start || '..' || c.period_end`;
  const kinds = wanted
    .map((c) => `(${checkName(c)}, '${AGREEMENTS[c].figure}', ${AGREEMENTS[c].perDay}::bigint)`)
    .join(', ');
  const stated = wanted.map((c) => `WHEN ${checkName(c)} THEN t.${AGREEMENTS[c].column}::bigint`).join(' ');
  return `
  WITH periods AS (
    SELECT DISTINCT h.company_cnpj, h.period_start, h.period_end FROM ${totals} h
     WHERE h.deleted_at IS NULL AND ${s.company('h.company_cnpj')} AND ${s.overlaps('h.period_start', 'h.period_end')}
  ), checked AS (
    SELECT p.* FROM periods p
     WHERE p.period_end < ${s.horizon('p.company_cnpj')} AND NOT EXISTS (${uncoveredDays(s, 'p')})
  ), stated AS (
    SELECT h.* FROM ${totals} h JOIN checked c USING (company_cnpj, period_start, period_end) WHERE h.deleted_at IS NULL
  ), summed AS (
    SELECT c.company_cnpj, c.period_start, c.period_end, d.cpf, d.collaborator_record,
           sum(d.worked_seconds)::bigint AS worked, count(*) FILTER (WHERE d.worked_seconds <> 0) AS worked_days
      FROM checked c JOIN ${days} d
        ON d.company_cnpj = c.company_cnpj AND d.work_date BETWEEN c.period_start AND c.period_end AND d.deleted_at IS NULL
     GROUP BY 1, 2, 3, 4, 5
  ), compared AS (
    SELECT k.check_name, k.figure, company_cnpj, period_start, period_end, cpf, collaborator_record, coalesce(d.worked, 0) AS expected,
           CASE k.check_name ${stated} END AS actual, k.per_day * coalesce(d.worked_days, 0) AS tolerance
      FROM stated t FULL JOIN summed d USING (company_cnpj, period_start, period_end, cpf, collaborator_record)
     CROSS JOIN (VALUES ${kinds}) AS k(check_name, figure, per_day)
  ), judged AS (
    SELECT c.*, CASE WHEN c.actual IS NOT NULL AND abs(c.actual - c.expected) <= c.tolerance THEN 'ok' ELSE 'fail' END AS status FROM compared c
  ), ranked AS (
    SELECT j.*, row_number() OVER (PARTITION BY check_name, company_cnpj, period_start, period_end ORDER BY abs(coalesce(actual, 0) - expected) DESC, cpf) AS n
      FROM judged j WHERE status <> 'ok'
  )
  SELECT c.check_name, c.company_cnpj, ${part}, 'record ' || coalesce(nullif(c.collaborator_record, ''), '(no admission date)'), c.cpf,
         'seconds', c.expected, c.actual, c.tolerance, c.status,
         CASE WHEN c.actual IS NULL THEN 'days without totals: the totals of the period do not list this record'
              ELSE c.figure || ' of the totals (spec 2.7) ' || ${hms('c.actual')} || ', sum of the days (spec 2.12) ' || ${hms('c.expected')} END
    FROM ranked c WHERE c.n <= ${s.detailLimit}
  UNION ALL
  SELECT c.check_name, c.company_cnpj, ${part}, 'all', NULL, 'seconds', sum(c.expected), sum(coalesce(c.actual, 0)), sum(c.tolerance),
         CASE WHEN bool_or(c.status = 'fail') THEN 'fail' ELSE 'ok' END,
         count(*) FILTER (WHERE c.status <> 'ok') || ' of ' || count(*) || ' collaborator records beyond tolerance' ||
           CASE WHEN count(*) FILTER (WHERE c.status <> 'ok') > ${DETAIL_ROWS_PER_PART} THEN ' (the first ${DETAIL_ROWS_PER_PART} are listed)' ELSE '' END
    FROM judged c GROUP BY c.check_name, c.company_cnpj, c.period_start, c.period_end`;
};
