/**
 * The group walk as a job (spec 1.4): the economic group and every company the token
 * reaches, loaded into `companies`. Queued by backfills, by the hourly directory
 * schedule, and when a job meets 404 `company_not_found`.
 */
import { companyRows } from '../src/resources/index.js';
import type { JobProcessor } from '../src/runtime/job-context.js';
import { walkGroup } from '../src/plan/group-walk.js';
import { loadRows } from '../src/load/load-rows.js';

/** Syncs the companies of the connection's group. */
export const syncCompanies: JobProcessor = async (ctx) => {
  const walk = await walkGroup(ctx.api, ctx.call());
  // spec 4.1: with include_branches=1 a headquarters token gets every company in one call.
  const companies = walk.headquarters ? await ctx.api.listGroupCompanies(ctx.call()) : [walk.own];
  ctx.count(await loadRows(ctx.engine, companyRows(companies, walk.group)));
};
