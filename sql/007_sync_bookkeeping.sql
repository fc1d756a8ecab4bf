-- 007_sync_bookkeeping: what the sync did and which windows are done.
-- sync_runs has one row per job run (written by the sync, read by `punchline status`
-- and the sync_freshness view); sync_windows records the windows a backfill may skip
-- (docs/architecture.md "Bookkeeping").

CREATE TABLE sync_runs (
  id            bigserial PRIMARY KEY,
  job_id        text,
  connection    text,
  resource      text NOT NULL,
  company_cnpj  text CHECK (company_cnpj ~ '^[0-9]{14}$'),
  window_start  date,
  window_end    date,
  status        text NOT NULL CHECK (status IN ('running', 'succeeded', 'failed')),
  attempt       integer,
  requests      integer,
  rows_inserted integer,
  rows_updated  integer,
  rows_deleted  integer,
  started_at    timestamptz NOT NULL DEFAULT now(),
  finished_at   timestamptz,
  duration_ms   integer,
  error         text,
  worker        text
);
CREATE INDEX sync_runs_freshness_idx ON sync_runs (company_cnpj, resource, finished_at) WHERE status = 'succeeded';
CREATE INDEX sync_runs_started_idx ON sync_runs (started_at);
COMMENT ON TABLE sync_runs IS 'One row per sync job run: which resource, company and window, how it ended, how many API requests and rows it took. Written by punchline itself, not by the API.';
COMMENT ON COLUMN sync_runs.id IS 'Run number, increasing. Key.';
COMMENT ON COLUMN sync_runs.job_id IS 'BullMQ job id (deterministic: the same window gives the same id).';
COMMENT ON COLUMN sync_runs.connection IS 'Name of the API connection (PUNCHLINE_CONFIG name, or default).';
COMMENT ON COLUMN sync_runs.resource IS 'Resource synced: companies, lookups, collaborators, punches, hour_totals, tardiness, adjustments, inconsistencies, hour_bank, absences, audit_photos or absence_attachments.';
COMMENT ON COLUMN sync_runs.company_cnpj IS 'CNPJ of the company synced; null for group-level runs.';
COMMENT ON COLUMN sync_runs.window_start IS 'First day of the window synced (inclusive); null when not windowed.';
COMMENT ON COLUMN sync_runs.window_end IS 'Last day of the window synced (inclusive); null when not windowed.';
COMMENT ON COLUMN sync_runs.status IS 'running, succeeded or failed.';
COMMENT ON COLUMN sync_runs.attempt IS 'Attempt number of the job (1 for the first try).';
COMMENT ON COLUMN sync_runs.requests IS 'API requests made by the run.';
COMMENT ON COLUMN sync_runs.rows_inserted IS 'Warehouse rows inserted by the run.';
COMMENT ON COLUMN sync_runs.rows_updated IS 'Warehouse rows changed by the run (unchanged rows are not counted).';
COMMENT ON COLUMN sync_runs.rows_deleted IS 'Warehouse rows marked deleted, deactivated or replaced away by the run.';
COMMENT ON COLUMN sync_runs.started_at IS 'When the run started.';
COMMENT ON COLUMN sync_runs.finished_at IS 'When the run ended; null while running.';
COMMENT ON COLUMN sync_runs.duration_ms IS 'Duration of the run in milliseconds.';
COMMENT ON COLUMN sync_runs.error IS 'Error message of a failed run (never contains the API token).';
COMMENT ON COLUMN sync_runs.worker IS 'Worker process that ran it, host:pid.';

CREATE TABLE sync_windows (
  connection   text NOT NULL,
  company_cnpj text NOT NULL CHECK (company_cnpj ~ '^[0-9]{14}$'),
  resource     text NOT NULL,
  window_start date NOT NULL,
  window_end   date NOT NULL,
  completed_at timestamptz NOT NULL DEFAULT now(),
  run_id       bigint,
  PRIMARY KEY (connection, company_cnpj, resource, window_start, window_end)
);
COMMENT ON TABLE sync_windows IS 'Windows whose sync completed; punchline backfill skips them unless --force (windows within the lookback horizon are never recorded as done).';
COMMENT ON COLUMN sync_windows.connection IS 'Name of the API connection. Key with company_cnpj, resource, window_start and window_end.';
COMMENT ON COLUMN sync_windows.company_cnpj IS 'CNPJ of the company synced.';
COMMENT ON COLUMN sync_windows.resource IS 'Resource synced (same names as sync_runs.resource).';
COMMENT ON COLUMN sync_windows.window_start IS 'First day of the window (inclusive).';
COMMENT ON COLUMN sync_windows.window_end IS 'Last day of the window (inclusive).';
COMMENT ON COLUMN sync_windows.completed_at IS 'When the window last completed.';
COMMENT ON COLUMN sync_windows.run_id IS 'The sync_runs.id of the run that completed it.';
