/** Late arrivals of one company and window (spec 4.1 `tardiness`, spec 2.8); replaced per window. */
import type { JobProcessor } from '../src/sync/job-context.js';
import { syncPeriod } from '../src/sync/period-sync.js';

/** Syncs tardiness of the job's window. */
export const syncTardiness: JobProcessor = (ctx) =>
  syncPeriod(ctx, {
    endpoint: 'tardiness',
    table: 'tardiness',
    fetch: (w) => ctx.api.getTardiness({ beginDate: w.from, endDate: w.to }, ctx.scope(), ctx.call(w)),
    load: (scope, data) => ctx.load.loadTardiness(scope, data),
  });
