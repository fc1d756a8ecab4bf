-- 050_drift_bounds: schema_drift stays bounded whatever the API sends.
-- A source that sends a new value on every record (or a new field in every answer) would
-- grow schema_drift, and punchline status that lists it, without end. punchline keeps at
-- most 100 values of one field (or unknown fields of one endpoint) and 1,000 rows in all;
-- past that the field (or endpoint) gets one row of the new kind too_many, refreshed as
-- more arrive. Values are stored cleaned of control characters, a long one as its first
-- characters and a hash. See docs/operations.md "punchline status" and docs/architecture.md.

ALTER TABLE schema_drift
  DROP CONSTRAINT schema_drift_kind_check,
  ADD CONSTRAINT schema_drift_kind_check
    CHECK (kind IN ('new_value', 'unknown_field', 'cleaned_value', 'too_many'));
COMMENT ON COLUMN schema_drift.kind IS 'new_value (a value outside the known list of field), unknown_field (a field the schema does not name), cleaned_value (values of a column stored without a NUL character) or too_many (more new values of field, or unknown fields of endpoint, than punchline keeps: 100 per field or endpoint, 1,000 in all; the rest are only counted in /metrics).';
COMMENT ON COLUMN schema_drift.value IS 'The new value (new_value), without control characters; longer than 200 characters, its first 64, an ellipsis and a SHA-256 prefix of the whole. Empty for the other kinds.';
