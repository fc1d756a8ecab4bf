/**
 * The attachments of one absence (spec 2.6, `absence/attachment`): name, type, size and
 * SHA-256 always, bytes only when binaries are stored (turning it off clears bytes
 * already stored). Files the absence no longer lists get deleted_at.
 */
import type { AbsenceAttachment } from '../api/schemas.js';
import { describeFile } from './binary-file.js';
import { quoteIdent, type WarehouseHandle } from './db.js';
import { LoadError } from './errors.js';
import { runCounts, statsOf, sumStats, withTransaction, type LoadStats } from './load-stats.js';
import { columnsOf, type RowValues } from './rows.js';
import { buildUpsert, type BuiltQuery, type ColumnSpec } from './upsert-statement.js';

const COLUMNS: readonly ColumnSpec[] = [
  { name: 'absence_id', type: 'int8' },
  { name: 'filename', type: 'text' },
  { name: 'company_cnpj', type: 'text' },
  { name: 'mime_type', type: 'text' },
  { name: 'size_bytes', type: 'int4' },
  { name: 'sha256', type: 'text' },
  { name: 'content', type: 'bytea' },
];

/** The statement of an attachments load (pure); `companyCnpj` is the absence's company, if known. */
export function buildAbsenceAttachmentsLoad(
  schema: string,
  absenceId: number,
  companyCnpj: string | null,
  list: readonly AbsenceAttachment[],
  storeBinaries: boolean,
): BuiltQuery {
  if (!Number.isSafeInteger(absenceId)) {
    throw new LoadError('invalid_scope', 'absence_attachments', `absence_attachments: absence id ${absenceId} is not an integer`);
  }
  const rows: RowValues[] = list.map((a) => {
    const file = describeFile(a.base64, storeBinaries);
    return {
      absence_id: absenceId,
      filename: a.filename,
      company_cnpj: companyCnpj,
      mime_type: a.mime_type,
      size_bytes: file.sizeBytes,
      sha256: file.sha256,
      content: file.content,
    };
  });
  return buildUpsert(
    {
      schema,
      table: 'absence_attachments',
      key: ['absence_id', 'filename'],
      columns: COLUMNS,
      softDelete: true,
      missing: { mode: 'soft-delete', where: (p) => `t.absence_id = ${p(absenceId)}::int8` },
    },
    columnsOf(COLUMNS, rows, (r) => r.filename as string),
  );
}

/** Loads the attachments of one absence, in one transaction. */
export async function loadAbsenceAttachments(
  w: WarehouseHandle,
  absenceId: number,
  list: readonly AbsenceAttachment[],
  storeBinaries: boolean,
): Promise<LoadStats> {
  return withTransaction(w.pool, async (client) => {
    const { rows } = await client.query<{ company_cnpj: string }>(
      `SELECT company_cnpj FROM ${quoteIdent(w.schema)}.absences WHERE absence_id = $1`,
      [absenceId],
    );
    const query = buildAbsenceAttachmentsLoad(w.schema, absenceId, rows[0]?.company_cnpj ?? null, list, storeBinaries);
    return sumStats({ absence_attachments: statsOf(await runCounts(client, query)) });
  });
}
