-- 011_privacy: what each warehouse reader may see, and the right to be forgotten (LGPD).
-- Creates the cluster-wide role workforce_analyst (NOLOGIN), which is given no access to
-- this schema: it reads the views of the schema <schema>_analyst, which punchline migrate
-- (re)generates after every run from src/warehouse/personal-data.ts (CPF replaced by a
-- pseudonym, names, contacts, locations, health data and free text left out).
-- Creates cpf_pseudonyms (CPF -> keyed-hash pseudonym, computed by punchline with a key
-- the warehouse never holds) and erasures (the register of `punchline forget`).
-- Makes the personal columns that forget blanks nullable (null = erased), and lets the
-- collaborator tables hold the tombstone (erased-<id>) that replaces an erased CPF.
-- See docs/privacy.md.

DO $$
BEGIN
  CREATE ROLE workforce_analyst NOLOGIN;
  COMMENT ON ROLE workforce_analyst IS
    'Pseudonymised read access to the punchline warehouse, through the <schema>_analyst views only: GRANT workforce_analyst TO <bi_login>.';
EXCEPTION
  -- Roles are shared by the whole cluster: another schema or database may have created it.
  WHEN duplicate_object OR unique_violation THEN NULL;
END
$$;

-- The analyst role reads no table of this schema; say so even if someone granted it by hand.
REVOKE ALL ON SCHEMA {{schema}} FROM workforce_analyst;
REVOKE ALL ON ALL TABLES IN SCHEMA {{schema}} FROM workforce_analyst;

CREATE TABLE cpf_pseudonyms (
  cpf         text PRIMARY KEY CHECK (cpf ~ '^[0-9]{11}$'),
  pseudonym   text NOT NULL UNIQUE,
  key_id      text NOT NULL,
  computed_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE cpf_pseudonyms IS 'The pseudonym of every CPF of the warehouse, which the analyst views show instead of the CPF. Computed by punchline (HMAC-SHA-256 with PSEUDONYM_KEY, a key the warehouse does not hold), so nobody can compute or reverse a pseudonym from the warehouse alone. Not visible to workforce_analyst.';
COMMENT ON COLUMN cpf_pseudonyms.cpf IS 'CPF, 11 digits with leading zeros. Key.';
COMMENT ON COLUMN cpf_pseudonyms.pseudonym IS 'The pseudonym: the first 80 bits of HMAC-SHA-256(key, CPF) as 20 hex digits. The same CPF has the same pseudonym in every table and company until the key changes.';
COMMENT ON COLUMN cpf_pseudonyms.key_id IS 'Fingerprint of the key that computed the pseudonym (a hash of the key, not the key): rows of an older key are recomputed after a key rotation.';
COMMENT ON COLUMN cpf_pseudonyms.computed_at IS 'When punchline computed the pseudonym.';

CREATE TABLE erasures (
  id              bigserial PRIMARY KEY,
  company_cnpj    text NOT NULL CHECK (company_cnpj ~ '^[0-9]{14}$'),
  cpf             text NOT NULL CHECK (cpf ~ '^[0-9]{11}$'),
  tombstone       text NOT NULL GENERATED ALWAYS AS ('erased-' || id::text) STORED UNIQUE,
  erased_at       timestamptz NOT NULL DEFAULT now(),
  erased_by       text NOT NULL,
  note            text,
  rows_erased     bigint NOT NULL DEFAULT 0,
  last_applied_at timestamptz,
  lifted_at       timestamptz,
  lifted_by       text
);
-- At most one standing erasure per person and company.
CREATE UNIQUE INDEX erasures_standing_idx ON erasures (company_cnpj, cpf) WHERE lifted_at IS NULL;
COMMENT ON TABLE erasures IS 'Register of punchline forget: one row per person and company whose personal fields were erased. While an erasure stands (lifted_at is null) every sync of the company erases them again. The CPF is kept here, and only here, so that the sync recognises the person whatever the pseudonym key; workforce_reader may read every column but cpf.';
COMMENT ON COLUMN erasures.id IS 'Number of the erasure. Key.';
COMMENT ON COLUMN erasures.company_cnpj IS 'CNPJ of the company whose data about the person was erased.';
COMMENT ON COLUMN erasures.cpf IS 'CPF of the erased person: how the sync recognises them in new API data. Readable by the warehouse owner only (not workforce_reader, not workforce_analyst).';
COMMENT ON COLUMN erasures.tombstone IS 'What replaced the CPF in every table of the company: erased-<id>. Keeps hours, punch times and balances of the person countable without saying who they are.';
COMMENT ON COLUMN erasures.erased_at IS 'When punchline forget ran.';
COMMENT ON COLUMN erasures.erased_by IS 'Who ran it (--by, default the operating-system user and host).';
COMMENT ON COLUMN erasures.note IS 'Free note given with --note (e.g. the request''s ticket); null when none.';
COMMENT ON COLUMN erasures.rows_erased IS 'Rows changed for this erasure so far: by punchline forget, then by every sync that brought the person back.';
COMMENT ON COLUMN erasures.last_applied_at IS 'When rows were last erased for it (by forget or a sync); null when there were none to erase.';
COMMENT ON COLUMN erasures.lifted_at IS 'When the erasure was lifted (punchline forget --lift); null while it stands.';
COMMENT ON COLUMN erasures.lifted_by IS 'Who lifted it; null while it stands.';

REVOKE SELECT ON erasures FROM workforce_reader;
GRANT SELECT (id, company_cnpj, tombstone, erased_at, erased_by, note, rows_erased, last_applied_at, lifted_at, lifted_by)
  ON erasures TO workforce_reader;

-- Personal columns that forget blanks: null means erased (or, as before, not given).
ALTER TABLE collaborators
  ALTER COLUMN registration_number DROP NOT NULL,
  ALTER COLUMN email DROP NOT NULL,
  ALTER COLUMN name DROP NOT NULL,
  ALTER COLUMN pis DROP NOT NULL,
  DROP CONSTRAINT collaborators_cpf_check,
  ADD CONSTRAINT collaborators_cpf_check CHECK (cpf ~ '^([0-9]{11}|erased-[0-9]+)$');
ALTER TABLE collaborator_history
  ALTER COLUMN registration_number DROP NOT NULL,
  ALTER COLUMN email DROP NOT NULL,
  ALTER COLUMN name DROP NOT NULL,
  DROP CONSTRAINT collaborator_history_cpf_check,
  ADD CONSTRAINT collaborator_history_cpf_check CHECK (cpf ~ '^([0-9]{11}|erased-[0-9]+)$');
ALTER TABLE punches
  ALTER COLUMN latitude DROP NOT NULL,
  ALTER COLUMN longitude DROP NOT NULL,
  ALTER COLUMN address DROP NOT NULL;
ALTER TABLE adjustment_requests
  ALTER COLUMN collaborator_reason DROP NOT NULL,
  ALTER COLUMN manager_observation DROP NOT NULL,
  ALTER COLUMN approved_by DROP NOT NULL;
ALTER TABLE absences
  ALTER COLUMN description DROP NOT NULL,
  ALTER COLUMN details DROP NOT NULL,
  ALTER COLUMN cr_register DROP NOT NULL,
  ALTER COLUMN professional_name DROP NOT NULL,
  ALTER COLUMN health_unit DROP NOT NULL,
  ALTER COLUMN cid_description DROP NOT NULL,
  ALTER COLUMN cid DROP NOT NULL;

COMMENT ON COLUMN collaborators.cpf IS 'Individual taxpayer number (CPF), 11 digits with leading zeros (spec 2.1 national_registry), or erased-<id> once the person was erased (erasures). Natural key with company_cnpj.';
COMMENT ON COLUMN collaborators.registration_number IS 'Registration (matrícula) number (spec 2.1); null once erased.';
COMMENT ON COLUMN collaborators.email IS 'E-mail (spec 2.1); null once erased.';
COMMENT ON COLUMN collaborators.name IS 'Full name (spec 2.1); null once erased.';
COMMENT ON COLUMN collaborators.pis IS 'PIS social-security number (spec 2.1); null once erased.';
COMMENT ON COLUMN collaborator_history.cpf IS 'CPF of the collaborator, 11 digits with leading zeros, or erased-<id> once erased (erasures). Natural key with company_cnpj and valid_from.';
COMMENT ON COLUMN collaborator_history.registration_number IS 'Registration (matrícula) number in this version (spec 2.1); null once erased.';
COMMENT ON COLUMN collaborator_history.email IS 'E-mail in this version (spec 2.1); null once erased.';
COMMENT ON COLUMN collaborator_history.name IS 'Name in this version (spec 2.1); null once erased.';
COMMENT ON COLUMN punches.latitude IS 'Latitude in decimal degrees (spec 2.12 geolocation.lat); null once erased.';
COMMENT ON COLUMN punches.longitude IS 'Longitude in decimal degrees (spec 2.12 geolocation.lng); null once erased.';
COMMENT ON COLUMN punches.address IS 'Reverse-geocoded address of the punch (spec 2.12 address); null once erased.';
COMMENT ON COLUMN adjustment_requests.collaborator_reason IS 'The collaborator''s justification (spec 2.9); null once erased.';
COMMENT ON COLUMN adjustment_requests.manager_observation IS 'The manager''s observation (spec 2.9); null once erased.';
COMMENT ON COLUMN adjustment_requests.approved_by IS 'Who decided the request (spec 2.9 approved_by); null once erased.';
COMMENT ON COLUMN absences.description IS 'Short description (spec 2.5); null once erased.';
COMMENT ON COLUMN absences.details IS 'Details (spec 2.5); null once erased.';
COMMENT ON COLUMN absences.cr_register IS 'Council registration of the health professional (spec 2.5 cr_register); null once erased.';
COMMENT ON COLUMN absences.professional_name IS 'Name of the health professional (spec 2.5); null once erased.';
COMMENT ON COLUMN absences.health_unit IS 'Health unit (spec 2.5); null once erased.';
COMMENT ON COLUMN absences.cid_description IS 'Description of the diagnosis (spec 2.5 cid_description); null once erased.';
COMMENT ON COLUMN absences.cid IS 'Diagnosis codes, CID/ICD (spec 2.5 cid); null once erased.';
