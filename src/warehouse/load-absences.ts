/**
 * Absences of one company and window (spec 2.5, `absence/getFromPeriod`) and the
 * collaborators they concern. The list is absence-centric and holds the absences that
 * overlap the period, so the window reconciles the company's absences overlapping it:
 * those the API no longer returns get deleted_at, and so do collaborators a returned
 * absence no longer lists.
 */
import type { Absence } from '../api/schemas.js';
import type { WarehouseHandle } from './db.js';
import { createLocalTimeConverter } from './local-time.js';
import { runLoad, type LoadStats } from './load-stats.js';
import { toPgArray } from './pg-array.js';
import { columnsOf, type RowValues } from './rows.js';
import { checkCompanies, checkScope, type WindowScope } from './scope.js';
import { buildUpsert, type BuiltQuery, type ColumnSpec, type Param } from './upsert-statement.js';
import { quoteIdent } from './db.js';

const ABSENCE_COLUMNS: readonly ColumnSpec[] = [
  { name: 'absence_id', type: 'int8' },
  { name: 'company_cnpj', type: 'text' },
  { name: 'absence_type_id', type: 'int4' },
  { name: 'absence_type', type: 'text' },
  { name: 'description', type: 'text' },
  { name: 'details', type: 'text' },
  { name: 'begins_at_local', type: 'timestamp' },
  { name: 'begins_at', type: 'timestamptz' },
  { name: 'ends_at_local', type: 'timestamp' },
  { name: 'ends_at', type: 'timestamptz' },
  { name: 'days', type: 'int4' },
  { name: 'reference_date', type: 'date' },
  { name: 'comp_time', type: 'bool' },
  { name: 'paid_leave', type: 'bool' },
  { name: 'full_day', type: 'bool' },
  { name: 'sum_on_work_time', type: 'bool' },
  { name: 'sum_total_on_work_time', type: 'bool' },
  { name: 'cr_register', type: 'text' },
  { name: 'professional_name', type: 'text' },
  { name: 'health_unit', type: 'text' },
  { name: 'cid_description', type: 'text' },
  { name: 'cid', type: 'text[]' },
  { name: 'has_attachment', type: 'bool' },
];

const MEMBER_COLUMNS: readonly ColumnSpec[] = [
  { name: 'absence_id', type: 'int8' },
  { name: 'company_cnpj', type: 'text' },
  { name: 'cpf', type: 'text' },
];

/** The statements of an absences load (pure): `absences`, then `absence_collaborators`. */
export function buildAbsencesLoad(schema: string, scope: WindowScope, data: readonly Absence[]): Record<string, BuiltQuery> {
  checkScope('absences', scope);
  const toUtc = createLocalTimeConverter(scope.timezone);
  const absences: RowValues[] = [];
  const members: RowValues[] = [];
  for (const a of data) {
    // spec 1.4 rule 4: every collaborator of the absence must belong to the company loaded.
    checkCompanies('absence_collaborators', scope.companyCnpj, a.collaborators);
    absences.push({
      absence_id: a.absence_id,
      company_cnpj: scope.companyCnpj,
      absence_type_id: a.absence_type_id,
      absence_type: a.type,
      description: a.description,
      details: a.details,
      begins_at_local: a.begin_date,
      begins_at: toUtc(a.begin_date),
      ends_at_local: a.end_date,
      ends_at: toUtc(a.end_date),
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
      cid: toPgArray(a.cid),
      has_attachment: a.has_attachment,
    });
    for (const c of a.collaborators) {
      members.push({ absence_id: a.absence_id, company_cnpj: c.company.national_registry, cpf: c.national_registry });
    }
  }
  const absenceColumns = columnsOf(ABSENCE_COLUMNS, absences, (r) => r.absence_id as number);
  const overlaps = (p: Param, alias: string) =>
    `${alias}.company_cnpj = ${p(scope.companyCnpj)} AND ${alias}.begins_at_local < (${p(scope.to)}::date + 1) AND ${alias}.ends_at_local >= ${p(scope.from)}::date`;
  return {
    absences: buildUpsert(
      {
        schema,
        table: 'absences',
        key: ['absence_id'],
        columns: ABSENCE_COLUMNS,
        softDelete: true,
        missing: { mode: 'soft-delete', where: (p) => overlaps(p, 't') },
      },
      absenceColumns,
    ),
    // Runs after the absences statement: the window's absences are then exactly those
    // returned plus those just marked deleted.
    absence_collaborators: buildUpsert(
      {
        schema,
        table: 'absence_collaborators',
        key: ['absence_id', 'company_cnpj', 'cpf'],
        columns: MEMBER_COLUMNS,
        softDelete: true,
        missing: {
          mode: 'soft-delete',
          where: (p) =>
            `t.absence_id = ANY(${p(toPgArray(absenceColumns['absence_id']!))}::int8[]) OR t.absence_id IN (SELECT a.absence_id FROM ${quoteIdent(schema)}.absences a WHERE ${overlaps(p, 'a')})`,
        },
      },
      columnsOf(MEMBER_COLUMNS, members, (r) => `${r.absence_id}|${r.company_cnpj}|${r.cpf}`),
    ),
  };
}

/** Loads the absences overlapping one company's window, in one transaction. */
export async function loadAbsences(w: WarehouseHandle, scope: WindowScope, data: readonly Absence[]): Promise<LoadStats> {
  return runLoad(w.pool, buildAbsencesLoad(w.schema, scope, data));
}
