/**
 * A day against its punches (pure builder, `day_vs_punches`): the API lists a day's
 * punches inside the day object that states its worked time (spec 2.12), and worked
 * time is the time between an entry and the exit after it. Per collaborator record and
 * day, the sum of the complete pairs of its live punches (first to second, third to
 * fourth, …; an unpaired last punch counts nothing) must equal the day's `worked_time`,
 * to the minute. A difference is a warning, not a failure: a source may also count an
 * absence as worked time (spec 4.2 `sum_on_work_time`) or deduct a break nobody punched.
 * Parts are company months; days in progress (today) are left out.
 */
import { DETAIL_ROWS_PER_PART } from './checks.js';
import { checkName, hms, type CheckBuilder } from './statement.js';

/** Allowed difference per day, in seconds: a source that rounds a day to the minute. */
const DAY_TOLERANCE = 60;

/** The `day_vs_punches` findings (see the file comment). */
export const dayVsPunches: CheckBuilder = (s) => {
  const month = (column: string) => `to_char(${column}, 'YYYY-MM')`;
  const tolerance = s.param(DAY_TOLERANCE, 'int8');
  return `
  WITH days AS (
    SELECT d.company_cnpj, d.cpf, d.collaborator_record, d.work_date, d.worked_seconds::bigint AS worked
      FROM ${s.table('work_days')} d
     WHERE d.deleted_at IS NULL AND ${s.company('d.company_cnpj')} AND ${s.inMonths('d.work_date')} AND d.work_date < ${s.today('d.company_cnpj')}
  ), ordered AS (
    SELECT p.company_cnpj, p.cpf, p.collaborator_record, p.work_date, row_number() OVER w AS n,
           extract(epoch FROM lead(p.punched_at_local) OVER w - p.punched_at_local) AS span
      FROM ${s.table('punches')} p
     WHERE p.deleted_at IS NULL AND ${s.company('p.company_cnpj')} AND ${s.inMonths('p.work_date')}
    WINDOW w AS (PARTITION BY p.company_cnpj, p.cpf, p.collaborator_record, p.work_date ORDER BY p.punched_at_local, p.point_id)
  ), paired AS (
    SELECT company_cnpj, cpf, collaborator_record, work_date, count(*) AS punches,
           coalesce(sum(span) FILTER (WHERE n % 2 = 1), 0)::bigint AS paired
      FROM ordered GROUP BY 1, 2, 3, 4
  ), judged AS (
    SELECT d.company_cnpj, d.cpf, d.collaborator_record, d.work_date, coalesce(p.paired, 0) AS expected, d.worked AS actual,
           coalesce(p.punches, 0) AS punches,
           CASE WHEN abs(d.worked - coalesce(p.paired, 0)) <= ${tolerance} THEN 'ok' ELSE 'warn' END AS status
      FROM days d LEFT JOIN paired p USING (company_cnpj, cpf, collaborator_record, work_date)
  ), ranked AS (
    SELECT j.*, row_number() OVER (PARTITION BY company_cnpj, ${month('work_date')} ORDER BY work_date, cpf, collaborator_record) AS n
      FROM judged j WHERE status <> 'ok'
  )
  SELECT ${checkName('day_vs_punches')}, r.company_cnpj, ${month('r.work_date')},
         'day ' || r.work_date || ' record ' || coalesce(nullif(r.collaborator_record, ''), '(no admission date)'), r.cpf,
         'seconds', r.expected, r.actual, ${tolerance}, r.status,
         'the day''s worked_time is ' || ${hms('r.actual')} || '; its ' || r.punches || ' punch(es) pair up to ' || ${hms('r.expected')}
    FROM ranked r WHERE r.n <= ${s.detailLimit}
  UNION ALL
  SELECT ${checkName('day_vs_punches')}, j.company_cnpj, ${month('j.work_date')}, 'all', NULL, 'seconds', sum(j.expected), sum(j.actual),
         ${tolerance} * count(*), CASE WHEN bool_or(j.status <> 'ok') THEN 'warn' ELSE 'ok' END,
         count(*) FILTER (WHERE j.status <> 'ok') || ' of ' || count(*) || ' days differ from their punch pairs' ||
           CASE WHEN count(*) FILTER (WHERE j.status <> 'ok') > ${DETAIL_ROWS_PER_PART} THEN ' (the first ${DETAIL_ROWS_PER_PART} are listed)' ELSE '' END
    FROM judged j GROUP BY j.company_cnpj, ${month('j.work_date')}`;
};
