-- 010_push_receipts: what `punchline push --apply` created through the write
-- endpoints (spec 4.2), one row per created entity. The API has no idempotency key and,
-- for face photos, no read that shows what was sent, so this log is how a second push
-- of the same photo file knows it was already sent; for the other kinds it is an audit
-- trail (the check before writing asks the API itself).

CREATE TABLE push_receipts (
  company_cnpj text NOT NULL CHECK (company_cnpj ~ '^[0-9]{14}$'),
  kind         text NOT NULL,
  row_key      text NOT NULL,
  created_id   text,
  connection   text NOT NULL,
  source_file  text NOT NULL,
  source_line  integer NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_cnpj, kind, row_key)
);
COMMENT ON TABLE push_receipts IS 'Entities created by punchline push --apply through the write endpoints (spec 4.2). Written by punchline itself, not read from the API. A row that is pushed again updates its receipt.';
COMMENT ON COLUMN push_receipts.company_cnpj IS 'CNPJ of the token''s company, where the write acted (spec 1.4 rule 2). Key with kind and row_key.';
COMMENT ON COLUMN push_receipts.kind IS 'What was pushed: collaborators, photos, dismissals, punches, absences, departments, occupations, fired-types or cost-centers.';
COMMENT ON COLUMN push_receipts.row_key IS 'The identity of the entity within its kind and company, e.g. the CPF of a collaborator, CPF and date-time of a punch, CPF and SHA-256 of a photo.';
COMMENT ON COLUMN push_receipts.created_id IS 'Id the API returned (data.id, point_id, absence_id); null when the endpoint returns none (photos, dismissals).';
COMMENT ON COLUMN push_receipts.connection IS 'Connection name of the push (never the token).';
COMMENT ON COLUMN push_receipts.source_file IS 'Input file of the push, as given on the command line.';
COMMENT ON COLUMN push_receipts.source_line IS 'Line of the input file that asked for the entity.';
COMMENT ON COLUMN push_receipts.created_at IS 'When the API answered success.';
