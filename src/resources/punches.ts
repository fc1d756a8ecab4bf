/**
 * Punches and the work days they come in (spec 2.12, `point/getFromPeriod`), read per
 * company and month window without collaborator filters, so dismissed collaborators'
 * days are included. A punch or day of the window that the API no longer returns gets
 * `deleted_at`, and loses it when it comes back.
 */
import { durationValueToSeconds } from '../util/duration.js';
import { inWindow, type TableSpec } from '../warehouse/table-spec.js';
import { collaboratorRecord } from './collaborators.js';
import { notPersonal, omitted, person, PERSON_COLUMNS } from './column-classes.js';
import { defineResource, HOUR, declareRead, windowQuery } from './declaration.js';

const tables = {
  work_days: {
    table: 'work_days',
    key: ['company_cnpj', 'cpf', 'work_date', 'collaborator_record'],
    columns: { ...PERSON_COLUMNS, work_date: 'date', shift: 'text', worked_seconds: 'int4' },
    softDelete: true,
    missing: { mode: 'soft-delete', where: inWindow('work_date') },
  },
  punches: {
    table: 'punches',
    key: ['point_id'],
    referredBy: [['point_id']],
    columns: {
      point_id: 'int8',
      ...PERSON_COLUMNS,
      work_date: 'date',
      punched_at_local: 'timestamp',
      punched_at: 'timestamptz',
      hour_local: 'text',
      method: 'text',
      origin: 'text',
      is_adjusted: 'bool',
      adjustment_reason: 'text',
      adjusted_by: 'text',
      accuracy_meters: 'float8',
      latitude: 'float8',
      longitude: 'float8',
      address: 'text',
      has_audit_photo: 'bool',
    },
    softDelete: true,
    missing: { mode: 'soft-delete', where: inWindow('work_date') },
  },
} as const satisfies Record<string, TableSpec>;

/** `punches`: one month window of punches and work days per job. */
export const punches = defineResource({
  read: 'month',
  tables,
  // work_days are the day grain of the marts: the days the warehouse covers, and each record's first and last day.
  marts: { coverage: true },
  // Every 15 minutes the last 7 days (today included); nightly the rest of the horizon, so the two never read one day at once.
  schedule: { punches: { days: [-6, 0] }, nightly: { days: ['lookback', -7] } },
  staleAfter: HOUR,
  checks: [
    'window_completeness',
    'totals_vs_days',
    'rule_vs_days',
    'day_vs_punches',
    'punch_without_day',
    'unknown_collaborator',
  ],
  recordId: 'point_id',
  roles: { day: 'work_days', punch: 'punches' },
  privacy: {
    punches: {
      columns: {
        ...person('admission date of the record the punch was listed under'),
        adjustment_reason: omitted('free_text', 'why the punch was adjusted'),
        adjusted_by: { ...omitted('name', 'name of the manager who adjusted the punch'), someoneElse: true },
        has_audit_photo: notPersonal('whether the punch has a photo, not the photo'),
        latitude: omitted('location', 'where the punch was made'),
        longitude: omitted('location', 'where the punch was made'),
        address: omitted('location', 'where the punch was made'),
      },
    },
    work_days: { columns: person() },
  },
  reads: [
    declareRead('month', tables, {
      endpoint: 'point/getFromPeriod',
      query: windowQuery,
      people: (c) => [c],
      rows(c, out, x) {
        const cpf = c.national_registry;
        const record = collaboratorRecord(c);
        for (const d of c.days) {
          // spec 1.2: HH:MM:SS, or decimal hours with decimal_format=1
          out.work_days({
            company_cnpj: x.company,
            cpf,
            collaborator_record: record,
            work_date: d.date,
            shift: d.shift,
            worked_seconds: durationValueToSeconds(d.worked_time),
          });
          for (const p of d.points) {
            out.punches({
              point_id: p.point_id,
              company_cnpj: x.company,
              cpf,
              collaborator_record: record,
              work_date: d.date,
              punched_at_local: p.datetime,
              punched_at: x.toUtc(p.datetime),
              hour_local: p.hour,
              method: p.method,
              origin: p.origin,
              is_adjusted: p.is_adjusted,
              adjustment_reason: p.adjustment_reason,
              adjusted_by: p.adjusted_by,
              accuracy_meters: p.accuracy_meters,
              latitude: p.geolocation?.lat,
              longitude: p.geolocation?.lng,
              address: p.address,
              has_audit_photo: p.has_audit_photo,
            });
          }
        }
      },
    }),
  ],
});
