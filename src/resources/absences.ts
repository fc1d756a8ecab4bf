/**
 * Absences (spec 2.5, `absence/getFromPeriod`, which takes date-time bounds) and the
 * collaborators they concern. The answer holds the absences overlapping the period, so the
 * window reconciles the company's absences overlapping it: those no longer returned get
 * `deleted_at`, and so do collaborators a returned absence no longer lists.
 */
import type { LoadScope, Param, TableSpec } from '../warehouse/table-spec.js';
import { stageName } from '../warehouse/staging.js';
import { collaboratorRecord } from './collaborators.js';
import { notPersonal, omitted, person, PERSON_COLUMNS } from './column-classes.js';
import { defineResource, declareRead } from './declaration.js';

/** Absences of the company overlapping the window (alias `alias`). */
const overlaps = (alias: string) => (p: Param, s: LoadScope) =>
  `${alias}.company_cnpj = ${p(s.company)} AND ${alias}.begins_at_local < (${p(s.to)}::date + 1) AND ${alias}.ends_at_local >= ${p(s.from)}::date`;

const tables = {
  absences: {
    table: 'absences',
    key: ['absence_id'],
    referredBy: [['absence_id']],
    columns: {
      absence_id: 'int8',
      company_cnpj: 'text',
      absence_type_id: 'int4',
      absence_type: 'text',
      description: 'text',
      details: 'text',
      begins_at_local: 'timestamp',
      begins_at: 'timestamptz',
      ends_at_local: 'timestamp',
      ends_at: 'timestamptz',
      days: 'int4',
      reference_date: 'date',
      comp_time: 'bool',
      paid_leave: 'bool',
      full_day: 'bool',
      sum_on_work_time: 'bool',
      sum_total_on_work_time: 'bool',
      cr_register: 'text',
      professional_name: 'text',
      health_unit: 'text',
      cid_description: 'text',
      cid: 'text[]',
      has_attachment: 'bool',
    },
    softDelete: true,
    missing: { mode: 'soft-delete', where: overlaps('t') },
  },
  absence_collaborators: {
    table: 'absence_collaborators',
    key: ['absence_id', 'company_cnpj', 'cpf', 'collaborator_record'],
    columns: { absence_id: 'int8', ...PERSON_COLUMNS },
    softDelete: true,
    // Merged after absences: the window's absences are then those returned plus those
    // just marked deleted, and their members are reconciled.
    missing: {
      mode: 'soft-delete',
      where: (p, s, table) =>
        `t.absence_id IN (SELECT absence_id FROM ${stageName('absences')}) OR t.absence_id IN (SELECT a.absence_id FROM ${table('absences')} a WHERE ${overlaps('a')(p, s)})`,
      // After the load: the members of the live absences overlapping the window.
      windowRows: (p, s, table) =>
        `t.absence_id IN (SELECT a.absence_id FROM ${table('absences')} a WHERE ${overlaps('a')(p, s)} AND a.deleted_at IS NULL)`,
    },
  },
} as const satisfies Record<string, TableSpec>;

/** `absences`: the absences overlapping one month window per job. */
export const absences = defineResource({
  read: 'month',
  tables,
  // Absences are entered ahead: from the horizon to 120 days after today.
  schedule: { nightly: { days: ['lookback', 120] } },
  checks: ['window_completeness'],
  recordId: 'absence_id',
  roles: { absence: 'absences', absenceMember: 'absence_collaborators' },
  privacy: {
    absences: {
      person: { table: 'absence_collaborators', column: 'absence_id' },
      columns: {
        description: omitted('free_text', 'typed by a person; may name an illness'),
        details: omitted('free_text', 'typed by a person; may name an illness'),
        cr_register: omitted('health', "the health professional's council registration"),
        professional_name: omitted('health', "the health professional's name"),
        health_unit: omitted('health', 'where the person was treated'),
        cid_description: omitted('health', 'the diagnosis'),
        cid: omitted('health', 'diagnosis codes (CID/ICD)'),
        has_attachment: notPersonal('whether the absence has attachments, not the files'),
      },
    },
    absence_collaborators: { columns: { ...person() } },
  },
  marts: { absences: true },
  reads: [
    declareRead('month', tables, {
      endpoint: 'absence/getFromPeriod',
      // spec 4.1: this endpoint takes date-times.
      query: ({ window }) => ({ begin_date: `${window.from} 00:00:00`, end_date: `${window.to} 23:59:59` }),
      people: (a) => a.collaborators,
      rows(a, out, x) {
        out.absences({
          absence_id: a.absence_id,
          company_cnpj: x.company,
          absence_type_id: a.absence_type_id,
          absence_type: a.type,
          description: a.description,
          details: a.details,
          begins_at_local: a.begin_date,
          begins_at: x.toUtc(a.begin_date),
          ends_at_local: a.end_date,
          ends_at: x.toUtc(a.end_date),
          days: a.days,
          reference_date: a.reference_date,
          comp_time: a.comp_time,
          paid_leave: a.paid_leave,
          full_day: a.full_day,
          sum_on_work_time: a.sum_on_work_time,
          sum_total_on_work_time: a.sum_total_on_work_time,
          cr_register: a.cr_register,
          professional_name: a.professional_name,
          health_unit: a.health_unit,
          cid_description: a.cid_description,
          cid: a.cid,
          has_attachment: a.has_attachment,
        });
        for (const c of a.collaborators) {
          out.absence_collaborators({
            absence_id: a.absence_id,
            company_cnpj: c.company.national_registry,
            cpf: c.national_registry,
            collaborator_record: collaboratorRecord(c),
          });
        }
      },
    }),
  ],
});
