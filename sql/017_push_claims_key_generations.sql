-- 017_push_claims_key_generations: two guards against writers that race each other.
--
-- 1. push_receipts also holds claims. `punchline push --apply` claims each row before
--    its write (state 'claimed', with the number of the run that holds it) and records
--    the outcome after, so two runs of one file at once, or a rerun while the first is
--    still writing, never send a row twice. A claim left without an outcome (a run that
--    was killed, or a write without a conclusive answer) is resolved by reading the API
--    before anything is written for that row again (src/push/claims.ts).
-- 2. pseudonym_keys numbers the pseudonym keys in the order they came into use, and
--    every mapping of cpf_pseudonyms carries the generation of the key that computed it.
--    A worker still running with an older key after a rotation can no longer overwrite
--    the mappings of the newer one (src/warehouse/pseudonyms.ts).

ALTER TABLE push_receipts
  ADD COLUMN state text NOT NULL DEFAULT 'created' CHECK (state IN ('claimed', 'created')),
  ADD COLUMN claim_run bigint,
  ADD COLUMN claimed_at timestamptz;
ALTER TABLE push_receipts ALTER COLUMN created_at DROP NOT NULL, ALTER COLUMN created_at DROP DEFAULT;
ALTER TABLE push_receipts ALTER COLUMN state DROP DEFAULT;
ALTER TABLE push_receipts ADD CONSTRAINT push_receipts_created_at CHECK ((state = 'created') = (created_at IS NOT NULL));

COMMENT ON TABLE push_receipts IS 'Entities punchline push --apply created through the write endpoints (spec 4.2), and the rows it is writing or could not confirm (claims). Written by punchline itself, not read from the API. A row is claimed before its write and marked created after it; a row pushed again after its entity disappeared from the API is claimed and created again.';
COMMENT ON COLUMN push_receipts.state IS 'created: the API answered success. claimed: a push run took the row and has not recorded an outcome: still writing (claim_run set, the run alive), or killed or without a conclusive answer, in which case the next push reads the API before writing it.';
COMMENT ON COLUMN push_receipts.claim_run IS 'Number of the push run that holds the claim while it writes (its session holds the advisory lock of this number); null once the outcome is recorded or when the write''s outcome is unknown.';
COMMENT ON COLUMN push_receipts.claimed_at IS 'When the row was last claimed.';
COMMENT ON COLUMN push_receipts.created_at IS 'When the API answered success; null while the row is only claimed.';

CREATE SEQUENCE pseudonym_key_generations;
CREATE TABLE pseudonym_keys (
  key_id       text PRIMARY KEY,
  generation   bigint NOT NULL UNIQUE DEFAULT nextval('pseudonym_key_generations'),
  activated_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE pseudonym_keys IS 'Every pseudonym key punchline used on this warehouse, by fingerprint (never the key), numbered in the order they came into use. The key of the highest generation is the current one; pseudonyms of an older key are never written over a newer key''s.';
COMMENT ON COLUMN pseudonym_keys.key_id IS 'Fingerprint of the key (a keyed hash, not the key), as in cpf_pseudonyms.key_id. Key.';
COMMENT ON COLUMN pseudonym_keys.generation IS 'Order in which the key became current: a key used for the first time, or made current again by punchline pseudonyms, takes the next number.';
COMMENT ON COLUMN pseudonym_keys.activated_at IS 'When the key last became current.';

-- The keys already in use, the one that computed the latest pseudonyms last.
INSERT INTO pseudonym_keys (key_id, activated_at)
SELECT key_id, min(computed_at) FROM cpf_pseudonyms GROUP BY key_id ORDER BY max(computed_at);

ALTER TABLE cpf_pseudonyms ADD COLUMN key_generation bigint;
UPDATE cpf_pseudonyms p SET key_generation = k.generation FROM pseudonym_keys k WHERE k.key_id = p.key_id;
ALTER TABLE cpf_pseudonyms ALTER COLUMN key_generation SET NOT NULL;
COMMENT ON COLUMN cpf_pseudonyms.key_generation IS 'Generation of the key that computed the pseudonym (pseudonym_keys.generation): a mapping is only ever replaced by one of a newer generation.';
