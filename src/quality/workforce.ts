/**
 * The workforce marts against their own definitions (pure builders; docs/warehouse.md
 * "Workforce measures"). The bridge's movements come from workforce_events and its
 * opening and closing headcounts from the day grain, each on its own, so a row that
 * does not close is a defect of the warehouse (a mart changed by hand, a day missing
 * from the grain, an upkeep defect), never of the source.
 * - `headcount_bridge`: every monthly_headcount row satisfies
 *   open + hires + rehires + transfers_in − transfers_out − leavers = close; one part
 *   per company month, a row for the month and one per department that does not close.
 */
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
  SELECT ${checkName('headcount_bridge')}, company_cnpj, part, 'department ' || coalesce(nullif(department, ''), '(none)'), NULL::text, 'people',
         expected, actual, 0::bigint, 'fail',
         'opening + movements = ' || expected || ', closing headcount ' || actual
    FROM (SELECT r.*, row_number() OVER (PARTITION BY company_cnpj, part ORDER BY department) AS n FROM (${rows}) r WHERE expected <> actual) d
   WHERE n <= ${s.detailLimit}`;
};
