-- 001_reader_role: the read-only role for BI tools.
-- Creates the cluster-wide role workforce_reader (NOLOGIN) if it is missing, and grants
-- it USAGE on the warehouse schema plus SELECT on every table and view created in it from
-- now on, so a BI login is given read access in one statement:
--   GRANT workforce_reader TO my_bi_login;
-- The migrator runs every file with search_path set to the warehouse schema and replaces
-- {{schema}} with its quoted name.

DO $$
BEGIN
  CREATE ROLE workforce_reader NOLOGIN;
  COMMENT ON ROLE workforce_reader IS
    'Read-only access to the punchline warehouse: GRANT workforce_reader TO <bi_login>.';
EXCEPTION
  -- Roles are shared by every database and schema of the cluster: another migration
  -- (another schema, another database) may have created it first, or be creating it now.
  WHEN duplicate_object OR unique_violation THEN NULL;
END
$$;

GRANT USAGE ON SCHEMA {{schema}} TO workforce_reader;
GRANT SELECT ON ALL TABLES IN SCHEMA {{schema}} TO workforce_reader;
ALTER DEFAULT PRIVILEGES IN SCHEMA {{schema}} GRANT SELECT ON TABLES TO workforce_reader;
