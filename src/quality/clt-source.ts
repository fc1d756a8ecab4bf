/**
 * `clt_vs_source` (pure builder): the labour-law mart against the source's own inconsistencies
 * (spec 2.10), per company month, for the three kinds both speak of — short rests (CLT art. 66),
 * short breaks (art. 71) and overtime above 2 hours (art. 59). The source's occurrences are matched
 * by their `type` text. Both judge the same punches by rules that differ at the edges, so a
 * difference is information, not a failure (`warn`, with its reason in `detail`):
 * - a day the source lists as a short break whose break the warehouse finds not punched: a
 *   pre-recorded break (art. 74 §2) is no violation;
 * - a day the source lists above the 2-hour limit by at most 5 minutes: the warehouse holds it within
 *   the tolerance of a mark's variation (art. 58 §1);
 * - any other day one lists and the other does not, counted apart.
 * Only months for which an inconsistencies window was loaded are compared.
 */
import { MART_INPUTS } from '../marts/inputs.js';
import { checkName, type CheckBuilder } from './statement.js';

/** The kinds compared: the `clt_daily` flag and the pattern (case-insensitive) of the source's `type` text. */
export const CLT_SOURCE_KINDS = [
  { kind: 'short_rest', flag: 'short_rest', type: 'inter.?jorn|inter.?journ' },
  { kind: 'short_break', flag: 'short_break', type: 'intra.?jorn|intra.?journ' },
  { kind: 'overtime_over_2h', flag: 'overtime_over_2h', type: '(extra|overtime).*limit' },
] as const;

/** The `clt_vs_source` findings. */
export const cltVsSource: CheckBuilder = (s) => {
  const kinds = (make: (k: (typeof CLT_SOURCE_KINDS)[number]) => string) =>
    CLT_SOURCE_KINDS.map(make).join(', ');
  const windows = (table: string) =>
    `SELECT company_cnpj, window_start FROM ${s.table(table)} WHERE resource = '${MART_INPUTS.inconsistency}' AND ${s.company('company_cnpj')} AND ${s.inMonths('window_start')}`;
  const month = (column: string) => s.month(column);
  return `
  WITH months AS (
    SELECT DISTINCT company_cnpj, ${month('window_start')} AS month FROM (${windows('window_loads')} UNION ${windows('sync_windows')}) w
  ), source AS (
    SELECT DISTINCT i.company_cnpj, i.cpf, i.collaborator_record, i.occurrence_date AS day, k.kind
      FROM ${s.table(MART_INPUTS.inconsistency)} i
      JOIN months m ON m.company_cnpj = i.company_cnpj AND ${month('i.occurrence_date')} = m.month
     CROSS JOIN LATERAL (VALUES ${kinds((k) => `('${k.kind}', i.inconsistency_type ~* '${k.type}')`)}) AS k (kind, hit)
     WHERE k.hit
  ), mart AS (
    SELECT d.company_cnpj, d.cpf, d.collaborator_record, d.work_date AS day, k.kind
      FROM ${s.table('clt_daily')} d
      JOIN months m ON m.company_cnpj = d.company_cnpj AND ${month('d.work_date')} = m.month
     CROSS JOIN LATERAL (VALUES ${kinds((k) => `('${k.kind}', d.${k.flag})`)}) AS k (kind, hit)
     WHERE k.hit
  ), days AS (
    SELECT coalesce(x.company_cnpj, w.company_cnpj) AS company_cnpj, coalesce(x.kind, w.kind) AS kind,
           ${month('coalesce(x.day, w.day)')} AS month, x.day IS NOT NULL AS listed, w.day IS NOT NULL AS found,
           CASE WHEN w.day IS NOT NULL AND x.day IS NULL THEN 'warehouse_only'
                WHEN w.day IS NOT NULL THEN NULL
                WHEN x.kind = 'short_break' AND d.break_not_punched THEN 'pre_recorded_break'
                WHEN x.kind = 'overtime_over_2h' AND d.overtime_seconds > 7200 AND d.overtime_seconds <= 7500 THEN 'tolerance'
                ELSE 'source_only' END AS reason
      FROM source x
      FULL JOIN mart w ON w.company_cnpj = x.company_cnpj AND w.cpf = x.cpf AND w.collaborator_record = x.collaborator_record
                      AND w.day = x.day AND w.kind = x.kind
      LEFT JOIN ${s.table('clt_daily')} d ON x.day IS NOT NULL AND w.day IS NULL AND d.company_cnpj = x.company_cnpj
                      AND d.work_date = x.day AND d.cpf = x.cpf AND d.collaborator_record = x.collaborator_record
  ), counted AS (
    SELECT m.company_cnpj, m.month, k.kind,
           count(d.kind) FILTER (WHERE d.listed) AS listed, count(d.kind) FILTER (WHERE d.found) AS found,
           count(d.kind) FILTER (WHERE d.reason = 'pre_recorded_break') AS pre_recorded,
           count(d.kind) FILTER (WHERE d.reason = 'tolerance') AS tolerance,
           count(d.kind) FILTER (WHERE d.reason = 'source_only') AS source_only,
           count(d.kind) FILTER (WHERE d.reason = 'warehouse_only') AS warehouse_only
      FROM months m
     CROSS JOIN (VALUES ${kinds((k) => `('${k.kind}')`)}) AS k (kind)
      LEFT JOIN days d ON d.company_cnpj = m.company_cnpj AND d.month = m.month AND d.kind = k.kind
     GROUP BY m.company_cnpj, m.month, k.kind
  )
  SELECT ${checkName('clt_vs_source')}, company_cnpj, to_char(month, 'YYYY-MM'), kind, NULL::text, 'days', listed, found, 0::bigint,
         CASE WHEN pre_recorded + tolerance + source_only + warehouse_only = 0 THEN 'ok' ELSE 'warn' END,
         CASE WHEN pre_recorded + tolerance + source_only + warehouse_only > 0 THEN concat_ws('; ',
           'the source lists ' || listed || ' days, clt_daily finds ' || found,
           CASE WHEN pre_recorded > 0 THEN pre_recorded || ' listed as a short break but without a punched break: a pre-recorded break (CLT art. 74 §2) is no violation' END,
           CASE WHEN tolerance > 0 THEN tolerance || ' listed above 2 h by at most 5 minutes: within the tolerance of a mark (CLT art. 58 §1)' END,
           CASE WHEN source_only > 0 THEN source_only || ' listed by the source only: compare the day''s punches in clt_daily' END,
           CASE WHEN warehouse_only > 0 THEN warehouse_only || ' found by clt_daily only: the source did not list them' END) END
    FROM counted`;
};
