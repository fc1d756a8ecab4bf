/**
 * Hour-bank day balances (spec 4.1 `overtime`, spec 2.11): the endpoint takes one date,
 * so the job makes one call per day of its window, a few in parallel, and loads each
 * day as it arrives.
 */
import pLimit from 'p-limit';
import type { JobProcessor } from '../src/sync/job-context.js';
import { assertCompany } from '../src/sync/company-check.js';
import { collaboratorBlockOf } from '../src/sync/period-sync.js';
import { daysOf } from '../src/sync/windows.js';

/** Syncs the hour-bank balances of every day of the job's window. */
export const syncHourBank: JobProcessor = async (ctx) => {
  const company = ctx.company();
  const limit = pLimit(ctx.fanOut);
  await Promise.all(
    daysOf(ctx.window()).map((date) =>
      limit(async () => {
        const data = await ctx.api.getOvertime({ date }, ctx.scope(), ctx.call());
        assertCompany('overtime', company, data, (r) => `collaborator ${r.national_registry} on ${date}`);
        if (data.length > 0) {
          ctx.count('collaborators', await ctx.load.addSeenCollaborators(company, data.map(collaboratorBlockOf)));
        }
        ctx.count(
          'hour_bank_balances',
          await ctx.load.loadHourBank({ companyCnpj: company, date, timezone: ctx.connection.timezone }, data),
        );
      }),
    ),
  );
};
