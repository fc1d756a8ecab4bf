-- 040_marts_off_the_load: the marts are kept current after the loads, not inside them.
-- A load's transaction writes its own tables and one row of pending_changes (what it
-- changed: the company, the days, which inputs of the marts); a follow-up job per company
-- claims every pending row of the company, rewrites the marts once for their union and runs
-- the reconciliation checks of the loads, then records its refresh in mart_refreshes.
-- sync_freshness gains how long the oldest change of each company has waited for its marts.
-- See docs/warehouse.md "Marts".

CREATE TABLE pending_changes (
  id           bigserial PRIMARY KEY,
  connection   text NOT NULL,
  company_cnpj text NOT NULL CHECK (company_cnpj ~ '^[0-9]{14}$'),
  resource     text NOT NULL,
  first_day    date,
  last_day     date,
  changes      text[] NOT NULL DEFAULT '{}',
  run_id       bigint,
  recorded_at  timestamptz NOT NULL DEFAULT now(),
  CHECK (first_day IS NULL OR first_day <= last_day)
);
CREATE INDEX pending_changes_company_idx ON pending_changes (company_cnpj, id);
COMMENT ON TABLE pending_changes IS 'What the loads changed that the marts (and the checks after a load) have not taken in yet: one row per load, written in the load''s transaction, deleted by the follow-up that brings the company''s marts up to date. Empty for a company whose marts are current.';
COMMENT ON COLUMN pending_changes.id IS 'Row number, in the order the loads committed.';
COMMENT ON COLUMN pending_changes.connection IS 'Name of the API connection of the load (its time zone decides the company''s days).';
COMMENT ON COLUMN pending_changes.company_cnpj IS 'CNPJ of the company the load wrote.';
COMMENT ON COLUMN pending_changes.resource IS 'Resource loaded (see sync_runs.resource).';
COMMENT ON COLUMN pending_changes.first_day IS 'First day of the load''s window (inclusive); null for a load without a window (the collaborator list).';
COMMENT ON COLUMN pending_changes.last_day IS 'Last day of the load''s window (inclusive); null for a load without a window.';
COMMENT ON COLUMN pending_changes.changes IS 'Which inputs of the marts the load changed: directory (the collaborator list), seen (records seen only in period data), coverage (the days covered), days (days written before they ended, now over), lateness, overtime, leave (absences), rebuild (a forced load: rewrite what the window decides). Empty when it changed none (its checks still run).';
COMMENT ON COLUMN pending_changes.run_id IS 'The sync_runs row of the load.';
COMMENT ON COLUMN pending_changes.recorded_at IS 'When the load''s transaction started (history versions and listing times of the load carry the same instant).';

CREATE TABLE mart_refreshes (
  company_cnpj text PRIMARY KEY CHECK (company_cnpj ~ '^[0-9]{14}$'),
  refreshed_at timestamptz NOT NULL DEFAULT now(),
  first_day    date,
  last_day     date,
  changes      text[] NOT NULL DEFAULT '{}',
  loads        integer NOT NULL,
  oldest_change_at timestamptz NOT NULL,
  duration_ms  integer NOT NULL
);
COMMENT ON TABLE mart_refreshes IS 'The last refresh of each company''s marts: when, over which days, how many loads it took in at once.';
COMMENT ON COLUMN mart_refreshes.company_cnpj IS 'CNPJ of the company. Natural key.';
COMMENT ON COLUMN mart_refreshes.refreshed_at IS 'When the refresh committed.';
COMMENT ON COLUMN mart_refreshes.first_day IS 'First day the refresh rewrote (the union of its loads'' windows and of the employments they changed); null when none.';
COMMENT ON COLUMN mart_refreshes.last_day IS 'Last day the refresh rewrote; null when none.';
COMMENT ON COLUMN mart_refreshes.changes IS 'Which inputs of the marts its loads changed (see pending_changes.changes).';
COMMENT ON COLUMN mart_refreshes.loads IS 'Loads (rows of pending_changes) the refresh took in at once.';
COMMENT ON COLUMN mart_refreshes.oldest_change_at IS 'When the oldest of those loads committed: refreshed_at minus this is how far the marts lagged.';
COMMENT ON COLUMN mart_refreshes.duration_ms IS 'Duration of the refresh in milliseconds (the checks after it not included).';

CREATE OR REPLACE VIEW sync_freshness AS
SELECT
  r.company_cnpj,
  r.resource,
  max(r.finished_at) AS last_success_at,
  floor(extract(epoch FROM now() - max(r.finished_at)))::integer AS age_seconds,
  (SELECT min(p.recorded_at) FROM pending_changes p WHERE p.company_cnpj = r.company_cnpj) AS marts_pending_since,
  CASE WHEN r.company_cnpj IS NOT NULL THEN coalesce(
    (SELECT floor(extract(epoch FROM now() - min(p.recorded_at)))::integer FROM pending_changes p WHERE p.company_cnpj = r.company_cnpj), 0) END AS marts_lag_seconds
FROM sync_runs r
WHERE r.status = 'succeeded'
GROUP BY r.company_cnpj, r.resource;
COMMENT ON COLUMN sync_freshness.marts_pending_since IS 'When the oldest load of the company that its marts have not taken in yet committed; null when the marts are current.';
COMMENT ON COLUMN sync_freshness.marts_lag_seconds IS 'Seconds the company''s marts (employee_daily and the others) lag its loaded tables, at query time: 0 when current; null for group-level resources.';
