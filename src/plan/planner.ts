/**
 * src/plan/ — what to sync: the jobs of a range or a schedule tick (windows, ids, data,
 * queues), and the group walk that finds the companies.
 *
 * The planner (docs/architecture.md "Windows"), pure: a date range or a schedule tick as the
 * jobs to queue — the group walk once per connection, directory resources once per company,
 * windowed ones per company and calendar-month window — skipping windows done unless forced.
 */
import { jobIdFor, windowKey } from './job-ids.js';
import type { JobOrigin, SyncJobData } from './job-data.js';
import { CATALOG } from '../resources/index.js';
import type { ScheduleKind } from '../resources/declaration.js';
import {
  RESOURCES,
  followUpOf,
  isFollowUp,
  isWindowed,
  queueFor,
  type QueueName,
  type Resource,
} from './resources.js';
import { LOOKBACK_DAYS, monthWindows, type DateWindow } from './windows.js';
import { addDays, endOfMonth } from '../util/time.js';

/** One unit of work before it is tied to companies: a resource and, when windowed, its window. */
export type WorkItem = { readonly resource: Resource; readonly window?: DateWindow };

/** A job ready to be queued: named after its resource, its id from job-ids.ts, no secrets in its data. */
export type PlannedJob = Readonly<{ queue: QueueName; name: Resource; id: string; data: SyncJobData }>;

/** Jobs to queue (group walk first, then directory resources, then windows), and windows skipped as done. */
export type Plan = { readonly jobs: PlannedJob[]; readonly skipped: number };

/** Inputs of {@link planJobs}. */
interface PlanInput {
  readonly connection: string;
  /** CNPJs of the companies to sync (from the group walk). */
  readonly companies: readonly string[];
  /** spec 1.4: read each company with `company_national_registry` (headquarters token). */
  readonly scoped: boolean;
  /** Work items, from {@link backfillItems} or {@link scheduleItems}. */
  readonly items: readonly WorkItem[];
  /** Resources whose follow-ups the parent jobs should queue (e.g. `absence_attachments`). */
  readonly followUps: readonly Resource[];
  /** Ignore `done` and re-fetch stored follow-up items. */
  readonly force: boolean;
  /** Keys ({@link windowKey}) of windows recorded as done for this connection. */
  readonly done?: ReadonlySet<string>;
  readonly origin: JobOrigin;
}

/**
 * The work items of a backfill of `[from, to]`: calendar-month windows of windowed resources,
 * per-day ones ending at `today` (a future day has no balance), and one item per other resource.
 */
export function backfillItems(
  resources: readonly Resource[],
  from: string,
  to: string,
  today: string,
): WorkItem[] {
  return RESOURCES.filter((r) => resources.includes(r)).flatMap((resource): WorkItem[] => {
    if (!isWindowed(resource)) return [{ resource }];
    const end = CATALOG[resource].read === 'day' && to > today ? today : to;
    return from > end ? [] : monthWindows(from, end).map((window) => ({ resource, window }));
  });
}

/**
 * The work items of one tick of an incremental schedule on `today` (docs/operations.md
 * "Schedules"): every resource whose declaration joins it, over the days its `schedule`
 * gives (lookback: SYNC_LOOKBACK_DAYS), cut at month ends so no window exceeds 31 days.
 */
export function scheduleItems(
  kind: ScheduleKind,
  today: string,
  lookbackDays: number = LOOKBACK_DAYS,
): WorkItem[] {
  const day = (d: number | 'lookback') => addDays(today, d === 'lookback' ? -lookbackDays : d);
  const month = (m: number): string => {
    let first = `${today.slice(0, 8)}01`;
    for (; m < 0; m++) first = `${addDays(first, -1).slice(0, 8)}01`;
    for (; m > 0; m--) first = addDays(endOfMonth(first), 1);
    return first;
  };
  return RESOURCES.flatMap((resource): WorkItem[] => {
    const horizon = CATALOG[resource].schedule?.[kind];
    if (horizon === undefined) return [];
    if (horizon === 'current') return [{ resource }];
    const [from, to] =
      'days' in horizon
        ? [day(horizon.days[0]), day(horizon.days[1])]
        : [month(horizon.months[0]), endOfMonth(month(horizon.months[1]))];
    return from > to ? [] : monthWindows(from, to).map((window) => ({ resource, window }));
  });
}

/**
 * Ties work items to companies under deterministic job ids, skipping windows in `done` unless
 * `force`; a follow-up window is planned only when its parent's is not (which queues it when done).
 */
export function planJobs(input: PlanInput): Plan {
  const jobs: PlannedJob[] = [];
  let skipped = 0;
  const done = input.force ? new Set<string>() : (input.done ?? new Set<string>());
  const base = { connection: input.connection, origin: input.origin, force: input.force };
  const push = (data: SyncJobData) =>
    jobs.push({ queue: queueFor(data.resource), name: data.resource, id: jobIdFor(data), data });
  /** True (and counted) for a window recorded as done. */
  const skip = (key: string): boolean => {
    if (!done.has(key)) return false;
    skipped += 1;
    return true;
  };

  const unwindowed = input.items.filter((i) => i.window === undefined).map((i) => i.resource);
  const isWalk = (resource: Resource) => CATALOG[resource].read === 'group';
  for (const resource of unwindowed.filter(isWalk)) push({ ...base, resource });
  for (const resource of unwindowed.filter((r) => !isWalk(r))) {
    for (const company of input.companies) push({ ...base, resource, company, scoped: input.scoped });
  }

  const planned = new Set<string>();
  const windowed = input.items.filter((i) => i.window !== undefined);
  const parents = windowed.filter((i) => !isFollowUp(i.resource));
  const followUps = windowed.filter((i) => isFollowUp(i.resource));
  for (const company of input.companies) {
    for (const { resource, window } of parents) {
      const key = windowKey({ resource, company, ...window! });
      if (skip(key)) continue;
      planned.add(key);
      const child = followUpOf(resource);
      const followUp = child !== undefined && input.followUps.includes(child);
      push({ ...base, resource, company, scoped: input.scoped, ...window!, followUp });
    }
    for (const { resource, window } of followUps) {
      const parent = CATALOG[resource].items!.parent;
      if (
        planned.has(windowKey({ resource: parent, company, ...window! })) &&
        input.followUps.includes(resource)
      ) {
        continue;
      }
      if (skip(windowKey({ resource, company, ...window! }))) continue;
      push({ ...base, resource, company, scoped: input.scoped, ...window! });
    }
  }
  return { jobs, skipped };
}
