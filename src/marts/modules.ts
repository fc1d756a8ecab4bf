/**
 * The mart modules, in the order they run: a module comes after every module whose
 * tables it reads.
 */
import { cltDailyModule } from './clt-daily.js';
import { cltMonthlyModule } from './clt-monthly.js';
import type { MartModule } from './module.js';

export const MART_MODULES: readonly MartModule[] = [cltDailyModule, cltMonthlyModule];
