/**
 * Audit photos of punches (spec 2.13, `point/audit`; opt-in with SYNC_AUDIT_PHOTOS since
 * they are faces): a follow-up of the punches window, one call per punch that has one
 * and is not stored yet. A punch or photo that is gone (404) is skipped.
 */
import { apiErrorHas } from '../api/errors.js';
import type { TableSpec } from '../warehouse/table-spec.js';
import { file, storedFile } from './column-classes.js';
import { defineResource, declareRead } from './declaration.js';

const tables = {
  audit_photos: {
    table: 'audit_photos',
    key: ['point_id'],
    columns: {
      point_id: 'int8',
      company_cnpj: 'text',
      filename: 'text',
      mime_type: 'text',
      size_bytes: 'int4',
      sha256: 'text',
      content: 'bytea',
    },
  },
} as const satisfies Record<string, TableSpec>;

/** `audit_photos`: the photos of one punches window per job. */
export const auditPhotos = defineResource({
  read: 'items',
  tables,
  optIn: 'syncAuditPhotos',
  recordId: 'point_id',
  privacy: {
    audit_photos: {
      excludedFromAnalysts: 'photos of faces (biometric data)',
      person: { table: 'punches', column: 'point_id' },
      erase: 'delete',
      columns: file('biometric', 'the photo of the face taken at the punch'),
    },
  },
  items: {
    parent: 'punches',
    list: async (db, company, w, force) => {
      const punches = await db
        .selectFrom('punches as p')
        .select('p.point_id')
        .where('p.company_cnpj', '=', company)
        .where('p.deleted_at', 'is', null)
        .where('p.has_audit_photo', '=', true)
        .where((eb) => eb.between('p.work_date', w.from, w.to))
        .$if(!force, (q) =>
          q.where(({ not, exists, selectFrom }) =>
            not(
              exists(
                selectFrom('audit_photos as x')
                  .select('x.point_id')
                  .whereRef('x.point_id', '=', 'p.point_id'),
              ),
            ),
          ),
        )
        .orderBy('p.point_id')
        .execute();
      return punches.map((r) => r.point_id);
    },
  },
  reads: [
    declareRead('items', tables, {
      endpoint: 'point/audit',
      query: ({ item }) => ({ point_id: item }),
      mismatch: (photo, { item }) =>
        photo.point_id === item
          ? undefined
          : `asked for point ${item}, the API answered point ${photo.point_id}`,
      gone: (err) => apiErrorHas(err, 'gone'),
      rows: (photo, out, x) =>
        out.audit_photos({
          point_id: photo.point_id,
          company_cnpj: x.company,
          filename: photo.filename,
          mime_type: photo.mime_type,
          ...storedFile(photo.base64, x.storeBinaries),
        }),
    }),
  ],
});
