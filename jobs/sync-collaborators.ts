/**
 * The authoritative collaborator list of one company (spec 4.1 `collaborator`): current
 * attributes, SCD2 history on change, and collaborators no longer listed marked inactive.
 */
import type { JobProcessor } from '../src/sync/job-context.js';
import { assertCompany } from '../src/sync/company-check.js';

/** Syncs the collaborators of the job's company. */
export const syncCollaborators: JobProcessor = async (ctx) => {
  const company = ctx.company();
  const list = await ctx.api.listCollaborators(ctx.scope(), ctx.call());
  assertCompany('collaborator', company, list, (r) => `collaborator ${r.national_registry}`);
  ctx.count('collaborators', await ctx.load.loadCollaborators(company, list));
};
