/**
 * A tick of an incremental schedule (src/runtime/schedules.ts): walk the connection's
 * group, plan the windows of that schedule for each company's today (in its own time
 * zone), and queue them. Windows still pending from an earlier tick are not queued twice.
 */
import { z } from 'zod';
import { runNightlyRetention } from '../src/warehouse/retention.js';
import { todayIn } from '../src/util/time.js';
import { planByCompanyDay } from '../src/plan/company-days.js';
import { enqueueJobs, type EnqueueResult } from '../src/runtime/enqueue.js';
import { InvalidJobError } from '../src/load/errors.js';
import { walkGroup } from '../src/plan/group-walk.js';
import { planJobs, scheduleItems } from '../src/plan/planner.js';
import { RESOURCES, followUpsOf } from '../src/plan/resources.js';
import { SCHEDULE_KINDS } from '../src/resources/declaration.js';
import type { SyncRuntime, TickOptions } from '../src/runtime/runtime.js';
import type { ScheduleJobData } from '../src/runtime/schedules.js';

const scheduleJobData = z.object({ connection: z.string().min(1), kind: z.enum(SCHEDULE_KINDS) });

/** Plans and queues one schedule tick; returns what was queued. */
export async function planSchedule(
  rt: SyncRuntime,
  raw: unknown,
  options: TickOptions = {},
): Promise<EnqueueResult & { today: string }> {
  const now = options.now ?? rt.now;
  const logger = options.logger ?? rt.logger;
  const parsed = scheduleJobData.safeParse(raw);
  if (!parsed.success) throw new InvalidJobError(parsed.error.issues[0]!.message);
  const data: ScheduleJobData = parsed.data;
  if (data.kind === 'nightly')
    await runNightlyRetention({ config: rt.config, warehouse: rt.warehouse, logger }, now());
  const { connection, api } = rt.client(data.connection);
  const walk = await walkGroup(api);
  const today = todayIn(connection.timezone, now());
  // Each company's ranges end at its own today (src/plan/company-days.ts).
  const plan = planByCompanyDay(connection, walk.companies, now(), (companyToday, companies) =>
    planJobs({
      connection: connection.name,
      companies,
      scoped: walk.scoped,
      items: scheduleItems(data.kind, companyToday, rt.config.syncLookbackDays),
      followUps: followUpsOf(RESOURCES, rt.config),
      force: false,
      origin: 'schedule',
    }),
  );
  const result = await enqueueJobs(rt.queues, plan.jobs);
  logger.info(
    { schedule: data.kind, today, added: result.added.length, pending: result.pending.length },
    'schedule tick planned',
  );
  return { ...result, today };
}
