/** Hour totals of one company and window (spec 4.1 `collaborator/totalHours`, every key of spec 2.7). */
import type { JobProcessor } from '../src/sync/job-context.js';
import { syncPeriod } from '../src/sync/period-sync.js';

/** Syncs hour totals of the job's window. */
export const syncHourTotals: JobProcessor = (ctx) =>
  syncPeriod(ctx, {
    endpoint: 'collaborator/totalHours',
    table: 'hour_totals',
    fetch: (w) => ctx.api.getTotalHours({ beginDate: w.from, endDate: w.to }, ctx.scope(), ctx.call(w)),
    load: (scope, data) => ctx.load.loadHourTotals(scope, data),
  });
