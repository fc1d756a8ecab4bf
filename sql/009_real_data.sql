-- 009_real_data: what real records lack, and what a sync received but could not store.
-- Fields that real records may lack become nullable: a punch from a physical clock (REP)
-- or entered by a manager has no GPS, a contractor no PIS or registration number, an
-- adjustment awaiting a manager no observation, an absence without a medical certificate
-- no diagnosis. collaborators keeps the CPF as sent when it differed from its 11 digits.
-- hour_totals, hour_bank_balances and work_days keep one row per collaborator record,
-- since one CPF can have two records in a company and period (a duplicated CPF, a re-hire).
-- rejected_records holds the elements a sync could not store; schema_drift what the API
-- sends that its spec does not say; window_loads what each window's answer held.

ALTER TABLE collaborators
  ALTER COLUMN registration_number DROP NOT NULL,
  ALTER COLUMN email DROP NOT NULL,
  ALTER COLUMN name DROP NOT NULL,
  ALTER COLUMN occupation DROP NOT NULL,
  ALTER COLUMN department DROP NOT NULL,
  ALTER COLUMN business_unit DROP NOT NULL,
  ALTER COLUMN admission_date DROP NOT NULL,
  ALTER COLUMN pis DROP NOT NULL,
  ADD COLUMN cpf_as_sent text;
COMMENT ON COLUMN collaborators.registration_number IS 'Registration (matrícula) number (spec 2.1); null when the record has none (contractors).';
COMMENT ON COLUMN collaborators.email IS 'E-mail (spec 2.1); null when the record has none.';
COMMENT ON COLUMN collaborators.name IS 'Full name (spec 2.1); null when the record has none.';
COMMENT ON COLUMN collaborators.occupation IS 'Occupation name (spec 2.1); see occupations for the lookup list; null when none.';
COMMENT ON COLUMN collaborators.department IS 'Department name (spec 2.1); see departments for the lookup list; null when none.';
COMMENT ON COLUMN collaborators.business_unit IS 'Business unit name (spec 2.1 business_unit); null when none.';
COMMENT ON COLUMN collaborators.admission_date IS 'Formal admission date (spec 2.1); null when the record has none.';
COMMENT ON COLUMN collaborators.pis IS 'PIS social-security number (spec 2.1); null when the record has none (contractors).';
COMMENT ON COLUMN collaborators.cpf_as_sent IS 'The CPF exactly as the API sent it, when that differs from cpf (e.g. a number without its leading zeros, or formatted with dots); null when it was already 11 digits.';

ALTER TABLE collaborator_history
  ALTER COLUMN registration_number DROP NOT NULL,
  ALTER COLUMN email DROP NOT NULL,
  ALTER COLUMN name DROP NOT NULL,
  ALTER COLUMN occupation DROP NOT NULL,
  ALTER COLUMN department DROP NOT NULL,
  ALTER COLUMN business_unit DROP NOT NULL;

ALTER TABLE punches
  ALTER COLUMN method DROP NOT NULL,
  ALTER COLUMN accuracy_meters DROP NOT NULL,
  ALTER COLUMN latitude DROP NOT NULL,
  ALTER COLUMN longitude DROP NOT NULL,
  ALTER COLUMN address DROP NOT NULL;
COMMENT ON COLUMN punches.method IS 'Punch method as sent (spec 2.12 method; allowed values not documented); null when not sent.';
COMMENT ON COLUMN punches.origin IS 'How the punch entered, as sent: App Mobile, Web, REP (physical clock), Manual (entered by a manager), API, or a value the API added later (spec 2.12 origin; new values are reported by punchline status).';
COMMENT ON COLUMN punches.accuracy_meters IS 'Geolocation accuracy in metres (spec 2.12 accuracy_meters); null when the punch has no GPS (physical clocks, manual entries).';
COMMENT ON COLUMN punches.latitude IS 'Latitude in decimal degrees (spec 2.12 geolocation.lat); null when the punch has no GPS.';
COMMENT ON COLUMN punches.longitude IS 'Longitude in decimal degrees (spec 2.12 geolocation.lng); null when the punch has no GPS.';
COMMENT ON COLUMN punches.address IS 'Reverse-geocoded address of the punch (spec 2.12 address); null when the punch has no GPS.';

ALTER TABLE work_days ALTER COLUMN shift DROP NOT NULL;
COMMENT ON COLUMN work_days.shift IS 'Textual description of the scheduled shift (spec 2.12 shift); null when not sent.';

ALTER TABLE adjustment_requests
  ALTER COLUMN adjustment_type DROP NOT NULL,
  ALTER COLUMN collaborator_reason DROP NOT NULL,
  ALTER COLUMN manager_observation DROP NOT NULL,
  ALTER COLUMN approved_by DROP NOT NULL;
COMMENT ON COLUMN adjustment_requests.status IS 'Pendente (pending), Aprovado (approved), Recusado (refused), or a value the API added later (spec 2.9 status; new values are reported by punchline status).';
COMMENT ON COLUMN adjustment_requests.manager_observation IS 'The manager''s observation (spec 2.9); null while the request awaits a manager.';
COMMENT ON COLUMN adjustment_requests.approved_by IS 'Who decided the request (spec 2.9 approved_by); null while it awaits a decision.';
COMMENT ON COLUMN adjustment_requests.collaborator_reason IS 'The collaborator''s justification (spec 2.9); null when none.';

COMMENT ON COLUMN inconsistencies.status IS 'pending, acknowledged, or a value the API added later (spec 2.10 status).';

ALTER TABLE absences
  ALTER COLUMN absence_type DROP NOT NULL,
  ALTER COLUMN description DROP NOT NULL,
  ALTER COLUMN details DROP NOT NULL,
  ALTER COLUMN cr_register DROP NOT NULL,
  ALTER COLUMN professional_name DROP NOT NULL,
  ALTER COLUMN health_unit DROP NOT NULL,
  ALTER COLUMN cid_description DROP NOT NULL,
  ALTER COLUMN cid DROP NOT NULL;
COMMENT ON COLUMN absences.cr_register IS 'Council registration of the professional who signed the medical certificate (spec 2.5); null when there is no certificate.';
COMMENT ON COLUMN absences.professional_name IS 'Name of the professional of the medical certificate (spec 2.5); null when there is no certificate.';
COMMENT ON COLUMN absences.health_unit IS 'Health unit of the medical certificate (spec 2.5); null when there is no certificate.';
COMMENT ON COLUMN absences.cid_description IS 'Description of the diagnosis (spec 2.5); null when there is no certificate.';
COMMENT ON COLUMN absences.cid IS 'Diagnosis codes (CID) of the medical certificate (spec 2.5); null when there is no certificate.';

ALTER TABLE hour_bank_balances ALTER COLUMN regime DROP NOT NULL;
COMMENT ON COLUMN hour_bank_balances.regime IS 'BH (hour bank), HE (paid overtime), Híbrido (BH), Híbrido (HE), or a value the API added later (spec 2.11 regime).';

-- One row per collaborator record: two records of one CPF (a duplicate, a re-hire) have
-- their own admission dates. Existing rows take theirs from collaborators.
ALTER TABLE hour_totals ADD COLUMN collaborator_record text NOT NULL DEFAULT '';
UPDATE hour_totals h SET collaborator_record = coalesce(c.admission_date::text, '')
  FROM collaborators c WHERE c.company_cnpj = h.company_cnpj AND c.cpf = h.cpf;
ALTER TABLE hour_totals ALTER COLUMN collaborator_record DROP DEFAULT,
  DROP CONSTRAINT hour_totals_pkey,
  ADD PRIMARY KEY (company_cnpj, period_start, period_end, cpf, collaborator_record);
COMMENT ON COLUMN hour_totals.collaborator_record IS 'Which record of the CPF the row is about: the admission date of that record as sent (YYYY-MM-DD; empty when the record has none). One CPF has two records in a company when it is duplicated or re-hired; most CPFs have one. Natural key with company_cnpj, cpf, period_start and period_end.';
COMMENT ON TABLE hour_totals IS 'Hour totals per collaborator record and period (usually a calendar month). Source: GET /customer/v2/collaborator/totalHours, total_hours (spec 2.7). Durations in signed integer seconds. Loading a period marks deleted_at on the company''s current rows of other, overlapping periods, so current rows never overlap. A CPF with two records in the period (duplicated, re-hired) has a row per record (collaborator_record). See monthly_hours for hours.';

ALTER TABLE hour_bank_balances ADD COLUMN collaborator_record text NOT NULL DEFAULT '';
UPDATE hour_bank_balances h SET collaborator_record = coalesce(c.admission_date::text, '')
  FROM collaborators c WHERE c.company_cnpj = h.company_cnpj AND c.cpf = h.cpf;
ALTER TABLE hour_bank_balances ALTER COLUMN collaborator_record DROP DEFAULT,
  DROP CONSTRAINT hour_bank_balances_pkey,
  ADD PRIMARY KEY (company_cnpj, balance_date, cpf, collaborator_record);
COMMENT ON COLUMN hour_bank_balances.collaborator_record IS 'Which record of the CPF the row is about: the admission date of that record as sent (YYYY-MM-DD; empty when the record has none). Natural key with company_cnpj, cpf and balance_date.';
COMMENT ON TABLE hour_bank_balances IS 'Overtime and hour-bank balance per collaborator record and day. Source: GET /customer/v2/overtime?date= (spec 2.11), read one day at a time. Durations in signed integer seconds. A CPF with two records (duplicated, re-hired) has a row per record (collaborator_record). Filter deleted_at IS NULL for current data.';

-- Work days are per collaborator record too (each record lists its own days), and a
-- punch names the record whose day it was listed under.
ALTER TABLE work_days ADD COLUMN collaborator_record text NOT NULL DEFAULT '';
UPDATE work_days w SET collaborator_record = coalesce(c.admission_date::text, '')
  FROM collaborators c WHERE c.company_cnpj = w.company_cnpj AND c.cpf = w.cpf;
ALTER TABLE work_days ALTER COLUMN collaborator_record DROP DEFAULT,
  DROP CONSTRAINT work_days_pkey,
  ADD PRIMARY KEY (company_cnpj, work_date, cpf, collaborator_record);
COMMENT ON COLUMN work_days.collaborator_record IS 'Which record of the CPF the day belongs to: the admission date of that record as sent (YYYY-MM-DD; empty when the record has none). Natural key with company_cnpj, cpf and work_date.';
COMMENT ON TABLE work_days IS 'One row per collaborator record and day returned with punches. Source: GET /customer/v2/point/getFromPeriod, days[] (spec 2.12). A CPF with two records (duplicated, re-hired) has a row per record (collaborator_record). Filter deleted_at IS NULL for current data.';

ALTER TABLE punches ADD COLUMN collaborator_record text NOT NULL DEFAULT '';
UPDATE punches p SET collaborator_record = coalesce(c.admission_date::text, '')
  FROM collaborators c WHERE c.company_cnpj = p.company_cnpj AND c.cpf = p.cpf;
ALTER TABLE punches ALTER COLUMN collaborator_record DROP DEFAULT;
COMMENT ON COLUMN punches.collaborator_record IS 'Which record of the CPF the punch was listed under: the admission date of that record as sent (empty when none); see work_days.collaborator_record.';

-- daily_attendance: one row per collaborator record and day, punches counted per record.
CREATE OR REPLACE VIEW daily_attendance AS
SELECT
  d.company_cnpj,
  d.cpf,
  c.name AS collaborator_name,
  c.department,
  d.work_date,
  d.shift,
  p.first_in_local,
  CASE WHEN p.punch_count >= 2 THEN p.last_punch_local END AS last_out_local,
  p.first_in_at,
  CASE WHEN p.punch_count >= 2 THEN p.last_punch_at END AS last_out_at,
  coalesce(p.punch_count, 0)::integer AS punch_count,
  d.worked_seconds,
  round(d.worked_seconds / 3600.0, 2) AS worked_hours,
  coalesce(t.late_seconds, 0) AS late_seconds,
  (t.cpf IS NOT NULL) AS is_late,
  (d.shift ~ '[0-9]:[0-5][0-9]') AS is_scheduled,
  (d.shift ~ '[0-9]:[0-5][0-9]' AND coalesce(p.punch_count, 0) = 0 AND ab.absence_type IS NULL) AS is_absent,
  (ab.absence_type IS NOT NULL) AS on_leave,
  ab.absence_type,
  d.collaborator_record
FROM work_days d
LEFT JOIN collaborators c ON c.company_cnpj = d.company_cnpj AND c.cpf = d.cpf
LEFT JOIN (
  SELECT company_cnpj, cpf, work_date, collaborator_record,
         min(punched_at_local) AS first_in_local, max(punched_at_local) AS last_punch_local,
         min(punched_at) AS first_in_at, max(punched_at) AS last_punch_at,
         count(*) AS punch_count
  FROM punches
  WHERE deleted_at IS NULL
  GROUP BY company_cnpj, cpf, work_date, collaborator_record
) p ON p.company_cnpj = d.company_cnpj AND p.cpf = d.cpf AND p.work_date = d.work_date AND p.collaborator_record = d.collaborator_record
LEFT JOIN tardiness t ON t.company_cnpj = d.company_cnpj AND t.cpf = d.cpf AND t.work_date = d.work_date
LEFT JOIN LATERAL (
  SELECT a.absence_type
  FROM absence_collaborators ac
  JOIN absences a ON a.absence_id = ac.absence_id AND a.deleted_at IS NULL
  WHERE ac.company_cnpj = d.company_cnpj AND ac.cpf = d.cpf AND ac.deleted_at IS NULL
    AND d.work_date BETWEEN a.begins_at_local::date AND a.ends_at_local::date
  ORDER BY a.begins_at_local, a.absence_id
  LIMIT 1
) ab ON true
WHERE d.deleted_at IS NULL;
COMMENT ON VIEW daily_attendance IS 'One row per collaborator record and day returned by point/getFromPeriod (work_days): first entry, last exit, punch count, worked time, tardiness and absence flags. Deleted rows are left out. Times are company local wall-clock (*_local) or instants (*_at). A CPF with two records that day (duplicated, re-hired) has a row per record.';
COMMENT ON COLUMN daily_attendance.collaborator_record IS 'Which record of the CPF the row is about (work_days.collaborator_record).';

CREATE TABLE rejected_records (
  id                bigserial PRIMARY KEY,
  connection        text NOT NULL,
  resource          text NOT NULL,
  endpoint          text NOT NULL,
  company_cnpj      text NOT NULL,
  window_start      date,
  window_end        date,
  element_index     integer NOT NULL,
  json_path         text NOT NULL,
  reason            text NOT NULL,
  record            jsonb NOT NULL,
  first_rejected_at timestamptz NOT NULL DEFAULT now(),
  last_rejected_at  timestamptz NOT NULL DEFAULT now(),
  resolved_at       timestamptz,
  run_id            bigint
);
CREATE INDEX rejected_records_open_idx ON rejected_records (connection, resource, company_cnpj, window_start) WHERE resolved_at IS NULL;
COMMENT ON TABLE rejected_records IS 'Records an API answer held that punchline could not store (no natural key, a date that is no date, ...). The rest of their window was loaded; the rows of a rejected record are never taken for deleted. A later sync of the window that no longer rejects it sets resolved_at. Written by punchline; shown by punchline status.';
COMMENT ON COLUMN rejected_records.id IS 'Rejection number, increasing. Key.';
COMMENT ON COLUMN rejected_records.connection IS 'Name of the API connection whose sync received the record.';
COMMENT ON COLUMN rejected_records.resource IS 'Resource being synced (same names as sync_runs.resource).';
COMMENT ON COLUMN rejected_records.endpoint IS 'Endpoint that answered it, e.g. point/getFromPeriod (spec 4.1).';
COMMENT ON COLUMN rejected_records.company_cnpj IS 'CNPJ of the company whose data it was.';
COMMENT ON COLUMN rejected_records.window_start IS 'First day of the window read; null for lists without a window.';
COMMENT ON COLUMN rejected_records.window_end IS 'Last day of the window read (inclusive); null for lists without a window.';
COMMENT ON COLUMN rejected_records.element_index IS 'Position of the element in the answer''s data array (from 0).';
COMMENT ON COLUMN rejected_records.json_path IS 'Where the rejected record sat in the answer, e.g. data[12].days[3].points[1].';
COMMENT ON COLUMN rejected_records.reason IS 'Why it could not be stored: the field and the problem, e.g. datetime: expected a date-time YYYY-MM-DD HH:MM:SS (spec 1.2).';
COMMENT ON COLUMN rejected_records.record IS 'The rejected record exactly as the API sent it.';
COMMENT ON COLUMN rejected_records.first_rejected_at IS 'When a sync first rejected it.';
COMMENT ON COLUMN rejected_records.last_rejected_at IS 'When a sync last rejected it.';
COMMENT ON COLUMN rejected_records.resolved_at IS 'When a later sync of the window no longer rejected it (the API fixed or dropped it); null while it stands.';
COMMENT ON COLUMN rejected_records.run_id IS 'The sync_runs.id of the run that last rejected it.';

CREATE TABLE schema_drift (
  kind          text NOT NULL CHECK (kind IN ('new_value', 'unknown_field')),
  endpoint      text NOT NULL,
  field         text NOT NULL,
  value         text NOT NULL,
  first_seen_at timestamptz NOT NULL DEFAULT now(),
  last_seen_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (kind, endpoint, field, value)
);
COMMENT ON TABLE schema_drift IS 'What the API sent that its specification does not say: a value of a list the source owns not seen before (a new punch origin, adjustment status or hour-bank regime), or a field no schema names. Neither stops the sync; punchline status and /metrics show them. Written by punchline.';
COMMENT ON COLUMN schema_drift.kind IS 'new_value (a value outside the known list of field) or unknown_field (a field the schema does not name).';
COMMENT ON COLUMN schema_drift.endpoint IS 'Endpoint that sent the unknown field; empty for new values (a field such as point.origin is the same on every endpoint). Key with kind, field and value.';
COMMENT ON COLUMN schema_drift.field IS 'The field: point.origin, adjustment.status, overtime.regime for values; a path such as days[].points[].selfie_url for unknown fields.';
COMMENT ON COLUMN schema_drift.value IS 'The new value (new_value); empty for unknown fields.';
COMMENT ON COLUMN schema_drift.first_seen_at IS 'When a punchline process first reported it.';
COMMENT ON COLUMN schema_drift.last_seen_at IS 'When a punchline process last reported it (each process reports a piece of drift once).';

CREATE TABLE window_loads (
  connection   text NOT NULL,
  company_cnpj text NOT NULL,
  resource     text NOT NULL,
  window_start date NOT NULL,
  window_end   date NOT NULL,
  table_name   text NOT NULL,
  received     integer NOT NULL,
  rejected     integer NOT NULL,
  run_id       bigint,
  loaded_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (connection, company_cnpj, resource, window_start, window_end, table_name)
);
COMMENT ON TABLE window_loads IS 'What the last complete load of each window held, per table: the rows the answer carried and the records rejected. The completeness check compares it with the live rows of the window. Written by punchline in the load''s transaction.';
COMMENT ON COLUMN window_loads.connection IS 'Name of the API connection. Key with company_cnpj, resource, window_start, window_end and table_name.';
COMMENT ON COLUMN window_loads.company_cnpj IS 'CNPJ of the company loaded.';
COMMENT ON COLUMN window_loads.resource IS 'Resource loaded (same names as sync_runs.resource).';
COMMENT ON COLUMN window_loads.window_start IS 'First day of the window (inclusive).';
COMMENT ON COLUMN window_loads.window_end IS 'Last day of the window (inclusive).';
COMMENT ON COLUMN window_loads.table_name IS 'Warehouse table the rows went to.';
COMMENT ON COLUMN window_loads.received IS 'Distinct rows (by natural key) the answer held for the table.';
COMMENT ON COLUMN window_loads.rejected IS 'Records of the answer rejected as unstorable (see rejected_records); their rows are not in received.';
COMMENT ON COLUMN window_loads.run_id IS 'The sync_runs.id of the run that loaded it.';
COMMENT ON COLUMN window_loads.loaded_at IS 'When the window was last loaded completely.';

ALTER TABLE sync_runs ADD COLUMN rows_rejected integer;
COMMENT ON COLUMN sync_runs.rows_rejected IS 'Records the run received but could not store (see rejected_records); the run still succeeded with the rest.';

-- Date-times are converted with each company's own time zone (COMPANY_TIMEZONES, else the
-- connection's API_TIMEZONE), not one zone per connection: the instants say so.
COMMENT ON COLUMN punches.punched_at IS 'Punch instant: punched_at_local converted with the company''s time zone (COMPANY_TIMEZONES, else the connection''s API_TIMEZONE). In a DST gap the offset before the change is used; in an overlap, the earlier instant.';
COMMENT ON COLUMN adjustment_requests.created_at IS 'Creation instant: created_at_local converted with the company''s time zone (COMPANY_TIMEZONES, else API_TIMEZONE).';
COMMENT ON COLUMN adjustment_requests.updated_at IS 'Last update instant: updated_at_local converted with the company''s time zone (COMPANY_TIMEZONES, else API_TIMEZONE).';
COMMENT ON COLUMN absences.begins_at IS 'Start instant: begins_at_local converted with the company''s time zone (COMPANY_TIMEZONES, else API_TIMEZONE).';
COMMENT ON COLUMN absences.ends_at IS 'End instant: ends_at_local converted with the company''s time zone (COMPANY_TIMEZONES, else API_TIMEZONE).';
