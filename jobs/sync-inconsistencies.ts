/** Inconsistencies of one company and window (spec 4.1 `inconsistency`, spec 2.10); replaced per window. */
import type { JobProcessor } from '../src/sync/job-context.js';
import { syncPeriod } from '../src/sync/period-sync.js';

/** Syncs inconsistencies of the job's window. */
export const syncInconsistencies: JobProcessor = (ctx) =>
  syncPeriod(ctx, {
    endpoint: 'inconsistency',
    table: 'inconsistencies',
    fetch: (w) => ctx.api.getInconsistencies({ beginDate: w.from, endDate: w.to }, ctx.scope(), ctx.call(w)),
    load: (scope, data) => ctx.load.loadInconsistencies(scope, data),
  });
