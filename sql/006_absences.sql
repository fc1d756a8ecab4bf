-- 006_absences: approved absences and vacations, who they concern, and their attachments.
-- Source: GET /customer/v2/absence/getFromPeriod (spec 2.5) and
-- GET /customer/v2/absence/attachment (spec 2.6). The list is absence-centric and returns
-- the absences overlapping the period asked, so a window reconciles the company's absences
-- that overlap it. Attachments can be medical certificates: their bytes are stored only
-- when STORE_BINARIES=1; name, type, size and SHA-256 always.

CREATE TABLE absences (
  absence_id             bigint PRIMARY KEY,
  company_cnpj           text NOT NULL CHECK (company_cnpj ~ '^[0-9]{14}$'),
  absence_type_id        integer NOT NULL,
  absence_type           text NOT NULL,
  description            text NOT NULL,
  details                text NOT NULL,
  begins_at_local        timestamp NOT NULL,
  begins_at              timestamptz NOT NULL,
  ends_at_local          timestamp NOT NULL,
  ends_at                timestamptz NOT NULL,
  days                   integer NOT NULL,
  reference_date         date NOT NULL,
  comp_time              boolean NOT NULL,
  paid_leave             boolean NOT NULL,
  full_day               boolean NOT NULL,
  sum_on_work_time       boolean NOT NULL,
  sum_total_on_work_time boolean NOT NULL,
  cr_register            text NOT NULL,
  professional_name      text NOT NULL,
  health_unit            text NOT NULL,
  cid_description        text NOT NULL,
  cid                    text[] NOT NULL,
  has_attachment         boolean NOT NULL,
  synced_at              timestamptz NOT NULL DEFAULT now(),
  deleted_at             timestamptz
);
CREATE INDEX absences_company_date_idx ON absences (company_cnpj, begins_at_local, ends_at_local);
COMMENT ON TABLE absences IS 'Approved absences and vacations, one row per absence_id. Source: GET /customer/v2/absence/getFromPeriod (spec 2.5); the collaborators concerned are in absence_collaborators. Filter deleted_at IS NULL for current data. Health fields are personal data.';
COMMENT ON COLUMN absences.absence_id IS 'Absence identifier in the API (spec 2.5 absence_id). Natural key.';
COMMENT ON COLUMN absences.company_cnpj IS 'CNPJ of the company whose data listed the absence.';
COMMENT ON COLUMN absences.absence_type_id IS 'Absence type id (spec 2.5 absence_type_id; see absence_types).';
COMMENT ON COLUMN absences.absence_type IS 'Absence type name (spec 2.5 type).';
COMMENT ON COLUMN absences.description IS 'Short description (spec 2.5).';
COMMENT ON COLUMN absences.details IS 'Details (spec 2.5).';
COMMENT ON COLUMN absences.begins_at_local IS 'Start date-time as sent, company local time (spec 2.5 begin_date).';
COMMENT ON COLUMN absences.begins_at IS 'Start instant: begins_at_local converted with the connection''s time zone.';
COMMENT ON COLUMN absences.ends_at_local IS 'End date-time as sent, company local time (spec 2.5 end_date).';
COMMENT ON COLUMN absences.ends_at IS 'End instant: ends_at_local converted with the connection''s time zone.';
COMMENT ON COLUMN absences.days IS 'Number of days of the absence, as sent (spec 2.5 days).';
COMMENT ON COLUMN absences.reference_date IS 'Reference date (spec 2.5 reference_date).';
COMMENT ON COLUMN absences.comp_time IS 'Gives right to compensation, time off (spec 2.5 comp_time).';
COMMENT ON COLUMN absences.paid_leave IS 'Paid leave (spec 2.5 paid_leave).';
COMMENT ON COLUMN absences.full_day IS 'Whole days (true) or part of a day (false) (spec 2.5 full_day).';
COMMENT ON COLUMN absences.sum_on_work_time IS 'Counts towards daily worked time (spec 2.5 sum_on_work_time).';
COMMENT ON COLUMN absences.sum_total_on_work_time IS 'Counts towards the period''s total worked time (spec 2.5 sum_total_on_work_time).';
COMMENT ON COLUMN absences.cr_register IS 'Council registration of the health professional (spec 2.5 cr_register).';
COMMENT ON COLUMN absences.professional_name IS 'Name of the health professional (spec 2.5).';
COMMENT ON COLUMN absences.health_unit IS 'Health unit (spec 2.5).';
COMMENT ON COLUMN absences.cid_description IS 'Description of the diagnosis (spec 2.5 cid_description).';
COMMENT ON COLUMN absences.cid IS 'Diagnosis codes, CID/ICD (spec 2.5 cid).';
COMMENT ON COLUMN absences.has_attachment IS 'True when attachments exist (see absence_attachments; spec 2.5).';
COMMENT ON COLUMN absences.synced_at IS 'When punchline last inserted or changed this row (a reload that finds nothing new leaves it as is).';
COMMENT ON COLUMN absences.deleted_at IS 'When a completed sync of a window overlapping the absence no longer returned it; null while the API returns it.';

CREATE TABLE absence_collaborators (
  absence_id   bigint NOT NULL,
  company_cnpj text NOT NULL,
  cpf          text NOT NULL,
  synced_at    timestamptz NOT NULL DEFAULT now(),
  deleted_at   timestamptz,
  PRIMARY KEY (absence_id, company_cnpj, cpf)
);
CREATE INDEX absence_collaborators_cpf_idx ON absence_collaborators (cpf);
CREATE INDEX absence_collaborators_company_cpf_idx ON absence_collaborators (company_cnpj, cpf);
COMMENT ON TABLE absence_collaborators IS 'Which collaborators an absence concerns. Source: GET /customer/v2/absence/getFromPeriod, collaborators[] (spec 2.5). Join absences on absence_id and collaborators on (company_cnpj, cpf).';
COMMENT ON COLUMN absence_collaborators.absence_id IS 'The absence (see absences). Natural key with company_cnpj and cpf.';
COMMENT ON COLUMN absence_collaborators.company_cnpj IS 'CNPJ of the collaborator''s company, from the collaborator''s own company block (spec 2.1). Natural key with absence_id and cpf.';
COMMENT ON COLUMN absence_collaborators.cpf IS 'CPF of the collaborator, 11 digits with leading zeros. Natural key with absence_id and company_cnpj.';
COMMENT ON COLUMN absence_collaborators.synced_at IS 'When punchline last inserted or changed this row (a reload that finds nothing new leaves it as is).';
COMMENT ON COLUMN absence_collaborators.deleted_at IS 'When a completed sync returned the absence without this collaborator (or no longer returned the absence); null while current.';

CREATE TABLE absence_attachments (
  absence_id   bigint NOT NULL,
  filename     text NOT NULL,
  company_cnpj text CHECK (company_cnpj ~ '^[0-9]{14}$'),
  mime_type    text NOT NULL,
  size_bytes   integer NOT NULL,
  sha256       text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
  content      bytea,
  synced_at    timestamptz NOT NULL DEFAULT now(),
  deleted_at   timestamptz,
  PRIMARY KEY (absence_id, filename)
);
CREATE INDEX absence_attachments_company_idx ON absence_attachments (company_cnpj);
COMMENT ON TABLE absence_attachments IS 'Files attached to absences (often medical certificates: personal data). Source: GET /customer/v2/absence/attachment (spec 2.6). File name, type, size and SHA-256 are always kept; the bytes only when STORE_BINARIES=1.';
COMMENT ON COLUMN absence_attachments.absence_id IS 'The absence (see absences). Natural key with filename.';
COMMENT ON COLUMN absence_attachments.filename IS 'File name as sent (spec 2.6 filename). Natural key with absence_id.';
COMMENT ON COLUMN absence_attachments.company_cnpj IS 'CNPJ of the absence''s company (from absences); null when the absence is not in the warehouse.';
COMMENT ON COLUMN absence_attachments.mime_type IS 'MIME type as sent (spec 2.6 mime_type).';
COMMENT ON COLUMN absence_attachments.size_bytes IS 'Size of the decoded file in bytes.';
COMMENT ON COLUMN absence_attachments.sha256 IS 'SHA-256 of the decoded file, lower-case hex.';
COMMENT ON COLUMN absence_attachments.content IS 'File bytes, only when STORE_BINARIES=1 (otherwise null: it may be a medical certificate).';
COMMENT ON COLUMN absence_attachments.synced_at IS 'When punchline last inserted or changed this row (a reload that finds nothing new leaves it as is).';
COMMENT ON COLUMN absence_attachments.deleted_at IS 'When the API last listed the absence''s attachments without this file; null while current.';
