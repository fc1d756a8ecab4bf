-- 002_companies_collaborators: who the data is about.
-- companies (one row per CNPJ seen through GET company and GET economic-group),
-- collaborators (current attributes per company and CPF, from the authoritative
-- GET collaborator list plus collaborators only seen in period data) and
-- collaborator_history (SCD type 2 of the tracked attributes, docs/architecture.md "Collaborator history").
-- CPF and CNPJ are text so that leading zeros survive (spec 1.2).

CREATE TABLE companies (
  cnpj             text PRIMARY KEY CHECK (cnpj ~ '^[0-9]{14}$'),
  name             text NOT NULL,
  trading_name     text NOT NULL,
  cei              text,
  caepf            text,
  cno              text,
  address          text,
  address_number   text,
  complement       text,
  neighborhood     text,
  zip_code         text,
  phone            text,
  email            text,
  is_headquarter   boolean,
  headquarter_cnpj text CHECK (headquarter_cnpj ~ '^[0-9]{14}$'),
  synced_at        timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE companies IS 'Companies of the economic group: one row per CNPJ. Source: GET /customer/v2/company (spec 2.2) and GET /customer/v2/economic-group (spec 2.3).';
COMMENT ON COLUMN companies.cnpj IS 'Company registry number (CNPJ), 14 digits with leading zeros. Natural key.';
COMMENT ON COLUMN companies.name IS 'Legal name (spec 2.2 name).';
COMMENT ON COLUMN companies.trading_name IS 'Trading name (spec 2.2 trading_name).';
COMMENT ON COLUMN companies.cei IS 'CEI tax identifier, null when the company has none or only its economic-group entry is known (spec 2.2).';
COMMENT ON COLUMN companies.caepf IS 'CAEPF tax identifier, null when none (spec 2.2).';
COMMENT ON COLUMN companies.cno IS 'CNO tax identifier, null when none (spec 2.2).';
COMMENT ON COLUMN companies.address IS 'Street address (spec 2.2); null when only the economic-group entry is known.';
COMMENT ON COLUMN companies.address_number IS 'Street number (spec 2.2).';
COMMENT ON COLUMN companies.complement IS 'Address complement (spec 2.2).';
COMMENT ON COLUMN companies.neighborhood IS 'Neighbourhood (spec 2.2).';
COMMENT ON COLUMN companies.zip_code IS 'Postal code (CEP), digits (spec 2.2).';
COMMENT ON COLUMN companies.phone IS 'Phone number, digits (spec 2.2).';
COMMENT ON COLUMN companies.email IS 'Contact e-mail (spec 2.2).';
COMMENT ON COLUMN companies.is_headquarter IS 'True for the headquarters of the economic group, false for a branch, null when the group listing was not seen (spec 2.3 is_headquarter).';
COMMENT ON COLUMN companies.headquarter_cnpj IS 'CNPJ of the headquarters of this company''s economic group (equal to cnpj for the headquarters); null when unknown (spec 1.4).';
COMMENT ON COLUMN companies.synced_at IS 'When punchline last inserted or changed this row (a reload that finds nothing new leaves it as is).';

CREATE TABLE collaborators (
  company_cnpj        text NOT NULL CHECK (company_cnpj ~ '^[0-9]{14}$'),
  cpf                 text NOT NULL CHECK (cpf ~ '^[0-9]{11}$'),
  registration_number text NOT NULL,
  email               text NOT NULL,
  name                text NOT NULL,
  occupation          text NOT NULL,
  department          text NOT NULL,
  team                text,
  business_unit       text NOT NULL,
  admission_date      date NOT NULL,
  pis                 text NOT NULL,
  active              boolean NOT NULL,
  source              text NOT NULL CHECK (source IN ('list', 'period')),
  first_seen_at       timestamptz NOT NULL DEFAULT now(),
  synced_at           timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_cnpj, cpf)
);
CREATE INDEX collaborators_cpf_idx ON collaborators (cpf);
COMMENT ON TABLE collaborators IS 'Collaborators (employees) per company, current attributes. Source: GET /customer/v2/collaborator (the authoritative list of active collaborators, spec 4.1), plus collaborators that list lacks but period data shows (usually dismissed). Rows are never deleted; see active.';
COMMENT ON COLUMN collaborators.company_cnpj IS 'CNPJ of the employing company (collaborator block company.national_registry, spec 2.1). Natural key with cpf.';
COMMENT ON COLUMN collaborators.cpf IS 'Individual taxpayer number (CPF), 11 digits with leading zeros (spec 2.1 national_registry). Natural key with company_cnpj.';
COMMENT ON COLUMN collaborators.registration_number IS 'Registration (matrícula) number (spec 2.1).';
COMMENT ON COLUMN collaborators.email IS 'E-mail (spec 2.1).';
COMMENT ON COLUMN collaborators.name IS 'Full name (spec 2.1).';
COMMENT ON COLUMN collaborators.occupation IS 'Occupation name (spec 2.1); see occupations for the lookup list.';
COMMENT ON COLUMN collaborators.department IS 'Department name (spec 2.1); see departments for the lookup list.';
COMMENT ON COLUMN collaborators.team IS 'Team name, null when none (spec 2.1).';
COMMENT ON COLUMN collaborators.business_unit IS 'Business unit name (spec 2.1 business_unit).';
COMMENT ON COLUMN collaborators.admission_date IS 'Formal admission date (spec 2.1).';
COMMENT ON COLUMN collaborators.pis IS 'PIS social-security number (spec 2.1).';
COMMENT ON COLUMN collaborators.active IS 'True while the collaborator is in GET /customer/v2/collaborator (active collaborators); false once no longer listed (dismissed) or when only seen in period data.';
COMMENT ON COLUMN collaborators.source IS 'list = attributes from the authoritative collaborator list; period = only seen in period data (punches, totals, absences...), attributes as that data carried them.';
COMMENT ON COLUMN collaborators.first_seen_at IS 'When punchline first stored this collaborator.';
COMMENT ON COLUMN collaborators.synced_at IS 'When punchline last inserted or changed this row (a reload that finds nothing new leaves it as is).';

CREATE TABLE collaborator_history (
  company_cnpj        text NOT NULL CHECK (company_cnpj ~ '^[0-9]{14}$'),
  cpf                 text NOT NULL CHECK (cpf ~ '^[0-9]{11}$'),
  valid_from          timestamptz NOT NULL,
  valid_to            timestamptz,
  registration_number text NOT NULL,
  email               text NOT NULL,
  name                text NOT NULL,
  occupation          text NOT NULL,
  department          text NOT NULL,
  team                text,
  business_unit       text NOT NULL,
  synced_at           timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_cnpj, cpf, valid_from),
  CHECK (valid_to IS NULL OR valid_to > valid_from)
);
-- At most one open version per collaborator.
CREATE UNIQUE INDEX collaborator_history_open_idx ON collaborator_history (company_cnpj, cpf) WHERE valid_to IS NULL;
CREATE INDEX collaborator_history_cpf_idx ON collaborator_history (cpf, valid_from);
COMMENT ON TABLE collaborator_history IS 'Slowly changing dimension (type 2) of collaborators: one row per version of the tracked attributes (department, occupation, team, business unit, e-mail, name, registration), as observed in GET /customer/v2/collaborator. The version valid at instant T has valid_from <= T < coalesce(valid_to, infinity).';
COMMENT ON COLUMN collaborator_history.company_cnpj IS 'CNPJ of the employing company. Natural key with cpf and valid_from.';
COMMENT ON COLUMN collaborator_history.cpf IS 'CPF of the collaborator, 11 digits with leading zeros. Natural key with company_cnpj and valid_from.';
COMMENT ON COLUMN collaborator_history.valid_from IS 'When punchline first observed this version of the attributes (the first version starts when the collaborator was first synced, not at admission).';
COMMENT ON COLUMN collaborator_history.valid_to IS 'When punchline observed the next version; null for the current version.';
COMMENT ON COLUMN collaborator_history.registration_number IS 'Registration (matrícula) number in this version (spec 2.1).';
COMMENT ON COLUMN collaborator_history.email IS 'E-mail in this version (spec 2.1).';
COMMENT ON COLUMN collaborator_history.name IS 'Name in this version (spec 2.1).';
COMMENT ON COLUMN collaborator_history.occupation IS 'Occupation name in this version (spec 2.1).';
COMMENT ON COLUMN collaborator_history.department IS 'Department name in this version (spec 2.1).';
COMMENT ON COLUMN collaborator_history.team IS 'Team name in this version, null when none (spec 2.1).';
COMMENT ON COLUMN collaborator_history.business_unit IS 'Business unit name in this version (spec 2.1).';
COMMENT ON COLUMN collaborator_history.synced_at IS 'When punchline last wrote this row (opened or closed the version).';
