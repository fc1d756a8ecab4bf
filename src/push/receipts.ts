/**
 * The `push_receipts` table (sql/010_push_receipts.sql, 017): one row per entity `punchline push
 * --apply` created, and per row a run has claimed and not settled (claims.ts): the record of what
 * punchline wrote, when, and from which line. No read of the API shows a face photo, so the photo
 * check before writing reads these receipts.
 */
import type { NotNull } from 'kysely';
import { PermanentSyncError } from '../load/errors.js';
import { warehouseDb, type SqlRunner } from '../warehouse/db.js';
import type { CheckContext } from './kind.js';

/** When, and from which file and line, the entities among `keys` of one kind and company were created. */
export async function findReceipts(ctx: CheckContext, kind: string, keys: readonly string[]) {
  const rows = await warehouseDb(ctx.db, ctx.schema)
    .selectFrom('push_receipts')
    .select(['row_key', 'created_at as createdAt', 'source_file as file', 'source_line as line'])
    .where('company_cnpj', '=', ctx.company)
    .where('kind', '=', kind)
    .where('row_key', '=', (eb) => eb.fn.any(eb.val([...keys])))
    .where('state', '=', 'created')
    .$narrowType<{ createdAt: NotNull; file: NotNull; line: NotNull }>()
    .execute();
  return new Map(rows.map(({ row_key, ...stored }) => [row_key, stored]));
}

/** Fails with a clear message when the warehouse predates `push_receipts` (run `punchline migrate`). */
export async function checkReceiptsTable(db: SqlRunner, schema: string): Promise<void> {
  try {
    await warehouseDb(db, schema).selectFrom('push_receipts').select('row_key').limit(1).execute();
  } catch (err) {
    if ((err as { code?: string }).code !== '42P01') throw err;
    throw new PermanentSyncError(
      'warehouse_not_migrated',
      `the warehouse schema "${schema}" has no push_receipts table yet (run punchline migrate first)`,
    );
  }
}
