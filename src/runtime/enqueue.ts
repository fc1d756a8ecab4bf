/**
 * Queues planned jobs under their deterministic ids. BullMQ ignores an add whose id
 * exists, which is what keeps a window from being queued twice while it waits or runs;
 * but a finished job (kept for the dashboard) would also block the window's next sync,
 * so a completed or failed job with the id is removed first and the window queued
 * afresh. That is how schedules and `--force` re-sync a window under the same id.
 */
import pLimit from 'p-limit';
import type { Job } from 'bullmq';
import type { PlannedJob } from '../plan/planner.js';
import type { SyncQueues } from './queues.js';

/** Ids of the jobs added now, and of those waiting, delayed or running under their id (not queued twice). */
export type EnqueueResult = { readonly added: string[]; readonly pending: string[] };

/** Adds `jobs`, replacing finished jobs of the same id and leaving pending ones alone. */
export async function enqueueJobs(queues: SyncQueues, jobs: readonly PlannedJob[]): Promise<EnqueueResult> {
  const added: string[] = [];
  const pending: string[] = [];
  const limit = pLimit(16);
  await Promise.all(
    jobs.map((planned) =>
      limit(async () => {
        const queue = queues.get(planned.queue);
        const existing: Job | undefined = await queue.getJob(planned.id);
        if (existing) {
          const state = await existing.getState();
          if (state !== 'completed' && state !== 'failed' && state !== 'unknown') {
            pending.push(planned.id);
            return;
          }
          try {
            await existing.remove();
          } catch {
            // Taken by a worker meanwhile (a retry became active): it is pending again.
            pending.push(planned.id);
            return;
          }
        }
        await queue.add(planned.name, planned.data, { jobId: planned.id });
        added.push(planned.id);
      }),
    ),
  );
  return { added, pending };
}
