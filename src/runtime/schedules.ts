/**
 * The incremental schedule (docs/operations.md "Schedules") as BullMQ job schedulers: per
 * connection, one per kind (`punches`, `directory`, `nightly`) with the configured cron
 * pattern in the connection's time zone. A tick queues a planning job (jobs/plan-schedule.ts).
 * `upsertJobScheduler` is keyed by the scheduler id, so registering twice — or from every
 * worker process — never duplicates; schedulers no longer configured are removed.
 */
import type { Queue } from 'bullmq';
import type { Config } from '../config.js';
import { SCHEDULE_KINDS, type ScheduleKind } from '../resources/declaration.js';

/** Data of a planning job (no secrets: the connection name only) and which schedule ticked. */
export type ScheduleJobData = { readonly connection: string; readonly kind: ScheduleKind };

/** One job scheduler to register: id `<kind>.<connection>`, its cron pattern read in zone `tz`. */
export type SchedulerSpec = Readonly<{ id: string; pattern: string; tz: string; data: ScheduleJobData }>;

/** The schedulers the configuration asks for (pure); none when schedules are disabled. */
export function buildSchedulers(config: Pick<Config, 'connections' | 'schedules'>): SchedulerSpec[] {
  if (!config.schedules.enabled) return [];
  return config.connections.flatMap((c) =>
    SCHEDULE_KINDS.map((kind) => ({
      id: `${kind}.${c.name}`,
      pattern: config.schedules[kind],
      tz: c.timezone,
      data: { connection: c.name, kind },
    })),
  );
}

/** Registers one scheduler (or updates it in place: the id is the key). */
export async function upsertScheduler(queue: Queue, s: SchedulerSpec): Promise<void> {
  await queue.upsertJobScheduler(
    s.id,
    { pattern: s.pattern, tz: s.tz },
    {
      name: `plan-${s.data.kind}`,
      data: s.data,
      opts: { attempts: 3, backoff: { type: 'exponential', delay: 5_000 } },
    },
  );
}

/** Registers `specs` on `queue` and removes schedulers of this queue that are not in `specs`. */
export async function registerSchedules(
  queue: Queue,
  specs: readonly SchedulerSpec[],
): Promise<{ upserted: string[]; removed: string[] }> {
  for (const s of specs) await upsertScheduler(queue, s);
  const wanted = new Set(specs.map((s) => s.id));
  const removed = (await queue.getJobSchedulers(0, -1)).map((s) => s.key).filter((id) => !wanted.has(id));
  for (const id of removed) await queue.removeJobScheduler(id);
  return { upserted: specs.map((s) => s.id), removed };
}
