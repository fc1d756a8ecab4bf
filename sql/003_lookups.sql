-- 003_lookups: the lookup lists of spec 2.4, one table each.
-- Keyed by (company_cnpj, id): ids belong to the company whose token listed them.
-- The API lists only active records, so a record no longer listed is kept with
-- active = false instead of being deleted (facts may still reference it by name).

CREATE TABLE departments (
  company_cnpj text NOT NULL CHECK (company_cnpj ~ '^[0-9]{14}$'),
  id           integer NOT NULL,
  description  text NOT NULL,
  active       boolean NOT NULL,
  synced_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_cnpj, id)
);
COMMENT ON TABLE departments IS 'Departments. Source: GET /customer/v2/department (spec 2.4). Active departments of the company. Never deleted: active = false once no longer listed.';
COMMENT ON COLUMN departments.company_cnpj IS 'CNPJ of the company whose token listed the record. Natural key with id.';
COMMENT ON COLUMN departments.id IS 'Identifier in the API (spec 2.4 id). Natural key with company_cnpj.';
COMMENT ON COLUMN departments.description IS 'Description as listed (spec 2.4 description).';
COMMENT ON COLUMN departments.active IS 'True while the API lists the record; false once it is no longer listed (inactive or removed).';
COMMENT ON COLUMN departments.synced_at IS 'When punchline last inserted or changed this row (a reload that finds nothing new leaves it as is).';

CREATE TABLE occupations (
  company_cnpj text NOT NULL CHECK (company_cnpj ~ '^[0-9]{14}$'),
  id           integer NOT NULL,
  description  text NOT NULL,
  active       boolean NOT NULL,
  synced_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_cnpj, id)
);
COMMENT ON TABLE occupations IS 'Occupations. Source: GET /customer/v2/occupation (spec 2.4). Active occupations (inactive ones are not listed). Never deleted: active = false once no longer listed.';
COMMENT ON COLUMN occupations.company_cnpj IS 'CNPJ of the company whose token listed the record. Natural key with id.';
COMMENT ON COLUMN occupations.id IS 'Identifier in the API (spec 2.4 id). Natural key with company_cnpj.';
COMMENT ON COLUMN occupations.description IS 'Description as listed (spec 2.4 description).';
COMMENT ON COLUMN occupations.active IS 'True while the API lists the record; false once it is no longer listed (inactive or removed).';
COMMENT ON COLUMN occupations.synced_at IS 'When punchline last inserted or changed this row (a reload that finds nothing new leaves it as is).';

CREATE TABLE cost_centers (
  company_cnpj text NOT NULL CHECK (company_cnpj ~ '^[0-9]{14}$'),
  id           integer NOT NULL,
  name         text NOT NULL,
  active       boolean NOT NULL,
  synced_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_cnpj, id)
);
COMMENT ON TABLE cost_centers IS 'Cost centers. Source: GET /customer/v2/cost-center (spec 2.4). Active cost centers. Never deleted: active = false once no longer listed.';
COMMENT ON COLUMN cost_centers.company_cnpj IS 'CNPJ of the company whose token listed the record. Natural key with id.';
COMMENT ON COLUMN cost_centers.id IS 'Identifier in the API (spec 2.4 id). Natural key with company_cnpj.';
COMMENT ON COLUMN cost_centers.name IS 'Name as listed (spec 2.4 name).';
COMMENT ON COLUMN cost_centers.active IS 'True while the API lists the record; false once it is no longer listed (inactive or removed).';
COMMENT ON COLUMN cost_centers.synced_at IS 'When punchline last inserted or changed this row (a reload that finds nothing new leaves it as is).';

CREATE TABLE units (
  company_cnpj text NOT NULL CHECK (company_cnpj ~ '^[0-9]{14}$'),
  id           integer NOT NULL,
  name         text NOT NULL,
  active       boolean NOT NULL,
  synced_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_cnpj, id)
);
COMMENT ON TABLE units IS 'Units. Source: GET /customer/v2/unit (spec 2.4). Active units (the default unit is listed first). Never deleted: active = false once no longer listed.';
COMMENT ON COLUMN units.company_cnpj IS 'CNPJ of the company whose token listed the record. Natural key with id.';
COMMENT ON COLUMN units.id IS 'Identifier in the API (spec 2.4 id). Natural key with company_cnpj.';
COMMENT ON COLUMN units.name IS 'Name as listed (spec 2.4 name).';
COMMENT ON COLUMN units.active IS 'True while the API lists the record; false once it is no longer listed (inactive or removed).';
COMMENT ON COLUMN units.synced_at IS 'When punchline last inserted or changed this row (a reload that finds nothing new leaves it as is).';

CREATE TABLE journeys (
  company_cnpj text NOT NULL CHECK (company_cnpj ~ '^[0-9]{14}$'),
  id           integer NOT NULL,
  description  text NOT NULL,
  active       boolean NOT NULL,
  synced_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_cnpj, id)
);
COMMENT ON TABLE journeys IS 'Journeys (escalas, work schedules). Source: GET /customer/v2/journey (spec 2.4). Active journeys used when creating collaborators. Never deleted: active = false once no longer listed.';
COMMENT ON COLUMN journeys.company_cnpj IS 'CNPJ of the company whose token listed the record. Natural key with id.';
COMMENT ON COLUMN journeys.id IS 'Identifier in the API (spec 2.4 id). Natural key with company_cnpj.';
COMMENT ON COLUMN journeys.description IS 'Description as listed (spec 2.4 description).';
COMMENT ON COLUMN journeys.active IS 'True while the API lists the record; false once it is no longer listed (inactive or removed).';
COMMENT ON COLUMN journeys.synced_at IS 'When punchline last inserted or changed this row (a reload that finds nothing new leaves it as is).';

CREATE TABLE point_rules (
  company_cnpj text NOT NULL CHECK (company_cnpj ~ '^[0-9]{14}$'),
  id           integer NOT NULL,
  description  text NOT NULL,
  active       boolean NOT NULL,
  synced_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_cnpj, id)
);
COMMENT ON TABLE point_rules IS 'Point rules. Source: GET /customer/v2/point-rule (spec 2.4). Active point (punch) rules. Never deleted: active = false once no longer listed.';
COMMENT ON COLUMN point_rules.company_cnpj IS 'CNPJ of the company whose token listed the record. Natural key with id.';
COMMENT ON COLUMN point_rules.id IS 'Identifier in the API (spec 2.4 id). Natural key with company_cnpj.';
COMMENT ON COLUMN point_rules.description IS 'Description as listed (spec 2.4 description).';
COMMENT ON COLUMN point_rules.active IS 'True while the API lists the record; false once it is no longer listed (inactive or removed).';
COMMENT ON COLUMN point_rules.synced_at IS 'When punchline last inserted or changed this row (a reload that finds nothing new leaves it as is).';

CREATE TABLE collaborator_settings (
  company_cnpj text NOT NULL CHECK (company_cnpj ~ '^[0-9]{14}$'),
  id           integer NOT NULL,
  description  text NOT NULL,
  active       boolean NOT NULL,
  synced_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_cnpj, id)
);
COMMENT ON TABLE collaborator_settings IS 'Collaborator settings packages (punch profile, validations, behaviours). Source: GET /customer/v2/collaborator-settings (spec 2.4). Active settings packages. Never deleted: active = false once no longer listed.';
COMMENT ON COLUMN collaborator_settings.company_cnpj IS 'CNPJ of the company whose token listed the record. Natural key with id.';
COMMENT ON COLUMN collaborator_settings.id IS 'Identifier in the API (spec 2.4 id). Natural key with company_cnpj.';
COMMENT ON COLUMN collaborator_settings.description IS 'Description as listed (spec 2.4 description).';
COMMENT ON COLUMN collaborator_settings.active IS 'True while the API lists the record; false once it is no longer listed (inactive or removed).';
COMMENT ON COLUMN collaborator_settings.synced_at IS 'When punchline last inserted or changed this row (a reload that finds nothing new leaves it as is).';

CREATE TABLE digital_fences (
  company_cnpj text NOT NULL CHECK (company_cnpj ~ '^[0-9]{14}$'),
  id           integer NOT NULL,
  name         text NOT NULL,
  active       boolean NOT NULL,
  synced_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_cnpj, id)
);
COMMENT ON TABLE digital_fences IS 'Digital fences (barriers, geofences). Source: GET /customer/v2/barrier (spec 2.4). Active fences. Never deleted: active = false once no longer listed.';
COMMENT ON COLUMN digital_fences.company_cnpj IS 'CNPJ of the company whose token listed the record. Natural key with id.';
COMMENT ON COLUMN digital_fences.id IS 'Identifier in the API (spec 2.4 id). Natural key with company_cnpj.';
COMMENT ON COLUMN digital_fences.name IS 'Name as listed (spec 2.4 name).';
COMMENT ON COLUMN digital_fences.active IS 'True while the API lists the record; false once it is no longer listed (inactive or removed).';
COMMENT ON COLUMN digital_fences.synced_at IS 'When punchline last inserted or changed this row (a reload that finds nothing new leaves it as is).';

CREATE TABLE dismissal_types (
  company_cnpj text NOT NULL CHECK (company_cnpj ~ '^[0-9]{14}$'),
  id           integer NOT NULL,
  name         text NOT NULL,
  active       boolean NOT NULL,
  synced_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_cnpj, id)
);
COMMENT ON TABLE dismissal_types IS 'Dismissal types (fired types). Source: GET /customer/v2/fired-type (spec 2.4). Registered dismissal types. Never deleted: active = false once no longer listed.';
COMMENT ON COLUMN dismissal_types.company_cnpj IS 'CNPJ of the company whose token listed the record. Natural key with id.';
COMMENT ON COLUMN dismissal_types.id IS 'Identifier in the API (spec 2.4 id). Natural key with company_cnpj.';
COMMENT ON COLUMN dismissal_types.name IS 'Name as listed (spec 2.4 name).';
COMMENT ON COLUMN dismissal_types.active IS 'True while the API lists the record; false once it is no longer listed (inactive or removed).';
COMMENT ON COLUMN dismissal_types.synced_at IS 'When punchline last inserted or changed this row (a reload that finds nothing new leaves it as is).';

CREATE TABLE absence_types (
  company_cnpj text NOT NULL CHECK (company_cnpj ~ '^[0-9]{14}$'),
  id           integer NOT NULL,
  description  text NOT NULL,
  paid_leave      boolean NOT NULL,
  comp_time       boolean NOT NULL,
  compensation    boolean NOT NULL,
  can_request_app boolean NOT NULL,
  active       boolean NOT NULL,
  synced_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_cnpj, id)
);
COMMENT ON TABLE absence_types IS 'Absence types, global and company-defined. Source: GET /customer/v2/absence/types (spec 2.4). Absence and leave types. Never deleted: active = false once no longer listed.';
COMMENT ON COLUMN absence_types.company_cnpj IS 'CNPJ of the company whose token listed the record. Natural key with id.';
COMMENT ON COLUMN absence_types.id IS 'Identifier in the API (spec 2.4 id). Natural key with company_cnpj.';
COMMENT ON COLUMN absence_types.description IS 'Description as listed (spec 2.4 description).';
COMMENT ON COLUMN absence_types.paid_leave IS 'Paid leave (spec 2.4 paid_leave).';
COMMENT ON COLUMN absence_types.comp_time IS 'Gives right to compensation, time off (spec 2.4 comp_time).';
COMMENT ON COLUMN absence_types.compensation IS 'Is a compensatory allowance (spec 2.4 compensation).';
COMMENT ON COLUMN absence_types.can_request_app IS 'The collaborator may request it in the mobile app (spec 2.4 can_request_app).';
COMMENT ON COLUMN absence_types.active IS 'True while the API lists the record; false once it is no longer listed (inactive or removed).';
COMMENT ON COLUMN absence_types.synced_at IS 'When punchline last inserted or changed this row (a reload that finds nothing new leaves it as is).';

