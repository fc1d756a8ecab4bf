/** Punch-adjustment requests of one company and window (spec 4.1 `adjustment`, spec 2.9); replaced per window. */
import type { JobProcessor } from '../src/sync/job-context.js';
import { syncPeriod } from '../src/sync/period-sync.js';

/** Syncs adjustment requests of the job's window. */
export const syncAdjustments: JobProcessor = (ctx) =>
  syncPeriod(ctx, {
    endpoint: 'adjustment',
    table: 'adjustment_requests',
    fetch: (w) => ctx.api.getAdjustments({ beginDate: w.from, endDate: w.to }, ctx.scope(), ctx.call(w)),
    load: (scope, data) => ctx.load.loadAdjustments(scope, data),
  });
