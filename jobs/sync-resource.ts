/**
 * The window sync, one processor for every declared resource (src/resources/): read the
 * job's company and window through the resource's declaration, load it in one
 * transaction, record the counts, and queue the follow-up window (attachments of the
 * absences, audit photos of the punches) when the plan asked for it.
 */
import { CATALOG } from '../src/resources/index.js';
import type { JobProcessor } from '../src/runtime/job-context.js';
import { loadResource } from '../src/load/load-resource.js';
import { followUpOf } from '../src/plan/resources.js';

/** Syncs the job's resource for its company (and window). */
export const syncResource: JobProcessor = async (ctx) => {
  const { resource } = ctx.data;
  const declaration = CATALOG[resource];
  const windowed = declaration.read !== 'list';
  const result = await loadResource(
    ctx.engine,
    {
      connection: ctx.connection.name,
      name: resource,
      runId: ctx.runId,
      declaration,
      company: ctx.company(),
      scope: ctx.scope(),
      timezone: ctx.timezone(),
      ...(windowed ? { window: ctx.window() } : {}),
      force: ctx.data.force ?? false,
      ...(ctx.data.seenRemovals ? { seenRemovals: ctx.data.seenRemovals } : {}),
    },
    ctx.signal,
  );
  ctx.count(result.tables, result.rejected);
  const followUp = followUpOf(resource);
  if (followUp && ctx.data.followUp) await ctx.queueFollowUp(followUp, ctx.window());
};
