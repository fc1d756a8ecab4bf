/**
 * Internal consistency of the warehouse (pure builders): facts a load writes together must still be
 * together. None can come from the API itself (a punch arrives inside its day, a collaborator block
 * with every record), so any finding is the warehouse's: a row changed by hand, or a sync defect.
 * - `unknown_collaborator`: a fact row whose company, CPF and record the directory of people does
 *   not hold; parts are company months, one row per table.
 * - `history_overlap`: collaborator_history versions of one record that overlap (a version, open or
 *   closed, that does not end before the next one begins); one part per company.
 */
import { CATALOG, DIRECTORY, RESOURCES, type Resource } from '../resources/index.js';
import type { TableSpec } from '../warehouse/table-spec.js';
import { DETAIL_ROWS_PER_PART } from './checks.js';
import { checkName, type CheckBuilder, type CheckStatement } from './statement.js';

/** The declared tables of facts about collaborator records: those with a CPF, a record and a date column (the first places a row in a month), the directory aside. */
const FACT_TABLES: readonly { resource: Resource; spec: TableSpec; date: string }[] = RESOURCES.flatMap(
  (resource) =>
    Object.values(CATALOG[resource].tables).flatMap((spec) => {
      const date = Object.keys(spec.columns).find((c) => spec.columns[c] === 'date');
      const about =
        'cpf' in spec.columns && 'collaborator_record' in spec.columns && spec.table !== DIRECTORY.seen.table;
      return about && date !== undefined ? [{ resource, spec, date }] : [];
    }),
);

/** The `unknown_collaborator` findings of one table: its rows per company month, those without a collaborator counted. */
function unknownIn(s: CheckStatement, { spec, date }: (typeof FACT_TABLES)[number]): string {
  const live = spec.softDelete === true ? 'f.deleted_at IS NULL AND ' : '';
  const unknown = 'count(*) FILTER (WHERE c.cpf IS NULL)';
  const table = s.text(spec.table);
  return `
  SELECT ${checkName('unknown_collaborator')}, f.company_cnpj, to_char(f.month, 'YYYY-MM'), ${table}, NULL::text, 'findings', 0::bigint, ${unknown}, 0::bigint,
         CASE WHEN ${unknown} > 0 THEN 'fail' ELSE 'ok' END,
         CASE WHEN ${unknown} > 0 THEN ${unknown} || ' row(s) of ' || ${table} || ' about a collaborator the ' || ${s.text(DIRECTORY.seen.table)} || ' table does not hold' END
    FROM (SELECT f.company_cnpj, f.cpf, f.collaborator_record, ${s.month(`f.${date}`)} AS month FROM ${s.table(spec.table)} f
           WHERE ${live}${s.company('f.company_cnpj')} AND ${s.inMonths(`f.${date}`)}) f
    LEFT JOIN ${s.table(DIRECTORY.seen.table)} c ON c.company_cnpj = f.company_cnpj AND c.cpf = f.cpf AND c.collaborator_record = f.collaborator_record
   GROUP BY f.company_cnpj, f.month`;
}

/** The `unknown_collaborator` findings of the fact tables of the scope's resources. */
export const unknownCollaborator: CheckBuilder = (s) =>
  FACT_TABLES.filter((t) => s.includesResource(t.resource))
    .map((t) => unknownIn(s, t))
    .join('\n  UNION ALL');

/** The `history_overlap` findings. */
export const historyOverlap: CheckBuilder = (s) => `
  WITH versions AS (
    SELECT h.company_cnpj, h.cpf, h.collaborator_record, h.valid_from, h.valid_to,
           lead(h.valid_from) OVER (PARTITION BY h.company_cnpj, h.cpf, h.collaborator_record ORDER BY h.valid_from) AS next_from
      FROM ${s.table('collaborator_history')} h WHERE ${s.company('h.company_cnpj')}
  ), people AS (
    SELECT company_cnpj, cpf, collaborator_record, count(*) FILTER (WHERE next_from IS NOT NULL AND coalesce(valid_to, 'infinity') > next_from) AS overlapping,
           count(*) FILTER (WHERE valid_to IS NULL) AS open
      FROM versions GROUP BY company_cnpj, cpf, collaborator_record
  ), ranked AS (
    SELECT p.*, row_number() OVER (PARTITION BY company_cnpj ORDER BY cpf, collaborator_record) AS n FROM people p WHERE overlapping > 0
  )
  SELECT ${checkName('history_overlap')}, company_cnpj, 'history', 'versions of record ' || coalesce(nullif(collaborator_record, ''), '(no admission date)'), cpf, 'findings', 0::bigint, overlapping, 0::bigint, 'fail',
         overlapping || ' version(s) overlapping the next one (' || open || ' open)'
    FROM ranked WHERE n <= ${s.detailLimit}
  UNION ALL
  SELECT ${checkName('history_overlap')}, company_cnpj, 'history', 'all', NULL, 'findings', 0::bigint, count(*) FILTER (WHERE overlapping > 0), 0::bigint,
         CASE WHEN bool_or(overlapping > 0) THEN 'fail' ELSE 'ok' END,
         CASE WHEN bool_or(overlapping > 0) THEN count(*) FILTER (WHERE overlapping > 0) || ' of ' || count(*) || ' collaborator records have overlapping versions' ||
           CASE WHEN count(*) FILTER (WHERE overlapping > 0) > ${DETAIL_ROWS_PER_PART} THEN ' (the first ${DETAIL_ROWS_PER_PART} are listed)' ELSE '' END END
    FROM people GROUP BY company_cnpj`;
