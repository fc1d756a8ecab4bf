/**
 * The mart modules, in the order they run: a module comes after every module whose
 * tables it reads.
 */
import { cltDailyModule } from './clt-daily.js';
import { cltMonthlyModule } from './clt-monthly.js';
import { companyCalendar } from './company-calendar.js';
import type { MartModule } from './module.js';
import { monthlyHeadcount } from './monthly-headcount.js';
import { workforceEvents } from './workforce-events.js';

export const MART_MODULES: readonly MartModule[] = [
  cltDailyModule,
  cltMonthlyModule,
  companyCalendar,
  workforceEvents,
  monthlyHeadcount,
];
