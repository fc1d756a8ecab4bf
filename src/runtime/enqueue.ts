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

/** What happened to each planned job. */
export interface EnqueueResult {
  /** Jobs added now. */
  readonly added: string[];
  /** Jobs already waiting, delayed or running under the same id (not queued twice). */
  readonly pending: string[];
}

const FINISHED = new Set(['completed', 'failed']);

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
          if (!FINISHED.has(state) && state !== 'unknown') {
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
