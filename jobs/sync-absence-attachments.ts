/**
 * Attachments of the absences of one company's window (spec 4.1 `absence/attachment`):
 * a follow-up of the absences window, one call per absence within the fan-out bound.
 * An absence the API no longer knows (404 `not_found`) is skipped, not failed.
 */
import pLimit from 'p-limit';
import { AbsenceNotFoundError } from '../src/api/errors.js';
import type { JobProcessor } from '../src/sync/job-context.js';
import { absencesWithAttachments } from '../src/sync/follow-up-items.js';

/** Syncs the attachments of the job window's absences. */
export const syncAbsenceAttachments: JobProcessor = async (ctx) => {
  const company = ctx.company();
  const ids = await absencesWithAttachments(ctx.db, ctx.schema, company, ctx.window(), ctx.data.force ?? false);
  const limit = pLimit(ctx.fanOut);
  await Promise.all(
    ids.map((absenceId) =>
      limit(async () => {
        try {
          const list = await ctx.api.getAbsenceAttachments(absenceId, ctx.scope(), ctx.call());
          ctx.count('absence_attachments', await ctx.load.loadAbsenceAttachments(company, absenceId, list));
        } catch (err) {
          if (!(err instanceof AbsenceNotFoundError)) throw err;
          ctx.logger.info({ absenceId }, 'absence no longer exists; attachments skipped');
        }
      }),
    ),
  );
};
