import { CATALOG, RESOURCES, type Resource } from '../resources/index.js';

const MINUTE = 60;
const HOUR = 60 * MINUTE;

/** Threshold of resources that declare none, and of those this version does not know (a newer worker wrote them): a missed night. */
const DEFAULT_STALE_AFTER = 30 * HOUR;

/**
 * Age in seconds after which `resource` is stale, a few runs of its schedule
 * (docs/operations.md "Schedules"): its declaration's `staleAfter`; `overrideSeconds` (from
 * `--stale-after`) wins.
 */
export function staleAfterSeconds(resource: string, overrideSeconds?: number): number {
  if (overrideSeconds !== undefined) return overrideSeconds;
  return (
    (RESOURCES.includes(resource as Resource) ? CATALOG[resource as Resource].staleAfter : undefined) ??
    DEFAULT_STALE_AFTER
  );
}

/** How old a company × resource is against its threshold: the colours of the status page and the counts of `punchline status`. */
export const FRESHNESS_STATES = ['fresh', 'aging', 'stale', 'never'] as const;
/** One of {@link FRESHNESS_STATES}: `never` is never synced while another company has the resource (stale too). */
export type FreshnessState = (typeof FRESHNESS_STATES)[number];

/**
 * Age after which a resource of stale threshold `staleAfter` is aging: half-way to stale, but at most
 * four hours before it, so a nightly resource is aging once a night's run is missed, not every afternoon.
 */
export function agingAfterSeconds(staleAfter: number): number {
  return Math.max(Math.floor(staleAfter / 2), staleAfter - 4 * HOUR);
}

/** The state of an entry of age `age` (null: never synced) against its stale threshold. */
export function freshnessState(age: number | null, staleAfter: number): FreshnessState {
  if (age === null) return 'never';
  if (age > staleAfter) return 'stale';
  return age > agingAfterSeconds(staleAfter) ? 'aging' : 'fresh';
}

/** Parses `--stale-after <minutes>` into seconds (a RangeError unless a positive whole number). */
export function parseStaleAfter(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (!/^\d+$/.test(v) || Number(v) < 1) {
    throw new RangeError(
      `--stale-after must be a whole number of minutes, at least 1 (got ${JSON.stringify(value)})`,
    );
  }
  return Number(v) * MINUTE;
}
