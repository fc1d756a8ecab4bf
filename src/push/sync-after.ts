/**
 * After `punchline push --apply`, the windows the writes touched are queued for sync at once, so the
 * warehouse shows the new rows without waiting for the schedule (collaborators, lookups, the months of
 * new punches and absences). The sync's own planner names the jobs, so a window already waiting is
 * not queued twice.
 */
import { enqueueJobs, type EnqueueResult } from '../runtime/enqueue.js';
import { planJobs, type PlannedJob, type WorkItem } from '../plan/planner.js';
import { followUpsOf } from '../plan/resources.js';
import type { SyncQueues } from '../runtime/queues.js';

/** Where the writes acted. */
export interface PushTarget {
  /** Connection name (job data carries it, never the token). */
  readonly connection: string;
  /** CNPJ of the token's company. */
  readonly company: string;
  /** spec 1.4: read the company with `company_national_registry` (a headquarters token), as the sync does. */
  readonly scoped: boolean;
}

/** The sync jobs of `items` for `target` (pure). */
export function pushSyncJobs(target: PushTarget, items: readonly WorkItem[]): PlannedJob[] {
  return planJobs({
    connection: target.connection,
    companies: [target.company],
    scoped: target.scoped,
    items,
    // Follow-ups behind an opt-in (audit photos) are left to the schedules.
    followUps: followUpsOf(
      items.map((i) => i.resource),
      {},
    ),
    force: false,
    origin: 'push',
  }).jobs;
}

/** Queues the sync of what a push created; returns the jobs added and those already pending. */
export async function queueSyncAfterPush(
  queues: SyncQueues,
  target: PushTarget,
  items: readonly WorkItem[],
): Promise<EnqueueResult> {
  return enqueueJobs(queues, pushSyncJobs(target, items));
}
