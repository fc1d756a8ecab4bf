-- 042_marts_rebuild: rebuilding the marts from the warehouse's own tables, without the API.
-- request_marts_rebuild() records, for every company that has synced data (or one company,
-- over some days), a pending change that names every input of the marts over the company's
-- whole coverage: the company's marts follow-up then rewrites them all. A later migration
-- that changes a mart's definition ends with
--   SELECT request_marts_rebuild(NULL, NULL, NULL);
-- and the next worker to start queues the follow-ups (punchline worker takes in whatever is
-- pending when it starts); `punchline marts rebuild` calls it and runs the rebuild itself.
-- See docs/warehouse.md "Marts".

CREATE FUNCTION request_marts_rebuild(company text, first_day date, last_day date) RETURNS integer
LANGUAGE sql AS $$
  WITH covered AS (
    SELECT w.company_cnpj, min(w.window_start) AS first_day, max(w.window_end) AS last_day
      FROM {{schema}}.window_loads w
     WHERE $1 IS NULL OR w.company_cnpj = $1
     GROUP BY w.company_cnpj
  ), via AS (
    SELECT DISTINCT ON (r.company_cnpj) r.company_cnpj, r.connection
      FROM {{schema}}.sync_runs r WHERE r.company_cnpj IS NOT NULL AND r.connection IS NOT NULL
     ORDER BY r.company_cnpj, r.id DESC
  ), requested AS (
    INSERT INTO {{schema}}.pending_changes (connection, company_cnpj, resource, first_day, last_day, changes)
    SELECT coalesce(v.connection, 'default'), c.company_cnpj, 'marts',
           greatest(c.first_day, coalesce($2, c.first_day)), least(c.last_day, coalesce($3, c.last_day)),
           ARRAY['directory', 'seen', 'coverage', 'lateness', 'overtime', 'leave', 'rebuild']
      FROM covered c LEFT JOIN via v USING (company_cnpj)
     WHERE greatest(c.first_day, coalesce($2, c.first_day)) <= least(c.last_day, coalesce($3, c.last_day))
    RETURNING 1
  )
  SELECT count(*)::integer FROM requested
$$;
COMMENT ON FUNCTION request_marts_rebuild(text, date, date) IS 'Asks for the marts of a company (null: every company with synced data) to be rebuilt from the warehouse''s own tables over first_day..last_day (null: its whole coverage): records a pending change naming every input of the marts; the company''s marts follow-up rewrites them. Returns the companies asked for. Called by punchline marts rebuild, and by a migration that changes a mart''s definition.';
