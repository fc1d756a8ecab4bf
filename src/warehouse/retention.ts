/**
 * Retention of the tables that grow with every run: the nightly tick deletes rows older
 * than the configured days. A log-like table added later joins with a rule here, a
 * `<TABLE>_RETENTION_DAYS` variable in src/config.ts and a line in docs/configuration.md.
 */
import type { Config, RetainedTable } from '../config.js';
import type { Logger } from '../logger.js';
import { quoteIdent, type SqlRunner } from './db.js';

/** How one table is trimmed. */
export interface RetentionRule {
  readonly table: RetainedTable;
  /** Its key column, by which rows are deleted in batches. */
  readonly key: string;
  /** Timestamp column that dates a row. */
  readonly timeColumn: string;
  /** Rows kept whatever their age: a `select <key> from $table` query (`$table` the qualified name). */
  readonly keep?: string;
}

/** The tables trimmed by the nightly schedule. */
export const RETENTION_RULES: readonly RetentionRule[] = [
  {
    table: 'sync_runs',
    key: 'id',
    timeColumn: 'started_at',
    // The sync_freshness view is the last success per company × resource: that run stays,
    // or a company that stopped syncing would vanish from freshness instead of going stale.
    keep:
      "select distinct on (company_cnpj, resource) id from $table where status = 'succeeded' " +
      'order by company_cnpj, resource, finished_at desc',
  },
  {
    table: 'rejected_records',
    key: 'id',
    // Dated by when a later sync resolved them: open rejections (resolved_at null) stay
    // whatever their age, since status lists them until the source sends them right.
    timeColumn: 'resolved_at',
  },
  {
    table: 'quality_checks',
    // The table has a natural key of six columns and no single one; rows are never updated.
    key: 'ctid',
    timeColumn: 'checked_at',
    // quality_status is the latest run of each check, company and part: those rows stay, however old.
    keep:
      'select q.ctid from $table q where q.checked_at = (select max(l.checked_at) from $table l ' +
      'where l.check_name = q.check_name and l.company_cnpj = q.company_cnpj and l.part = q.part)',
  },
];

/** Rows deleted per statement: big enough to be quick, small enough not to hold locks long. */
const RETENTION_BATCH = 5_000;

/** The statement that deletes one batch of rows of `rule` older than `$1` (pure; Postgres has no DELETE ... LIMIT). */
export function buildRetentionDelete(schema: string, rule: RetentionRule, batch = RETENTION_BATCH): string {
  const table = `${quoteIdent(schema)}.${quoteIdent(rule.table)}`;
  const key = quoteIdent(rule.key);
  const keep = rule.keep ? ` and ${key} not in (${rule.keep.replaceAll('$table', table)})` : '';
  return (
    `delete from ${table} where ${key} in (` +
    `select ${key} from ${table} where ${quoteIdent(rule.timeColumn)} < $1${keep} limit ${batch})`
  );
}

/** Rows deleted per table. */
export type RetentionResult = Partial<Record<RetainedTable, number>>;

/** Options of {@link applyRetention}. */
export interface RetentionOptions {
  /** Clock (tests). */
  readonly now?: Date;
  /** Rows per statement (default {@link RETENTION_BATCH}). */
  readonly batch?: number;
}

/** Deletes, for each rule with a retention, the rows older than its days; returns rows lost per table. */
export async function applyRetention(
  db: SqlRunner,
  schema: string,
  days: Readonly<Record<RetainedTable, number>>,
  options: RetentionOptions = {},
): Promise<RetentionResult> {
  const now = options.now ?? new Date();
  const batch = options.batch ?? RETENTION_BATCH;
  const result: RetentionResult = {};
  for (const rule of RETENTION_RULES) {
    const keepDays = days[rule.table];
    if (!keepDays) continue;
    const before = new Date(now.getTime() - keepDays * 86_400_000);
    const sql = buildRetentionDelete(schema, rule, batch);
    let deleted = 0;
    for (;;) {
      const { rowCount } = await db.query(sql, [before]);
      deleted += rowCount ?? 0;
      if ((rowCount ?? 0) < batch) break;
    }
    result[rule.table] = deleted;
  }
  return result;
}

/** What the nightly tick hands over: the warehouse, the retention settings, the logger. */
export interface NightlyRetentionContext {
  readonly config: Pick<Config, 'retentionDays'>;
  readonly warehouse: { readonly pool: SqlRunner; readonly schema: string };
  readonly logger: Logger;
}

/** Applies retention from the nightly tick; a failure is logged, not thrown, so the night's sync goes on. */
export async function runNightlyRetention(
  rt: NightlyRetentionContext,
  now: Date = new Date(),
): Promise<void> {
  try {
    const deleted = await applyRetention(rt.warehouse.pool, rt.warehouse.schema, rt.config.retentionDays, {
      now,
    });
    rt.logger.info({ deleted, retentionDays: rt.config.retentionDays }, 'retention applied');
  } catch (err) {
    rt.logger.error({ err }, 'retention failed; old rows are kept until the next night');
  }
}
