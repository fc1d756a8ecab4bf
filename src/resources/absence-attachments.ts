/**
 * Attachments of absences (spec 2.6, `absence/attachment`): a follow-up of the absences window, one
 * call per absence that has attachments and none stored yet. The files of an asked absence that the
 * API no longer lists get `deleted_at`; an absence that is gone (404 `not_found`) is skipped.
 */
import { apiErrorHas } from '../api/errors.js';
import type { TableSpec } from '../warehouse/table-spec.js';
import { file, storedFile } from './column-classes.js';
import { defineResource, declareRead } from './declaration.js';

const tables = {
  absence_attachments: {
    table: 'absence_attachments',
    key: ['absence_id', 'filename'],
    columns: {
      absence_id: 'int8',
      filename: 'text',
      company_cnpj: 'text',
      mime_type: 'text',
      size_bytes: 'int4',
      sha256: 'text',
      content: 'bytea',
    },
    softDelete: true,
    missing: { mode: 'soft-delete', where: (p, s) => `t.absence_id = ANY(${p(s.items ?? [])}::int8[])` },
  },
} as const satisfies Record<string, TableSpec>;

/** `absence_attachments`: the files of one absences window per job. */
export const absenceAttachments = defineResource({
  read: 'items',
  tables,
  recordId: 'absence_id',
  privacy: {
    absence_attachments: {
      excludedFromAnalysts: 'medical certificates and other attached documents (health data)',
      person: { table: 'absence_collaborators', column: 'absence_id' },
      erase: 'delete',
      columns: file('health', 'the attached document, often a medical certificate'),
    },
  },
  items: {
    parent: 'absences',
    list: async (db, company, w, force) => {
      const absences = await db
        .selectFrom('absences as a')
        .select('a.absence_id')
        .where('a.company_cnpj', '=', company)
        .where('a.deleted_at', 'is', null)
        .where('a.has_attachment', '=', true)
        .where('a.begins_at_local', '<=', `${w.to} 23:59:59`)
        .where('a.ends_at_local', '>=', `${w.from} 00:00:00`)
        .$if(!force, (q) =>
          q.where(({ not, exists, selectFrom }) =>
            not(
              exists(
                selectFrom('absence_attachments as x')
                  .select('x.absence_id')
                  .whereRef('x.absence_id', '=', 'a.absence_id'),
              ),
            ),
          ),
        )
        .orderBy('a.absence_id')
        .execute();
      return absences.map((r) => r.absence_id);
    },
  },
  reads: [
    declareRead('items', tables, {
      endpoint: 'absence/attachment',
      query: ({ item }) => ({ absence_id: item }),
      gone: (err) => apiErrorHas(err, 'gone'),
      rows: (file, out, x) =>
        out.absence_attachments({
          absence_id: x.item,
          filename: file.filename,
          company_cnpj: x.company,
          mime_type: file.mime_type,
          ...storedFile(file.base64, x.storeBinaries),
        }),
    }),
  ],
});
