/**
 * Overtime and hour-bank day balances (spec 2.11, `overtime`). The endpoint takes one date, so a
 * window is read one call per day, a few in parallel, all into the window's one transaction: a
 * collaborator of the company that a day no longer lists gets `deleted_at` for that day.
 */
import { durationToSeconds } from '../util/duration.js';
import { inWindow, type TableSpec } from '../warehouse/table-spec.js';
import { collaboratorRecord } from './collaborators.js';
import { person, PERSON_COLUMNS } from './column-classes.js';
import { defineResource, HORIZON_FACTS, declareRead } from './declaration.js';

const tables = {
  hour_bank_balances: {
    table: 'hour_bank_balances',
    key: ['company_cnpj', 'cpf', 'balance_date', 'collaborator_record'],
    columns: {
      ...PERSON_COLUMNS,
      balance_date: 'date',
      regime: 'text',
      total_overtime_seconds: 'int4',
      missing_hours_seconds: 'int4',
      interval_hours_seconds: 'int4',
      normal_hours_seconds: 'int4',
      day_balance_seconds: 'int4',
      accumulated_balance_seconds: 'int4',
      credit_seconds: 'int4',
      debt_seconds: 'int4',
    },
    softDelete: true,
    missing: { mode: 'soft-delete', where: inWindow('balance_date') },
  },
} as const satisfies Record<string, TableSpec>;

/** `hour_bank`: the day balances of every day of one window per job. */
export const hourBank = defineResource({
  read: 'day',
  tables,
  ...HORIZON_FACTS,
  privacy: { hour_bank_balances: { columns: person() } },
  marts: { measure: 'overtime' },
  reads: [
    declareRead('day', tables, {
      endpoint: 'overtime',
      query: ({ date }) => ({ date }),
      people: (b) => [b],
      rows(b, out, x) {
        out.hour_bank_balances({
          company_cnpj: x.company,
          cpf: b.national_registry,
          collaborator_record: collaboratorRecord(b),
          balance_date: x.date,
          regime: b.regime,
          total_overtime_seconds: durationToSeconds(b.total_overtime),
          missing_hours_seconds: durationToSeconds(b.missing_hours),
          interval_hours_seconds: durationToSeconds(b.interval_hours),
          normal_hours_seconds: durationToSeconds(b.normal_hours),
          day_balance_seconds: durationToSeconds(b.day_balance),
          accumulated_balance_seconds: durationToSeconds(b.accumulated_balance),
          credit_seconds: durationToSeconds(b.credit),
          debt_seconds: durationToSeconds(b.debt),
        });
      },
    }),
  ],
});
