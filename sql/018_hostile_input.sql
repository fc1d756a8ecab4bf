-- 018_hostile_input: what hostile or broken input needs from the warehouse.
-- rejected_records.cpf keeps the CPF of the element a rejected record was taken from
-- (a punch salvaged out of a collaborator's element carries no CPF of its own), so that
-- punchline forget finds every rejected record of the person.
-- erasures.names keeps the names an erased person was known by, so that every later
-- sync replaces them where they name the person in other rows (the manager who adjusted
-- or approved someone else's punch) and in texts; readable by the owner only, like cpf.
-- schema_drift gains the kind cleaned_value: a text the warehouse cannot store (a NUL
-- character) was stored without it, instead of failing its window at every retry.
-- See docs/privacy.md and docs/operations.md.

ALTER TABLE rejected_records ADD COLUMN cpf text CHECK (cpf ~ '^[0-9]{11}$');
CREATE INDEX rejected_records_cpf_idx ON rejected_records (cpf) WHERE cpf IS NOT NULL;
COMMENT ON COLUMN rejected_records.cpf IS 'CPF (11 digits) of the element the record was taken from, when the element named one (a punch taken out of a collaborator''s days carries none itself): how punchline forget finds the person''s rejected records. Null when the element named no valid CPF.';

ALTER TABLE erasures ADD COLUMN names text[];
COMMENT ON COLUMN erasures.names IS 'Names the erased person was known by in the company (from the rows erased): every sync of the company replaces them with the tombstone where they name the person in other rows and texts (e.g. as the manager who adjusted someone else''s punch). Readable by the warehouse owner only; null once lifted.';
-- workforce_reader reads the columns granted by 011 only; names is not among them.

ALTER TABLE schema_drift
  DROP CONSTRAINT schema_drift_kind_check,
  ADD CONSTRAINT schema_drift_kind_check CHECK (kind IN ('new_value', 'unknown_field', 'cleaned_value'));
COMMENT ON TABLE schema_drift IS 'What the API sent that its specification does not say: a value of a list the source owns not seen before (a new punch origin, adjustment status or hour-bank regime), a field no schema names, or a text holding a character the warehouse cannot store (a NUL), stored without it. None stops the sync; punchline status and /metrics show them. Written by punchline.';
COMMENT ON COLUMN schema_drift.kind IS 'new_value (a value outside the known list of field), unknown_field (a field the schema does not name) or cleaned_value (values of a column stored without a NUL character).';
COMMENT ON COLUMN schema_drift.field IS 'The field: point.origin, adjustment.status, overtime.regime for values; a path such as days[].points[].selfie_url for unknown fields; the warehouse column, such as departments.description, for cleaned values.';
