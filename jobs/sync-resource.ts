/**
 * The sync of a resource, one processor for every declared resource (src/resources/):
 * the group walk of the connection, or the job's company and window, read through the
 * resource's declaration and loaded in one transaction; then the counts are recorded,
 * and the follow-up window (attachments of the absences, audit photos of the punches) is
 * queued when the plan asked for it.
 */
import { CATALOG } from '../src/resources/index.js';
import type { JobProcessor } from '../src/runtime/job-context.js';
import { loadResource } from '../src/load/load-resource.js';
import { followUpOf, isWindowed } from '../src/plan/resources.js';

/** Syncs the job's resource for its connection, or its company (and window). */
export const syncResource: JobProcessor = async (ctx) => {
  const { resource, company, seenRemovals } = ctx.data;
  const result = await loadResource(
    ctx.engine,
    {
      connection: ctx.connection.name,
      name: resource,
      runId: ctx.runId,
      declaration: CATALOG[resource],
      ...(company === undefined ? {} : { company }),
      scope: ctx.scope(),
      timezone: ctx.timezone(),
      ...(isWindowed(resource) ? { window: ctx.window() } : {}),
      force: ctx.data.force ?? false,
      ...(seenRemovals ? { seenRemovals } : {}),
    },
    ctx.signal,
  );
  ctx.count(result.tables, result.rejected);
  const followUp = followUpOf(resource);
  if (followUp && ctx.data.followUp) await ctx.queueFollowUp(followUp, ctx.window());
};
