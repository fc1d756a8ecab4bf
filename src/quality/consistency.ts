/**
 * Internal consistency of the warehouse (pure builders): facts a load writes together
 * must still be together. None of these can come from the API itself — a punch arrives
 * inside its day, a collaborator block with every record — so any finding is the
 * warehouse's: a row changed by hand, or a sync defect.
 *
 * - `punch_without_day`: a live punch whose work day (company, CPF, record, date) is not
 *   live; parts are company months.
 * - `unknown_collaborator`: a fact row whose company and CPF `collaborators` does not
 *   hold; parts are company months, one row per table.
 * - `history_overlap`: collaborator_history versions of one collaborator that overlap
 *   (a version, open or closed, that does not end before the next one begins); one part
 *   per company.
 */
import { CATALOG, RESOURCES } from '../resources/index.js';
import { DETAIL_ROWS_PER_PART } from './checks.js';
import { checkName, type CheckBuilder, type CheckStatement } from './statement.js';

/** Fact tables about collaborators, with the date that places a row in a month and whether rows are soft-deleted. */
const FACT_TABLES: readonly { readonly table: string; readonly date: string }[] = [
  { table: 'punches', date: 'work_date' },
  { table: 'work_days', date: 'work_date' },
  { table: 'hour_totals', date: 'period_start' },
  { table: 'hour_bank_balances', date: 'balance_date' },
  { table: 'tardiness', date: 'work_date' },
  { table: 'adjustment_requests', date: 'request_date' },
  { table: 'inconsistencies', date: 'occurrence_date' },
];

/** The resource whose declaration writes `table`. */
function resourceOf(table: string): string {
  return RESOURCES.find((r) => table in CATALOG[r].tables) ?? table;
}

/** Whether `table` has soft-deleted rows, by its declaration. */
function softDeleted(table: string): boolean {
  return CATALOG[resourceOf(table) as keyof typeof CATALOG]?.tables[table]?.softDelete === true;
}

const month = (column: string) => `to_char(${column}, 'YYYY-MM')`;

/** The finding columns of a count of the rows of alias `row` (grouped by company and part) breaking a rule; none expected. */
function countFinding(check: 'punch_without_day' | 'unknown_collaborator', row: string, scope: string, broken: string, detail: string): string {
  return `${checkName(check)}, ${row}.company_cnpj, ${row}.part, ${scope}, NULL::text, 'findings', 0::bigint, count(*) FILTER (WHERE ${broken}), 0::bigint,
         CASE WHEN bool_or(${broken}) THEN 'fail' ELSE 'ok' END,
         CASE WHEN bool_or(${broken}) THEN ${detail} END`;
}

/** The `punch_without_day` findings. */
export const punchWithoutDay: CheckBuilder = (s) => `
  SELECT ${countFinding('punch_without_day', 'p', `'punches'`, 'd.cpf IS NULL', `count(*) FILTER (WHERE d.cpf IS NULL) || ' live punch(es) without a live work day, e.g. point ' || min(p.point_id) FILTER (WHERE d.cpf IS NULL)`)}
    FROM (SELECT p.*, ${month('p.work_date')} AS part FROM ${s.table('punches')} p
           WHERE p.deleted_at IS NULL AND ${s.company('p.company_cnpj')} AND ${s.inMonths('p.work_date')}) p
    LEFT JOIN ${s.table('work_days')} d
      ON d.company_cnpj = p.company_cnpj AND d.work_date = p.work_date AND d.cpf = p.cpf
     AND d.collaborator_record = p.collaborator_record AND d.deleted_at IS NULL
   GROUP BY p.company_cnpj, p.part`;

function unknownIn(s: CheckStatement, table: string, date: string): string {
  const live = softDeleted(table) ? 'f.deleted_at IS NULL AND ' : '';
  return `
  SELECT ${countFinding('unknown_collaborator', 'f', s.text(table), 'c.cpf IS NULL', `count(*) FILTER (WHERE c.cpf IS NULL) || ' row(s) of ' || ${s.text(table)} || ' about a collaborator the collaborators table does not hold'`)}
    FROM (SELECT f.company_cnpj, f.cpf, ${month(`f.${date}`)} AS part FROM ${s.table(table)} f
           WHERE ${live}${s.company('f.company_cnpj')} AND ${s.inMonths(`f.${date}`)}) f
    LEFT JOIN ${s.table('collaborators')} c ON c.company_cnpj = f.company_cnpj AND c.cpf = f.cpf
   GROUP BY f.company_cnpj, f.part`;
}

/** The `unknown_collaborator` findings of the fact tables of the scope's resources. */
export const unknownCollaborator: CheckBuilder = (s) =>
  FACT_TABLES.filter((t) => s.includesResource(resourceOf(t.table)))
    .map((t) => unknownIn(s, t.table, t.date))
    .join('\n  UNION ALL');

/** The `history_overlap` findings. */
export const historyOverlap: CheckBuilder = (s) => `
  WITH versions AS (
    SELECT h.company_cnpj, h.cpf, h.valid_from, h.valid_to,
           lead(h.valid_from) OVER (PARTITION BY h.company_cnpj, h.cpf ORDER BY h.valid_from) AS next_from
      FROM ${s.table('collaborator_history')} h WHERE ${s.company('h.company_cnpj')}
  ), people AS (
    SELECT company_cnpj, cpf, count(*) FILTER (WHERE next_from IS NOT NULL AND coalesce(valid_to, 'infinity') > next_from) AS overlapping,
           count(*) FILTER (WHERE valid_to IS NULL) AS open
      FROM versions GROUP BY company_cnpj, cpf
  ), ranked AS (
    SELECT p.*, row_number() OVER (PARTITION BY company_cnpj ORDER BY cpf) AS n FROM people p WHERE overlapping > 0
  )
  SELECT ${checkName('history_overlap')}, company_cnpj, 'history', 'versions', cpf, 'findings', 0::bigint, overlapping, 0::bigint, 'fail',
         overlapping || ' version(s) overlapping the next one (' || open || ' open)'
    FROM ranked WHERE n <= ${s.detailLimit}
  UNION ALL
  SELECT ${checkName('history_overlap')}, company_cnpj, 'history', 'all', NULL, 'findings', 0::bigint, count(*) FILTER (WHERE overlapping > 0), 0::bigint,
         CASE WHEN bool_or(overlapping > 0) THEN 'fail' ELSE 'ok' END,
         CASE WHEN bool_or(overlapping > 0) THEN count(*) FILTER (WHERE overlapping > 0) || ' of ' || count(*) || ' collaborators have overlapping versions' ||
           CASE WHEN count(*) FILTER (WHERE overlapping > 0) > ${DETAIL_ROWS_PER_PART} THEN ' (the first ${DETAIL_ROWS_PER_PART} are listed)' ELSE '' END END
    FROM people GROUP BY company_cnpj`;
