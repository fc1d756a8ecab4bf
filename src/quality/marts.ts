/**
 * `marts_vs_inputs` (pure builder): the analyst marts against the tables they are
 * derived from, per company month (docs/warehouse.md "Marts"). The sync keeps the marts
 * in the transaction of every window that changes an input, so any difference is the
 * warehouse's own: a mart written by hand, or an upkeep defect. Scopes of a part:
 * - `employee_daily worked`: the worked seconds of the days of employed records
 *   (`work_days` within each record's employment) against the day grain's;
 * - `employee_daily punches`: their live punches against the day grain's counts;
 * - `monthly_headcount days`: the day grain's rows against the headcount's average
 *   times the covered days, summed over departments;
 * - `absence_days`: the days the live full-day absences and members cover in the month
 *   against the expanded rows.
 */
import { ROLE_TABLES } from '../resources/index.js';
import { checkName, type CheckBuilder, type CheckStatement } from './statement.js';

/** The last whole day of a full-day absence `a`: an end at 00:00 ends the day before. */
export const ABSENCE_LAST_DAY = `(CASE WHEN a.ends_at_local::time = '00:00' AND a.ends_at_local > a.begins_at_local THEN a.ends_at_local::date - 1 ELSE a.ends_at_local::date END)`;

/** One scope: expected and actual per company month, from two SELECTs of (company_cnpj, month, n). */
function compare(
  s: CheckStatement,
  scope: string,
  measure: string,
  expected: string,
  actual: string,
): string {
  const diff = 'coalesce(a.n, 0) - coalesce(e.n, 0)';
  return `
  SELECT ${checkName('marts_vs_inputs')}, coalesce(e.company_cnpj, a.company_cnpj), to_char(coalesce(e.month, a.month), 'YYYY-MM'), ${s.text(scope)}, NULL::text,
         ${s.text(measure)}, coalesce(e.n, 0)::bigint, coalesce(a.n, 0)::bigint, 0::bigint,
         CASE WHEN ${diff} = 0 THEN 'ok' ELSE 'fail' END,
         CASE WHEN ${diff} <> 0 THEN ${s.text(scope)} || ' differs from its inputs by ' || ${diff} || ' ' || ${s.text(measure)} || ': run the window''s sync again (punchline backfill --force)' END
    FROM (${expected}) e FULL JOIN (${actual}) a ON a.company_cnpj = e.company_cnpj AND a.month = e.month`;
}

/** The `marts_vs_inputs` findings. */
export const martsVsInputs: CheckBuilder = (s) => {
  const within = (alias: string, date: string) =>
    `${s.company(`${alias}.company_cnpj`)} AND ${s.inMonths(`${alias}.${date}`)}`;
  const employed = (alias: string, date: string) =>
    `JOIN ${s.table('employments')} e ON e.company_cnpj = ${alias}.company_cnpj AND e.cpf = ${alias}.cpf AND e.collaborator_record = ${alias}.collaborator_record
          AND ${alias}.${date} >= e.employed_from AND (e.left_on IS NULL OR ${alias}.${date} <= e.left_on)`;
  const daily = (n: string) =>
    `SELECT d.company_cnpj, ${s.month('d.work_date')} AS month, ${n} AS n FROM ${s.table('employee_daily')} d WHERE ${within('d', 'work_date')} GROUP BY 1, 2`;
  return [
    compare(
      s,
      'employee_daily worked',
      'seconds',
      `SELECT w.company_cnpj, ${s.month('w.work_date')} AS month, sum(w.worked_seconds) AS n FROM ${s.table(ROLE_TABLES.day)} w ${employed('w', 'work_date')}
        WHERE w.deleted_at IS NULL AND ${within('w', 'work_date')} AND w.work_date <= ${s.today('w.company_cnpj')} GROUP BY 1, 2`,
      daily('sum(d.worked_seconds)'),
    ),
    compare(
      s,
      'employee_daily punches',
      'rows',
      `SELECT p.company_cnpj, ${s.month('p.work_date')} AS month, count(*) AS n FROM ${s.table(ROLE_TABLES.punch)} p ${employed('p', 'work_date')}
        WHERE p.deleted_at IS NULL AND ${within('p', 'work_date')} AND p.work_date <= ${s.today('p.company_cnpj')}
          AND EXISTS (SELECT 1 FROM ${s.table('employee_daily')} x WHERE x.company_cnpj = p.company_cnpj AND x.work_date = p.work_date)
        GROUP BY 1, 2`,
      daily('sum(d.punch_count)'),
    ),
    compare(
      s,
      'monthly_headcount days',
      'days',
      daily('count(*)'),
      `SELECT h.company_cnpj, h.month, sum(round(h.average_headcount * h.days_covered)) AS n FROM ${s.table('monthly_headcount')} h
        WHERE ${within('h', 'month')} GROUP BY 1, 2`,
    ),
    compare(
      s,
      'absence_days',
      'days',
      `SELECT a.company_cnpj, ${s.month('g.day')} AS month, count(*) AS n
         FROM ${s.table(ROLE_TABLES.absence)} a
         JOIN ${s.table(ROLE_TABLES.absenceMember)} m ON m.absence_id = a.absence_id AND m.deleted_at IS NULL
        CROSS JOIN LATERAL generate_series(a.begins_at_local::date, ${ABSENCE_LAST_DAY}, interval '1 day') g0
        CROSS JOIN LATERAL (SELECT g0::date AS day) g
        WHERE a.deleted_at IS NULL AND a.full_day AND ${s.company('a.company_cnpj')} AND ${s.inMonths('g.day')} GROUP BY 1, 2`,
      `SELECT d.company_cnpj, ${s.month('d.absence_date')} AS month, count(*) AS n FROM ${s.table('absence_days')} d
        WHERE ${within('d', 'absence_date')} GROUP BY 1, 2`,
    ),
  ].join('\n  UNION ALL');
};
