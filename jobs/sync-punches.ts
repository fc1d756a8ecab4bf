/**
 * Punches and work days of one company and window (spec 4.1 `point/getFromPeriod`, read
 * without collaborator filters so dismissed collaborators' days are included). Queues the
 * audit-photo follow-up for the window when asked (spec 2.12 `has_audit_photo`).
 */
import type { JobProcessor } from '../src/sync/job-context.js';
import { syncPeriod } from '../src/sync/period-sync.js';

/** Syncs punches and work days of the job's window. */
export const syncPunches: JobProcessor = async (ctx) => {
  await syncPeriod(ctx, {
    endpoint: 'point/getFromPeriod',
    table: 'punches',
    fetch: (w) => ctx.api.getPointsFromPeriod({ beginDate: w.from, endDate: w.to }, ctx.scope(), ctx.call(w)),
    load: (scope, data) => ctx.load.loadPunches(scope, data),
  });
  if (ctx.data.followUp) await ctx.queueFollowUp('audit_photos', ctx.window());
};
