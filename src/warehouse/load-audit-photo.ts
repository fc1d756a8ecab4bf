/**
 * One audit photo (spec 2.13, `point/audit`): name, type, size and SHA-256 always, the
 * bytes only when binaries are stored (turning it off clears bytes already stored).
 */
import type { AuditPhoto } from '../api/schemas.js';
import { describeFile } from './binary-file.js';
import { quoteIdent, type WarehouseHandle } from './db.js';
import { runCounts, statsOf, sumStats, withTransaction, type LoadStats } from './load-stats.js';
import { columnsOf } from './rows.js';
import { buildUpsert, type BuiltQuery, type ColumnSpec } from './upsert-statement.js';

const COLUMNS: readonly ColumnSpec[] = [
  { name: 'point_id', type: 'int8' },
  { name: 'company_cnpj', type: 'text' },
  { name: 'filename', type: 'text' },
  { name: 'mime_type', type: 'text' },
  { name: 'size_bytes', type: 'int4' },
  { name: 'sha256', type: 'text' },
  { name: 'content', type: 'bytea' },
];

/** The statement of an audit-photo load (pure); `companyCnpj` is the punch's company, if known. */
export function buildAuditPhotoLoad(schema: string, photo: AuditPhoto, companyCnpj: string | null, storeBinaries: boolean): BuiltQuery {
  const file = describeFile(photo.base64, storeBinaries);
  const row = {
    point_id: photo.point_id,
    company_cnpj: companyCnpj,
    filename: photo.filename,
    mime_type: photo.mime_type,
    size_bytes: file.sizeBytes,
    sha256: file.sha256,
    content: file.content,
  };
  return buildUpsert({ schema, table: 'audit_photos', key: ['point_id'], columns: COLUMNS }, columnsOf(COLUMNS, [row], (r) => r.point_id));
}

/** Loads one audit photo, in one transaction. */
export async function loadAuditPhoto(w: WarehouseHandle, photo: AuditPhoto, storeBinaries: boolean): Promise<LoadStats> {
  return withTransaction(w.pool, async (client) => {
    const { rows } = await client.query<{ company_cnpj: string }>(
      `SELECT company_cnpj FROM ${quoteIdent(w.schema)}.punches WHERE point_id = $1`,
      [photo.point_id],
    );
    const query = buildAuditPhotoLoad(w.schema, photo, rows[0]?.company_cnpj ?? null, storeBinaries);
    return sumStats({ audit_photos: statsOf(await runCounts(client, query)) });
  });
}
