/**
 * Receipts of `punchline push` planted straight into `push_receipts`, for tests of what
 * reads or erases them (a push run claims and records its own, src/push/claims.ts).
 */
import { quoteIdent, type SqlRunner } from '../../src/warehouse/db.js';

/** A receipt as written after a successful write. */
export interface Receipt {
  /** CNPJ of the token's company. */
  readonly company: string;
  /** Push kind. */
  readonly kind: string;
  /** The entity's key within the kind. */
  readonly key: string;
  /** Id the API returned, if any. */
  readonly createdId?: string;
  /** Connection name. */
  readonly connection: string;
  /** Input file and line. */
  readonly file: string;
  readonly line: number;
}

/** Records (or refreshes) the receipt of a created entity, whatever claim its row had. */
export async function recordReceipt(db: SqlRunner, schema: string, r: Receipt): Promise<void> {
  await db.query(
    `insert into ${quoteIdent(schema)}.push_receipts (company_cnpj, kind, row_key, state, created_id, connection, source_file, source_line, created_at)
     values ($1, $2, $3, 'created', $4, $5, $6, $7, now())
     on conflict (company_cnpj, kind, row_key) do update set state = 'created', claim_run = null, created_id = excluded.created_id,
       connection = excluded.connection, source_file = excluded.source_file, source_line = excluded.source_line, created_at = now()`,
    [r.company, r.kind, r.key, r.createdId ?? null, r.connection, r.file, r.line],
  );
}
