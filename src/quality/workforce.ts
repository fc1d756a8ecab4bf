/**
 * The workforce marts against their own definitions (pure builders; docs/warehouse.md
 * "Workforce measures"). The bridge's movements come from workforce_events and its
 * opening and closing headcounts from the day grain, each on its own, so a row that
 * does not close is a defect of the warehouse (a mart changed by hand, a day missing
 * from the grain, an upkeep defect), never of the source.
 * - `headcount_bridge`: every monthly_headcount row satisfies
 *   open + hires + rehires + transfers_in − transfers_out − leavers = close; one part
 *   per company month, a row for the month and one per department that does not close.
 * - `absence_days_vs_api`: each live full-day absence's days in absence_days (per member)
 *   against the API's own `days` (spec 2.5); one part per company month of the absence's
 *   start, a row for the month and one per absence that differs, named by its id.
 */
import { ROLE_TABLES } from '../resources/index.js';
import { checkName, type CheckBuilder } from './statement.js';

/** The `headcount_bridge` findings. */
export const headcountBridge: CheckBuilder = (s) => {
  const flow = 'h.headcount_open + h.hires + h.rehires + h.transfers_in - h.transfers_out - h.leavers';
  const rows = `SELECT h.company_cnpj, to_char(h.month, 'YYYY-MM') AS part, h.department, (${flow})::bigint AS expected,
         h.headcount_close::bigint AS actual
    FROM ${s.table('monthly_headcount')} h WHERE ${s.company('h.company_cnpj')} AND ${s.inMonths('h.month')}`;
  const open = 'count(*) FILTER (WHERE expected <> actual)';
  return `
  SELECT ${checkName('headcount_bridge')}, company_cnpj, part, 'all', NULL::text, 'rows', count(*)::bigint, (count(*) - ${open})::bigint, 0::bigint,
         CASE WHEN ${open} > 0 THEN 'fail' ELSE 'ok' END,
         CASE WHEN ${open} > 0 THEN ${open} || ' department(s) whose opening headcount plus hires, rehires and transfers in, less transfers out and leavers, is not the closing headcount: run the month''s sync again (punchline backfill --force)' END
    FROM (${rows}) r GROUP BY company_cnpj, part
  UNION ALL
  SELECT ${checkName('headcount_bridge')}, company_cnpj, part, 'department ' || coalesce(nullif(department, ''), '(none)'), NULL::text, 'rows',
         expected, actual, 0::bigint, 'fail',
         'opening + movements = ' || expected || ', closing headcount ' || actual
    FROM (SELECT r.*, row_number() OVER (PARTITION BY company_cnpj, part ORDER BY department) AS n FROM (${rows}) r WHERE expected <> actual) d
   WHERE n <= ${s.detailLimit}`;
};

/** The `absence_days_vs_api` findings. */
export const absenceDaysAgainstApi: CheckBuilder = (s) => {
  const rows = `SELECT a.company_cnpj, to_char(a.begins_at_local, 'YYYY-MM') AS part, a.absence_id, m.cpf, a.days::bigint AS expected,
         (SELECT count(*) FROM ${s.table('absence_days')} d WHERE d.absence_id = a.absence_id AND d.company_cnpj = m.company_cnpj
             AND d.cpf = m.cpf AND d.collaborator_record = m.collaborator_record)::bigint AS actual
    FROM ${s.table(ROLE_TABLES.absence)} a
    JOIN ${s.table(ROLE_TABLES.absenceMember)} m ON m.absence_id = a.absence_id AND m.deleted_at IS NULL
   WHERE a.deleted_at IS NULL AND a.full_day AND ${s.company('a.company_cnpj')} AND ${s.inMonths('a.begins_at_local::date')}`;
  const off = 'count(*) FILTER (WHERE expected <> actual)';
  return `
  SELECT ${checkName('absence_days_vs_api')}, company_cnpj, part, 'all', NULL::text, 'rows', count(*)::bigint, (count(*) - ${off})::bigint, 0::bigint,
         CASE WHEN ${off} > 0 THEN 'warn' ELSE 'ok' END,
         CASE WHEN ${off} > 0 THEN ${off} || ' full-day absence(s) whose days differ from the API''s days (spec 2.5): see the rows of each absence' END
    FROM (${rows}) r GROUP BY company_cnpj, part
  UNION ALL
  SELECT ${checkName('absence_days_vs_api')}, company_cnpj, part, 'absence ' || absence_id, cpf, 'days', expected, actual, 0::bigint, 'warn',
         'absence ' || absence_id || ': ' || actual || ' day(s) expanded, the API says ' || expected
    FROM (SELECT r.*, row_number() OVER (PARTITION BY company_cnpj, part ORDER BY absence_id, cpf) AS n FROM (${rows}) r WHERE expected <> actual) d
   WHERE n <= ${s.detailLimit}`;
};
