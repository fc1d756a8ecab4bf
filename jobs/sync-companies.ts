/**
 * The group walk as a job (DESIGN.md §4): the economic group and every company the
 * token reaches, loaded into `companies`. Queued by backfills, by the hourly directory
 * schedule, and when a job meets 404 `company_not_found`.
 */
import type { JobProcessor } from '../src/sync/job-context.js';
import { walkGroup } from '../src/sync/group-walk.js';

/** Syncs the companies of the connection's group. */
export const syncCompanies: JobProcessor = async (ctx) => {
  const walk = await walkGroup(ctx.api, ctx.call());
  // spec 4.1: with include_branches=1 a headquarters token gets every company in one call.
  const companies = walk.headquarters ? await ctx.api.listGroupCompanies(ctx.call()) : [walk.own];
  ctx.count('companies', await ctx.load.loadCompanies(companies, walk.group));
};
