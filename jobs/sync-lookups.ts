/**
 * The ten lookup lists of one company (spec 2.4), fetched in parallel within the
 * job's fan-out bound; a record no longer listed becomes `active = false`.
 */
import pLimit from 'p-limit';
import type { JobContext, JobProcessor, LookupTable } from '../src/sync/job-context.js';

/** Which client call lists each lookup table (spec 4.1). */
function fetcherOf(ctx: JobContext): Record<LookupTable, () => Promise<readonly object[]>> {
  const s = ctx.scope();
  const o = ctx.call();
  return {
    departments: () => ctx.api.listDepartments(s, o),
    occupations: () => ctx.api.listOccupations(s, o),
    cost_centers: () => ctx.api.listCostCenters(s, o),
    units: () => ctx.api.listUnits(s, o),
    journeys: () => ctx.api.listJourneys(s, o),
    point_rules: () => ctx.api.listPointRules(s, o),
    collaborator_settings: () => ctx.api.listCollaboratorSettings(s, o),
    digital_fences: () => ctx.api.listBarriers(s, o),
    dismissal_types: () => ctx.api.listFiredTypes(s, o),
    absence_types: () => ctx.api.listAbsenceTypes(s, o),
  };
}

/** Syncs every lookup list of the job's company. */
export const syncLookups: JobProcessor = async (ctx) => {
  const company = ctx.company();
  const limit = pLimit(ctx.fanOut);
  const fetchers = Object.entries(fetcherOf(ctx)) as [LookupTable, () => Promise<readonly object[]>][];
  await Promise.all(
    fetchers.map(([table, fetch]) =>
      limit(async () => {
        const records = await fetch();
        ctx.count(table, await ctx.load.loadLookups(company, table, records));
      }),
    ),
  );
};
