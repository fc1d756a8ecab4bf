/**
 * What a sync job carries in Redis: the connection NAME (the worker resolves the token
 * from its own configuration, so no secret ever reaches Redis), the resource, the
 * company and the window. Validated when a job starts.
 */
import { z } from 'zod';
import { RESOURCES } from './resources.js';
import { isCalendarDate } from '../util/time.js';
import type { PendingRemoval } from '../warehouse/merge.js';

const JOB_ORIGINS = ['backfill', 'schedule', 'followup', 'walk', 'push'] as const;
/** Why a job was queued. */
export type JobOrigin = (typeof JOB_ORIGINS)[number];

const date = z.string().refine(isCalendarDate, { message: 'expected a date YYYY-MM-DD' });

/** Run-time shape of {@link SyncJobData}. */
export const syncJobData = z
  .object({
    connection: z.string().min(1),
    resource: z.enum(RESOURCES),
    // Absent for the group walk.
    company: z
      .string()
      .regex(/^\d{14}$/)
      .optional(),
    // spec 1.4: send `company_national_registry` (headquarters token reading its group).
    scoped: z.boolean().default(false),
    // The window, both days included, for windowed resources.
    from: date.optional(),
    to: date.optional(),
    // Re-fetch what is already stored (follow-ups skip stored items otherwise).
    force: z.boolean().default(false),
    // Queue the follow-up resource's job for this window when done (attachments, audit photos).
    followUp: z.boolean().default(false),
    origin: z.enum(JOB_ORIGINS).default('backfill'),
    // Removals an earlier attempt refused as suspicious: applied only if this answer removes the same.
    seenRemovals: z
      .array(
        z.object({
          table: z.string(),
          live: z.number().int(),
          removing: z.number().int(),
          digest: z.string().optional(),
        }),
      )
      .optional(),
  })
  .refine((d) => (d.from === undefined) === (d.to === undefined), { message: 'from and to go together' })
  .refine((d) => d.from === undefined || d.to === undefined || d.from <= d.to, {
    message: 'from is after to',
  });

/** Data of one sync job (BullMQ `job.data`). */
export type SyncJobData = z.input<typeof syncJobData>;

/**
 * A removal the mass-removal guard refused (a {@link PendingRemoval} as job data keeps it):
 * `digest` is absent in job data written before it existed, and then never agrees.
 */
export type Removal = Omit<PendingRemoval, 'digest'> & Partial<Pick<PendingRemoval, 'digest'>>;

/** What a sync job returns (BullMQ `returnvalue`), summed up by `backfill`. */
export interface SyncJobResult {
  /** HTTP attempts made by the job. */
  requests: number;
  /** Warehouse rows inserted, updated and marked deleted. */
  inserted: number;
  updated: number;
  deleted: number;
  /** Ids of follow-up jobs this job queued (so `backfill` waits for them too). */
  followUps: { queue: string; id: string }[];
  /** True when the window was recorded as done. */
  recorded: boolean;
}
