-- 004_punches: punches (points) and the day objects they come in, plus audit photos.
-- Source: GET /customer/v2/point/getFromPeriod (spec 2.12) and GET /customer/v2/point/audit
-- (spec 2.13). Punches and work days are reconciled per company and window: a row the API
-- no longer returns gets deleted_at, and loses it when it comes back. Date-times are stored
-- as sent (*_local, the company's wall clock) and as an instant (timestamptz) converted with
-- the company's time zone. CPF and CNPJ formats are checked when each record is validated
-- (src/api/schemas.ts): on tables this size a per-row CHECK would cost as much as the rest
-- of the insert.

CREATE TABLE punches (
  point_id          bigint PRIMARY KEY,
  company_cnpj      text NOT NULL,
  cpf               text NOT NULL,
  work_date         date NOT NULL,
  punched_at_local  timestamp NOT NULL,
  punched_at        timestamptz NOT NULL,
  hour_local        text NOT NULL,
  method            text NOT NULL,
  origin            text NOT NULL,
  is_adjusted       boolean NOT NULL,
  adjustment_reason text,
  adjusted_by       text,
  accuracy_meters   double precision NOT NULL,
  latitude          double precision NOT NULL,
  longitude         double precision NOT NULL,
  address           text NOT NULL,
  has_audit_photo   boolean NOT NULL,
  synced_at         timestamptz NOT NULL DEFAULT now(),
  deleted_at        timestamptz
);
CREATE INDEX punches_company_date_idx ON punches (company_cnpj, work_date);
CREATE INDEX punches_cpf_date_idx ON punches (cpf, work_date);
COMMENT ON TABLE punches IS 'Punches (time clock entries), one row per point_id. Source: GET /customer/v2/point/getFromPeriod, days[].points[] (spec 2.12). Rows with deleted_at set are no longer returned by the API; filter deleted_at IS NULL for current data.';
COMMENT ON COLUMN punches.point_id IS 'Punch identifier in the API (spec 2.12 point_id). Natural key.';
COMMENT ON COLUMN punches.company_cnpj IS 'CNPJ of the collaborator''s company (company block, spec 1.4 rule 4).';
COMMENT ON COLUMN punches.cpf IS 'CPF of the collaborator, 11 digits with leading zeros (spec 2.1).';
COMMENT ON COLUMN punches.work_date IS 'Date of the day object the punch was listed under (spec 2.12 days[].date); the window a sync reconciles is on this date.';
COMMENT ON COLUMN punches.punched_at_local IS 'Punch date-time exactly as sent: the company''s local wall-clock time, no offset (spec 2.12 datetime, spec 1.2).';
COMMENT ON COLUMN punches.punched_at IS 'Punch instant: punched_at_local converted with the connection''s time zone (API_TIMEZONE). In a DST gap the offset before the change is used; in an overlap, the earlier instant.';
COMMENT ON COLUMN punches.hour_local IS 'Punch time HH:MM as sent (spec 2.12 hour).';
COMMENT ON COLUMN punches.method IS 'Punch method as sent (spec 2.12 method; allowed values not documented).';
COMMENT ON COLUMN punches.origin IS 'How the punch entered: App Mobile, Web, REP (physical clock), Manual (entered by a manager) or API (spec 2.12 origin).';
COMMENT ON COLUMN punches.is_adjusted IS 'True when the punch was adjusted (spec 2.12 is_adjusted).';
COMMENT ON COLUMN punches.adjustment_reason IS 'Reason of the adjustment, null when none (spec 2.12).';
COMMENT ON COLUMN punches.adjusted_by IS 'Who adjusted the punch, null when none (spec 2.12).';
COMMENT ON COLUMN punches.accuracy_meters IS 'Geolocation accuracy in metres (spec 2.12 accuracy_meters).';
COMMENT ON COLUMN punches.latitude IS 'Latitude in decimal degrees (spec 2.12 geolocation.lat).';
COMMENT ON COLUMN punches.longitude IS 'Longitude in decimal degrees (spec 2.12 geolocation.lng).';
COMMENT ON COLUMN punches.address IS 'Reverse-geocoded address of the punch (spec 2.12 address).';
COMMENT ON COLUMN punches.has_audit_photo IS 'True when an audit photo exists (see audit_photos; spec 2.12 has_audit_photo).';
COMMENT ON COLUMN punches.synced_at IS 'When punchline last inserted or changed this row (a reload that finds nothing new leaves it as is).';
COMMENT ON COLUMN punches.deleted_at IS 'When a completed sync of this company and window no longer found the punch; null while the API returns it.';

CREATE TABLE work_days (
  company_cnpj   text NOT NULL,
  cpf            text NOT NULL,
  work_date      date NOT NULL,
  shift          text NOT NULL,
  worked_seconds integer NOT NULL,
  synced_at      timestamptz NOT NULL DEFAULT now(),
  deleted_at     timestamptz,
  -- Key columns ordered for BI: company + date ranges use the key's index.
  PRIMARY KEY (company_cnpj, work_date, cpf)
);
CREATE INDEX work_days_cpf_date_idx ON work_days (cpf, work_date);
COMMENT ON TABLE work_days IS 'One row per collaborator and day returned with punches. Source: GET /customer/v2/point/getFromPeriod, days[] (spec 2.12). Filter deleted_at IS NULL for current data.';
COMMENT ON COLUMN work_days.company_cnpj IS 'CNPJ of the collaborator''s company. Natural key with cpf and work_date.';
COMMENT ON COLUMN work_days.cpf IS 'CPF of the collaborator, 11 digits with leading zeros. Natural key with company_cnpj and work_date.';
COMMENT ON COLUMN work_days.work_date IS 'The day (spec 2.12 days[].date). Natural key with company_cnpj and cpf.';
COMMENT ON COLUMN work_days.shift IS 'Textual description of the scheduled shift (spec 2.12 shift).';
COMMENT ON COLUMN work_days.worked_seconds IS 'Worked time of the day in seconds, signed integer (spec 2.12 worked_time). Divide by 3600 for hours.';
COMMENT ON COLUMN work_days.synced_at IS 'When punchline last inserted or changed this row (a reload that finds nothing new leaves it as is).';
COMMENT ON COLUMN work_days.deleted_at IS 'When a completed sync of this company and window no longer found the day; null while the API returns it.';

CREATE TABLE audit_photos (
  point_id     bigint PRIMARY KEY,
  company_cnpj text CHECK (company_cnpj ~ '^[0-9]{14}$'),
  filename     text NOT NULL,
  mime_type    text NOT NULL,
  size_bytes   integer NOT NULL,
  sha256       text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
  content      bytea,
  synced_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_photos_company_idx ON audit_photos (company_cnpj);
COMMENT ON TABLE audit_photos IS 'Audit photos taken at punch time (faces: personal data). Source: GET /customer/v2/point/audit (spec 2.13). File name, type, size and SHA-256 are always kept; the bytes only when STORE_BINARIES=1.';
COMMENT ON COLUMN audit_photos.point_id IS 'Punch the photo belongs to (spec 2.13 point_id; see punches). Natural key.';
COMMENT ON COLUMN audit_photos.company_cnpj IS 'CNPJ of the punch''s company (from punches); null when the punch is not in the warehouse.';
COMMENT ON COLUMN audit_photos.filename IS 'File name as sent (spec 2.13 filename).';
COMMENT ON COLUMN audit_photos.mime_type IS 'MIME type as sent, e.g. image/jpeg (spec 2.13 mime_type).';
COMMENT ON COLUMN audit_photos.size_bytes IS 'Size of the decoded file in bytes.';
COMMENT ON COLUMN audit_photos.sha256 IS 'SHA-256 of the decoded file, lower-case hex.';
COMMENT ON COLUMN audit_photos.content IS 'File bytes, only when STORE_BINARIES=1 (otherwise null: it is a face).';
COMMENT ON COLUMN audit_photos.synced_at IS 'When punchline last inserted or changed this row (a reload that finds nothing new leaves it as is).';
