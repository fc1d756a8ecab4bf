/**
 * The `push_receipts` table (sql/010_push_receipts.sql, 017): one row per entity that
 * `punchline push --apply` created, and per row a run has claimed and not yet settled
 * (claims.ts). The face photo is the one write whose result no read of the API shows,
 * so its check before writing reads the receipts of created photos; for every kind they
 * are the record of what punchline wrote, when, and from which line.
 */
import { PermanentSyncError } from '../load/errors.js';
import type { Queryable } from '../runtime/run-records.js';
import { quoteIdent } from '../warehouse/db.js';

/** A receipt as read back. */
export interface StoredReceipt {
  /** When the write succeeded. */
  readonly createdAt: Date;
  /** Input file of that push. */
  readonly file: string;
  /** Its line. */
  readonly line: number;
}

/** The receipts of the created entities among `keys` of one kind and company, by key. */
export async function findReceipts(
  db: Queryable,
  schema: string,
  company: string,
  kind: string,
  keys: readonly string[],
): Promise<Map<string, StoredReceipt>> {
  const out = new Map<string, StoredReceipt>();
  if (keys.length === 0) return out;
  const r = await db.query(
    `select row_key, created_at, source_file, source_line from ${quoteIdent(schema)}.push_receipts
     where company_cnpj = $1 and kind = $2 and row_key = any($3::text[]) and state = 'created'`,
    [company, kind, [...keys]],
  );
  for (const row of r.rows) {
    out.set(String(row.row_key), {
      createdAt: new Date(row.created_at as string),
      file: String(row.source_file),
      line: Number(row.source_line),
    });
  }
  return out;
}

/** Fails with a clear message when the warehouse predates `push_receipts` (run `punchline migrate`). */
export async function checkReceiptsTable(db: Queryable, schema: string): Promise<void> {
  try {
    await db.query(`select 1 from ${quoteIdent(schema)}.push_receipts limit 1`);
  } catch (err) {
    if ((err as { code?: string }).code !== '42P01') throw err;
    throw new PermanentSyncError(
      'warehouse_not_migrated',
      `the warehouse schema "${schema}" has no push_receipts table yet (run punchline migrate first)`,
    );
  }
}
