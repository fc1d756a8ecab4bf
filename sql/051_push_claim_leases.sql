-- 051_push_claim_leases: push claims hold by a lease on their row, not by a session lock.
--
-- A push run used to hold a session advisory lock while it wrote, and a claim was alive
-- while its run's lock was held. A transaction-pooling proxy (pgbouncer pool_mode =
-- transaction) hands each statement to any server session, so a session lock is neither
-- held where it was taken nor seen by the next statement. A claim now carries its owner
-- (claim_run, the run's random number) and a lease (claim_expires_at): the owner renews
-- the lease while it works and gives it up when it ends; a claim whose lease ran out (a
-- run that was killed or lost its database) is taken over by one conditional UPDATE,
-- and the API is read again before anything is sent for it (src/push/claims.ts).

ALTER TABLE push_receipts ADD COLUMN claim_expires_at timestamptz;
-- Claims left by runs of the lock era: their runs are gone or will be, so each is to be resolved by reading the API.
UPDATE push_receipts SET claim_expires_at = now() WHERE state = 'claimed';

COMMENT ON COLUMN push_receipts.claim_run IS 'Number of the push run that owns the claim while it writes (random, one per run); null once the outcome is recorded or when the write''s outcome is unknown. The claim is the run''s while claim_expires_at is ahead.';
COMMENT ON COLUMN push_receipts.claim_expires_at IS 'End of the claim''s lease: its run renews it while it writes and ends it when the run ends. A claim without an outcome whose lease has passed (its run was killed) is taken over by the next push, which reads the API before writing the row. Null once the outcome is recorded.';
COMMENT ON COLUMN push_receipts.state IS 'created: the API answered success. claimed: a push run took the row and has not recorded an outcome: still writing (claim_run set and claim_expires_at ahead), or killed or without a conclusive answer, in which case the next push reads the API before writing it.';
