/**
 * The items a follow-up window fetches one by one, read from what the parent window
 * loaded: absences with `has_attachment` (spec 2.5) and punches with `has_audit_photo`
 * (spec 2.12). Items already stored are left out unless forced: attachments and audit
 * photos do not change once written.
 */
import type { Queryable } from './run-records.js';
import type { DateWindow } from './windows.js';

const q = (schema: string, table: string) => `"${schema}"."${table}"`;

/** Ids of the company's current absences overlapping `w` that have attachments. */
export async function absencesWithAttachments(
  db: Queryable,
  schema: string,
  company: string,
  w: DateWindow,
  force: boolean,
): Promise<number[]> {
  const res = await db.query(
    `select a.absence_id from ${q(schema, 'absences')} a
      where a.company_cnpj = $1 and a.deleted_at is null and a.has_attachment
        and a.begins_at_local <= $3::timestamp and a.ends_at_local >= $2::timestamp
        ${force ? '' : `and not exists (select 1 from ${q(schema, 'absence_attachments')} x where x.absence_id = a.absence_id)`}
      order by a.absence_id`,
    [company, `${w.from} 00:00:00`, `${w.to} 23:59:59`],
  );
  return res.rows.map((r) => Number(r.absence_id));
}

/** Ids of the company's current punches of `w` that have an audit photo. */
export async function punchesWithAuditPhoto(
  db: Queryable,
  schema: string,
  company: string,
  w: DateWindow,
  force: boolean,
): Promise<number[]> {
  const res = await db.query(
    `select p.point_id from ${q(schema, 'punches')} p
      where p.company_cnpj = $1 and p.deleted_at is null and p.has_audit_photo
        and p.work_date between $2::date and $3::date
        ${force ? '' : `and not exists (select 1 from ${q(schema, 'audit_photos')} x where x.point_id = p.point_id)`}
      order by p.point_id`,
    [company, w.from, w.to],
  );
  return res.rows.map((r) => Number(r.point_id));
}
