/**
 * Overtime and hour-bank balances of one company and day (spec 2.11, `overtime?date=`):
 * one row per collaborator, durations as signed integer seconds; collaborators of the
 * company the day no longer returns get deleted_at.
 */
import type { OvertimeBalance } from '../api/schemas.js';
import { durationToSeconds } from '../util/duration.js';
import type { WarehouseHandle } from './db.js';
import { runLoad, type LoadStats } from './load-stats.js';
import { columnsOf, type RowValues } from './rows.js';
import { checkCnpj, checkCompanies, checkDate } from './scope.js';
import { buildUpsert, type BuiltQuery, type ColumnSpec } from './upsert-statement.js';

/** The day a balance load covers. */
export interface DayScope {
  companyCnpj: string;
  /** `YYYY-MM-DD`, the `date` asked. */
  date: string;
}

const DURATIONS = [
  'total_overtime',
  'missing_hours',
  'interval_hours',
  'normal_hours',
  'day_balance',
  'accumulated_balance',
  'credit',
  'debt',
] as const;

const COLUMNS: readonly ColumnSpec[] = [
  { name: 'company_cnpj', type: 'text' },
  { name: 'cpf', type: 'text' },
  { name: 'balance_date', type: 'date' },
  { name: 'regime', type: 'text' },
  ...DURATIONS.map((d) => ({ name: `${d}_seconds`, type: 'int4' as const })),
];

/** The statement of an hour-bank load (pure). */
export function buildHourBankLoad(schema: string, day: DayScope, data: readonly OvertimeBalance[]): Record<string, BuiltQuery> {
  checkCnpj('hour_bank_balances', day.companyCnpj);
  checkDate('hour_bank_balances', 'date', day.date);
  checkCompanies('hour_bank_balances', day.companyCnpj, data);
  const rows = data.map((b) => {
    const row: RowValues = { company_cnpj: day.companyCnpj, cpf: b.national_registry, balance_date: day.date, regime: b.regime };
    for (const d of DURATIONS) row[`${d}_seconds`] = durationToSeconds(b[d]);
    return row;
  });
  return {
    hour_bank_balances: buildUpsert(
      {
        schema,
        table: 'hour_bank_balances',
        key: ['company_cnpj', 'cpf', 'balance_date'],
        columns: COLUMNS,
        softDelete: true,
        missing: {
          mode: 'soft-delete',
          where: (p) => `t.company_cnpj = ${p(day.companyCnpj)} AND t.balance_date = ${p(day.date)}::date`,
        },
      },
      columnsOf(COLUMNS, rows, (r) => r.cpf as string),
    ),
  };
}

/** Loads the balances of one company's day, in one transaction. */
export async function loadHourBank(w: WarehouseHandle, day: DayScope, data: readonly OvertimeBalance[]): Promise<LoadStats> {
  return runLoad(w.pool, buildHourBankLoad(w.schema, day, data));
}
