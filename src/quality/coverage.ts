import { checkName, type CheckBuilder } from './statement.js';

/**
 * The `coverage` findings (pure builder): every day of the synced range of each company × resource lies
 * inside a completed window, one whose load completed (`window_loads`) or recorded as done
 * (`sync_windows`, which also holds windows loaded before loads were recorded). The range is the
 * scope's `from`..`to` when given, else the first window's first day to the last one's last; never past
 * the company's today in its own time zone (a day not begun there cannot have been synced). One part
 * per company and resource: an `all` row (days in the range against days covered) and a row per gap of
 * consecutive days no window covers.
 */
export const coverage: CheckBuilder = (s) => {
  const windows = (table: string) =>
    `SELECT company_cnpj, resource, window_start, window_end FROM ${s.table(table)} WHERE ${s.company('company_cnpj')} AND ${s.resources('resource')}`;
  return `
  WITH windows AS (
    ${windows('window_loads')}
    UNION
    ${windows('sync_windows')}
  ), ranges AS (
    SELECT company_cnpj, resource, coalesce(${s.from ?? 'NULL::date'}, min(window_start)) AS first_day,
           least(coalesce(${s.to ?? 'NULL::date'}, max(window_end)), ${s.today('company_cnpj')}) AS last_day
      FROM windows GROUP BY company_cnpj, resource
  ), days AS (
    SELECT r.company_cnpj, r.resource, r.first_day, r.last_day, g.day::date AS day,
           EXISTS (SELECT 1 FROM windows w WHERE w.company_cnpj = r.company_cnpj AND w.resource = r.resource
                      AND g.day::date BETWEEN w.window_start AND w.window_end) AS covered
      FROM ranges r CROSS JOIN LATERAL generate_series(r.first_day::timestamp, r.last_day::timestamp, interval '1 day') AS g(day)
  ), gaps AS (
    SELECT company_cnpj, resource, min(day) AS gap_from, max(day) AS gap_to, count(*) AS days,
           row_number() OVER (PARTITION BY company_cnpj, resource ORDER BY min(day)) AS n
      FROM (SELECT d.*, d.day - (row_number() OVER (PARTITION BY company_cnpj, resource ORDER BY day))::int AS island
              FROM days d WHERE NOT covered) x
     GROUP BY company_cnpj, resource, island
  )
  SELECT ${checkName('coverage')}, company_cnpj, resource, 'gap ' || gap_from || '..' || gap_to, NULL::text, 'days', days, 0::bigint, 0::bigint, 'fail',
         'no completed window covers ' || CASE WHEN days = 1 THEN 'this day' ELSE 'these ' || days || ' days' END ||
         ': sync them (punchline backfill --resources ' || resource || ' --company ' || company_cnpj || ' --from ' || gap_from || ' --to ' || gap_to || ')'
    FROM gaps WHERE n <= ${s.detailLimit}
  UNION ALL
  SELECT ${checkName('coverage')}, company_cnpj, resource, 'all', NULL, 'days', count(*), count(*) FILTER (WHERE covered), 0::bigint,
         CASE WHEN bool_and(covered) THEN 'ok' ELSE 'fail' END,
         'days ' || min(first_day) || '..' || min(last_day) || ': ' || count(*) FILTER (WHERE NOT covered) || ' not in a completed window'
    FROM days GROUP BY company_cnpj, resource`;
};
