/**
 * Absences overlapping one company's window (spec 4.1 `absence/getFromPeriod`, which
 * takes date-time bounds), with their collaborators; queues the attachment follow-up
 * for the window when asked (spec 2.5 `has_attachment`).
 */
import type { Absence } from '../src/api/schemas.js';
import type { JobProcessor } from '../src/sync/job-context.js';
import { readAdaptive } from '../src/sync/adaptive-read.js';
import { CompanyMismatchError } from '../src/sync/errors.js';
import { dateTimeBounds, formatWindow } from '../src/sync/windows.js';

/** spec 1.4 rule 4: every collaborator of every absence must belong to `company`. */
function checkCompany(company: string, data: Absence[]): void {
  for (const a of data) {
    for (const c of a.collaborators) {
      if (c.company.national_registry !== company) {
        throw new CompanyMismatchError({
          endpoint: 'absence/getFromPeriod',
          expected: company,
          found: c.company.national_registry,
          where: `absence ${a.absence_id} (collaborator ${c.national_registry})`,
        });
      }
    }
  }
}

/** Syncs the absences of the job's window. */
export const syncAbsences: JobProcessor = async (ctx) => {
  const company = ctx.company();
  const parts = readAdaptive(
    ctx.window(),
    (w) => ctx.api.getAbsencesFromPeriod(dateTimeBounds(w), ctx.scope(), ctx.call(w)),
    { onSplit: (w, reason) => ctx.logger.info({ window: formatWindow(w), reason }, 'splitting window') },
  );
  for await (const part of parts) {
    checkCompany(company, part.data);
    const people = part.data.flatMap((a) => a.collaborators);
    if (people.length > 0) ctx.count('collaborators', await ctx.load.addSeenCollaborators(company, people));
    ctx.count('absences', await ctx.load.loadAbsences(ctx.windowScope(part.window), part.data));
  }
  if (ctx.data.followUp) await ctx.queueFollowUp('absence_attachments', ctx.window());
};
