-- 012_quality_checks: whether the warehouse's numbers can be trusted, not only when they came.
-- quality_checks holds the outcome of the reconciliation checks punchline runs inside
-- Postgres after every completed window and on `punchline verify`: window completeness
-- (what each window's answer held against the live rows it holds now), the source's own
-- agreement (monthly totals against the days, a day against its punches), internal
-- consistency and coverage. Each run of a check examines whole parts of the warehouse (a
-- window, a totals period, a month, a resource) and writes one row per scope it
-- reports; the latest run of a part stands for it, which quality_status shows. A check
-- never changes data. What each check means and what to do about a failure:
-- docs/warehouse.md "Reconciliation checks".

CREATE TABLE quality_checks (
  check_name   text NOT NULL,
  company_cnpj text NOT NULL,
  part         text NOT NULL,
  scope        text NOT NULL,
  cpf          text,
  measure      text NOT NULL CHECK (measure IN ('rows', 'seconds', 'days', 'findings')),
  expected     bigint,
  actual       bigint,
  difference   bigint GENERATED ALWAYS AS (actual - expected) STORED,
  tolerance    bigint NOT NULL DEFAULT 0,
  status       text NOT NULL CHECK (status IN ('ok', 'warn', 'fail')),
  detail       text,
  checked_at   timestamptz NOT NULL DEFAULT now(),
  run_id       bigint,
  -- A scope about one collaborator names the CPF; others have none (NULL equals NULL here).
  CONSTRAINT quality_checks_key UNIQUE NULLS NOT DISTINCT (check_name, company_cnpj, part, scope, cpf, checked_at)
);
CREATE INDEX quality_checks_latest_idx ON quality_checks (check_name, company_cnpj, part, checked_at DESC);
CREATE INDEX quality_checks_checked_idx ON quality_checks (checked_at);
COMMENT ON TABLE quality_checks IS 'Outcomes of the reconciliation checks (docs/warehouse.md "Reconciliation checks"), run inside Postgres after every completed sync window and by punchline verify. One row per scope a run reports; a run examines whole parts (part), and the latest run of a part replaces what earlier runs said about it (see quality_status). Written by punchline; a check never changes data.';
COMMENT ON COLUMN quality_checks.check_name IS 'Which check: window_completeness, totals_vs_days, rule_vs_days, day_vs_punches, punch_without_day, unknown_collaborator, history_overlap or coverage. Key with company_cnpj, part, scope, cpf and checked_at.';
COMMENT ON COLUMN quality_checks.company_cnpj IS 'CNPJ of the company checked.';
COMMENT ON COLUMN quality_checks.part IS 'The part of the warehouse one run of the check examined as a whole: a window (punches 2025-03-01..2025-03-31), a totals period (2025-03-01..2025-03-31), a month (2025-03), a resource (coverage) or history. The latest run of a part stands for it.';
COMMENT ON COLUMN quality_checks.scope IS 'What the row is about within its part: a table, all (the part as a whole), a collaborator record (record 2021-04-01), a day, a gap of days.';
COMMENT ON COLUMN quality_checks.cpf IS 'CPF of the collaborator the scope is about, 11 digits; null when the scope is not one collaborator.';
COMMENT ON COLUMN quality_checks.measure IS 'What expected, actual, difference and tolerance count: rows, seconds (durations), days, or findings (records breaking a rule).';
COMMENT ON COLUMN quality_checks.expected IS 'The figure the check expects, from the finer-grained or the earlier record (rows the window''s answer held, the sum of the days'' worked time, 0 findings); null when nothing was compared (see detail).';
COMMENT ON COLUMN quality_checks.actual IS 'The figure found (live rows of the window now, the totals'' worked time, findings); null when nothing was compared.';
COMMENT ON COLUMN quality_checks.difference IS 'actual - expected, in the measure''s unit; null when nothing was compared.';
COMMENT ON COLUMN quality_checks.tolerance IS 'Largest difference (in absolute value) that still counts as agreement, e.g. the point rule''s 10 minutes a day for rule_vs_days; 0 when the figures must be equal.';
COMMENT ON COLUMN quality_checks.status IS 'ok (within tolerance), warn (a difference with a known innocent explanation, see detail and docs/warehouse.md) or fail (a difference to act on).';
COMMENT ON COLUMN quality_checks.detail IS 'What the difference is about and its likely cause, in words; null when there is nothing to add.';
COMMENT ON COLUMN quality_checks.checked_at IS 'When the run that wrote the row started (every row of one run has the same time).';
COMMENT ON COLUMN quality_checks.run_id IS 'The sync_runs.id of the sync run whose completed window the check followed; null for punchline verify.';

CREATE VIEW quality_status AS
SELECT q.check_name, q.company_cnpj, q.part, q.scope, q.cpf, q.measure, q.expected, q.actual, q.difference,
       q.tolerance, q.status, q.detail, q.checked_at, q.run_id
FROM quality_checks q
WHERE q.checked_at = (
  SELECT max(l.checked_at) FROM quality_checks l
  WHERE l.check_name = q.check_name AND l.company_cnpj = q.company_cnpj AND l.part = q.part
);
COMMENT ON VIEW quality_status IS 'The standing outcome of every check: the rows of the latest run of each check, company and part (quality_checks). Filter status <> ''ok'' for what to look at; punchline status and /metrics read the same view.';
COMMENT ON COLUMN quality_status.check_name IS 'Which check (see quality_checks.check_name).';
COMMENT ON COLUMN quality_status.company_cnpj IS 'CNPJ of the company checked.';
COMMENT ON COLUMN quality_status.part IS 'The part of the warehouse the latest run examined (see quality_checks.part).';
COMMENT ON COLUMN quality_status.scope IS 'What the row is about within its part (see quality_checks.scope).';
COMMENT ON COLUMN quality_status.cpf IS 'CPF of the collaborator the scope is about; null when the scope is not one collaborator.';
COMMENT ON COLUMN quality_status.measure IS 'Unit of expected, actual, difference and tolerance: rows, seconds, days or findings.';
COMMENT ON COLUMN quality_status.expected IS 'The figure the check expects (see quality_checks.expected).';
COMMENT ON COLUMN quality_status.actual IS 'The figure found (see quality_checks.actual).';
COMMENT ON COLUMN quality_status.difference IS 'actual - expected, in the measure''s unit.';
COMMENT ON COLUMN quality_status.tolerance IS 'Largest difference that still counts as agreement.';
COMMENT ON COLUMN quality_status.status IS 'ok, warn or fail.';
COMMENT ON COLUMN quality_status.detail IS 'What the difference is about and its likely cause.';
COMMENT ON COLUMN quality_status.checked_at IS 'When the latest run of the part started.';
COMMENT ON COLUMN quality_status.run_id IS 'The sync_runs.id the run followed; null for punchline verify.';

-- Coverage and completeness look windows up per company and resource.
CREATE INDEX window_loads_company_idx ON window_loads (company_cnpj, resource, table_name, window_start);

-- The default privileges of 001 already cover new tables; said again, so a warehouse
-- migrated by another role reads them too.
GRANT SELECT ON quality_checks, quality_status TO workforce_reader;
