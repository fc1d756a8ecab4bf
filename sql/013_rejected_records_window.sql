-- 013_rejected_records_window: a rejected record is followed by its record, not by the
-- window it was first read in. The schedules read windows that shift every day, so a
-- rejection seen again in an overlapping window keeps its one row, narrowed to the days
-- both windows share, and a later sync resolves it once its window covers the days the
-- record names (src/sync/load-records.ts). Comments only: what the window columns now mean.

COMMENT ON COLUMN rejected_records.window_start IS 'First day of the windows that read the record (narrowed to the days they share when it was seen again in a window that overlaps); null for lists without a window.';
COMMENT ON COLUMN rejected_records.window_end IS 'Last day of the windows that read the record (inclusive; narrowed like window_start); null for lists without a window.';
COMMENT ON COLUMN rejected_records.resolved_at IS 'When a later sync whose window covered the days the record names no longer rejected it (the API fixed or dropped it); null while it stands.';
COMMENT ON COLUMN rejected_records.json_path IS 'Where the rejected record sat in the answer that last rejected it, e.g. data[12].days[3].points[1] (for an endpoint read one call per day, in that day''s answer).';
