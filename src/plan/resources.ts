/**
 * The sync's view of the resource catalog (src/resources/): the names `--resources`
 * accepts and how each is scheduled — per connection, per company, per window, or as a
 * follow-up of another resource's window.
 */
import type { OptIn } from '../resources/declaration.js';
import { CATALOG, RESOURCES, type Resource } from '../resources/index.js';

export { RESOURCES, type Resource };

/** Every BullMQ queue name of punchline (the dashboard shows each). */
export const QUEUE_NAMES = ['sync', 'followups', 'schedules', 'marts'] as const;
/** One queue name. */
export type QueueName = (typeof QUEUE_NAMES)[number];

/** True for resources read per date window (month, day and item reads). */
export function isWindowed(resource: Resource): boolean {
  const read = CATALOG[resource].read;
  return read === 'month' || read === 'day' || read === 'items';
}

/** The resource read once per connection: the group walk. */
export const GROUP_WALK: Resource = RESOURCES.find((r) => CATALOG[r].read === 'group')!;

/** True for follow-ups: resources whose items a parent resource's window lists. */
export const isFollowUp = (resource: Resource): boolean => CATALOG[resource].read === 'items';

/** The follow-up resource fed by `parent`'s windows, if any. */
export const followUpOf = (parent: Resource): Resource | undefined =>
  RESOURCES.find((r) => CATALOG[r].items?.parent === parent);

/** Resources synced when none are named: all, those with an `optIn` only when it is on. */
export function defaultResources(settings: Partial<Record<OptIn, boolean>>): Resource[] {
  return RESOURCES.filter((r) => {
    const optIn = CATALOG[r].optIn;
    return optIn === undefined || settings[optIn] === true;
  });
}

/** The follow-ups that the windows of `parents` queue, by their declarations' `items.parent`; opt-ins only when on. */
export function followUpsOf(
  parents: readonly Resource[],
  settings: Partial<Record<OptIn, boolean>>,
): Resource[] {
  return defaultResources(settings).filter((r) => parents.some((p) => CATALOG[r].items?.parent === p));
}

/** Parses a comma-separated `--resources` value: resources in {@link RESOURCES} order, no duplicates. */
export function parseResources(list: string): Resource[] {
  const names = list
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  if (names.length === 0) throw new RangeError(`--resources is empty (choose from: ${RESOURCES.join(', ')})`);
  const unknown = names.find((n) => !(RESOURCES as readonly string[]).includes(n));
  if (unknown !== undefined) {
    throw new RangeError(`unknown resource "${unknown}" (choose from: ${RESOURCES.join(', ')})`);
  }
  return RESOURCES.filter((r) => names.includes(r));
}

/** The queue a resource's jobs go to. */
export const queueFor = (resource: Resource): QueueName => (isFollowUp(resource) ? 'followups' : 'sync');
