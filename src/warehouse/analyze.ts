/**
 * Statistics after bulk loads: the planner decides by each table's row estimates, which
 * only `ANALYZE` refreshes. Autovacuum gets to a table written in bulk late (and never
 * within the transaction of the next query), so right after a backfill the estimates of
 * a table that went from nothing to millions of rows still said "empty", and the first
 * queries were planned on that. `analyzeWritten` analyses the tables of the schema that
 * changed enough since their last analysis, each with one `ANALYZE` (a sample of rows, not
 * a scan: a fraction of a second even on a large table).
 */
import { quoteIdent, type SqlRunner } from './db.js';

/** Which tables count as written: at least this many rows changed, and this share of the rows. */
export interface AnalyzeThreshold {
  readonly minRows: number;
  readonly minShare: number;
}

/** After a backfill: every table never analysed, and those it changed by a few percent. */
export const AFTER_BACKFILL: AnalyzeThreshold = { minRows: 0, minShare: 0.05 };
/** After the loads of a window: only bulk writes (autovacuum keeps up with the rest). */
export const AFTER_LARGE_WINDOW: AnalyzeThreshold = { minRows: 20_000, minShare: 0.2 };

/**
 * Analyses every table of `schema` whose rows changed since its last analysis by at least
 * the threshold (a table never analysed counts all its changes); returns their names.
 */
export async function analyzeWritten(
  db: SqlRunner,
  schema: string,
  threshold: AnalyzeThreshold,
): Promise<string[]> {
  const { rows } = await db.query(
    `SELECT relname FROM pg_stat_user_tables
      WHERE schemaname = $1 AND n_mod_since_analyze >= $2
        AND (coalesce(last_analyze, last_autoanalyze) IS NULL OR n_mod_since_analyze >= $3::float8 * greatest(n_live_tup, 1))
      ORDER BY relname`,
    [schema, threshold.minRows, threshold.minShare],
  );
  const tables = rows.map((r) => String(r.relname));
  for (const table of tables) await db.query(`ANALYZE ${quoteIdent(schema)}.${quoteIdent(table)}`);
  return tables;
}
