/**
 * Audit photos of the punches of one company's window (spec 4.1 `point/audit`, opt-in
 * with SYNC_AUDIT_PHOTOS since they are faces): a follow-up of the punches window, one
 * call per punch within the fan-out bound. A punch or photo that is gone is skipped.
 */
import pLimit from 'p-limit';
import { AuditPhotoNotFoundError, PointNotFoundError } from '../src/api/errors.js';
import type { JobProcessor } from '../src/sync/job-context.js';
import { PermanentSyncError } from '../src/sync/errors.js';
import { punchesWithAuditPhoto } from '../src/sync/follow-up-items.js';

/** Syncs the audit photos of the job window's punches. */
export const syncAuditPhotos: JobProcessor = async (ctx) => {
  const company = ctx.company();
  const ids = await punchesWithAuditPhoto(ctx.db, ctx.schema, company, ctx.window(), ctx.data.force ?? false);
  const limit = pLimit(ctx.fanOut);
  await Promise.all(
    ids.map((pointId) =>
      limit(async () => {
        try {
          const photo = await ctx.api.getAuditPhoto(pointId, ctx.scope(), ctx.call());
          if (photo.point_id !== pointId) {
            throw new PermanentSyncError(
              'audit_photo_mismatch',
              `point/audit: asked for point ${pointId}, the API answered point ${photo.point_id}`,
            );
          }
          ctx.count('audit_photos', await ctx.load.loadAuditPhoto(company, photo));
        } catch (err) {
          if (!(err instanceof AuditPhotoNotFoundError || err instanceof PointNotFoundError)) throw err;
          ctx.logger.info({ pointId }, 'punch or audit photo no longer exists; skipped');
        }
      }),
    ),
  );
};
