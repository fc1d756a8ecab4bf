/**
 * What a sync job carries in Redis: the connection NAME (the worker resolves the token
 * from its own configuration, so no secret ever reaches Redis), the resource, the
 * company and the window. Validated when a job starts.
 */
import { z } from 'zod';
import { RESOURCES, type Resource } from './resources.js';
import { isCalendarDate } from '../util/time.js';
import type { PendingRemoval } from '../warehouse/merge.js';

/** Why a job was queued. */
const JOB_ORIGINS = ['backfill', 'schedule', 'followup', 'walk', 'push'] as const;
/** Why a job was queued. */
export type JobOrigin = (typeof JOB_ORIGINS)[number];

const date = z.string().refine(isCalendarDate, { message: 'expected a date YYYY-MM-DD' });

/** Run-time shape of {@link SyncJobData}. */
export const syncJobData = z
  .object({
    connection: z.string().min(1),
    resource: z.enum(RESOURCES),
    company: z.string().regex(/^\d{14}$/).optional(),
    scoped: z.boolean().default(false),
    from: date.optional(),
    to: date.optional(),
    force: z.boolean().default(false),
    followUp: z.boolean().default(false),
    origin: z.enum(JOB_ORIGINS).default('backfill'),
    seenRemovals: z
      .array(z.object({ table: z.string(), live: z.number().int(), removing: z.number().int(), digest: z.string().optional() }))
      .optional(),
  })
  .refine((d) => (d.from === undefined) === (d.to === undefined), { message: 'from and to go together' })
  .refine((d) => d.from === undefined || d.to === undefined || d.from <= d.to, { message: 'from is after to' });

/** Data of one sync job (BullMQ `job.data`). */
export interface SyncJobData {
  /** Connection name from the configuration; never the token. */
  readonly connection: string;
  /** What to sync. */
  readonly resource: Resource;
  /** CNPJ of the company; absent for the group walk. */
  readonly company?: string;
  /** spec 1.4: send `company_national_registry` (headquarters token reading its group). */
  readonly scoped?: boolean;
  /** First day of the window, for windowed resources. */
  readonly from?: string;
  /** Last day of the window (inclusive). */
  readonly to?: string;
  /** Re-fetch what is already stored (follow-ups skip stored items otherwise). */
  readonly force?: boolean;
  /** Queue the follow-up resource's job for this window when done (attachments, audit photos). */
  readonly followUp?: boolean;
  /** Why the job was queued. */
  readonly origin?: JobOrigin;
  /**
   * Removals an earlier attempt refused as suspicious (most or all of a window's rows);
   * this attempt applies them only if its answer would remove exactly the same.
   */
  readonly seenRemovals?: readonly Removal[];
}

/**
 * A removal the mass-removal guard refused (a {@link PendingRemoval} as job data keeps it):
 * `digest` is absent in job data written before it existed, and then never agrees.
 */
export type Removal = Omit<PendingRemoval, 'digest'> & Partial<Pick<PendingRemoval, 'digest'>>;

/** What a sync job returns (BullMQ `returnvalue`), summed up by `backfill`. */
export interface SyncJobResult {
  /** HTTP attempts made by the job. */
  requests: number;
  /** Warehouse rows inserted. */
  inserted: number;
  /** Warehouse rows updated. */
  updated: number;
  /** Warehouse rows marked deleted. */
  deleted: number;
  /** Ids of follow-up jobs this job queued (so `backfill` waits for them too). */
  followUps: { queue: string; id: string }[];
  /** True when the window was recorded as done. */
  recorded: boolean;
}
