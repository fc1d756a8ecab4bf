/**
 * The sync of a resource, one processor for every declared resource (src/resources/): the group
 * walk of the connection, or the job's company and window, read through the resource's declaration
 * and loaded in one transaction; then the counts are recorded, and the follow-up window
 * (attachments of the absences, audit photos of the punches) is queued when the plan asked for it.
 */
import { CATALOG } from '../src/resources/index.js';
import type { JobProcessor } from '../src/runtime/job-context.js';
import { loadResource } from '../src/load/load-resource.js';
import { followUpOf } from '../src/plan/resources.js';

/** Syncs the job's resource for its connection, or its company (and window). */
export const syncResource: JobProcessor = async (ctx) => {
  const { resource: name, company, seenRemovals, force = false } = ctx.data;
  const { scope, timezone, window, runId } = ctx;
  const req = { connection: ctx.connection.name, name, declaration: CATALOG[name], company, scope, timezone };
  const result = await loadResource(ctx.engine, { ...req, runId, window, force, seenRemovals }, ctx.signal);
  ctx.count(result.tables, result.rejected);
  const followUp = followUpOf(name);
  if (followUp && window && ctx.data.followUp) await ctx.queueFollowUp(followUp, window);
};
