/**
 * When a company × resource counts as stale in `punchline status`: a few runs of its
 * incremental schedule (docs/operations.md "Schedules") have passed without a success.
 */
import type { Resource } from '../resources/index.js';

const MINUTE = 60;
const HOUR = 60 * MINUTE;

/**
 * Default age, in seconds, after which a resource is flagged: punches run every 15
 * minutes, the directory (companies, collaborators, lookups) hourly, everything else
 * nightly; follow-ups go with the resource that finds their items.
 */
export const DEFAULT_STALE_AFTER_SECONDS: Readonly<Record<Resource, number>> = Object.freeze({
  punches: HOUR,
  companies: 3 * HOUR,
  lookups: 3 * HOUR,
  collaborators: 3 * HOUR,
  hour_totals: 30 * HOUR,
  tardiness: 30 * HOUR,
  adjustments: 30 * HOUR,
  inconsistencies: 30 * HOUR,
  hour_bank: 30 * HOUR,
  absences: 30 * HOUR,
  audit_photos: 30 * HOUR,
  absence_attachments: 30 * HOUR,
});

/** Threshold for resources this version does not know (e.g. a newer worker wrote them). */
const UNKNOWN_RESOURCE_STALE_AFTER = 30 * HOUR;

/** Age in seconds after which `resource` is stale; `overrideSeconds` (from `--stale-after`) wins. */
export function staleAfterSeconds(resource: string, overrideSeconds?: number): number {
  if (overrideSeconds !== undefined) return overrideSeconds;
  return (DEFAULT_STALE_AFTER_SECONDS as Record<string, number>)[resource] ?? UNKNOWN_RESOURCE_STALE_AFTER;
}

/**
 * Parses `--stale-after <minutes>` into seconds; throws a RangeError naming the option
 * when it is not a positive whole number.
 */
export function parseStaleAfter(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (!/^\d+$/.test(v) || Number(v) < 1) {
    throw new RangeError(`--stale-after must be a whole number of minutes, at least 1 (got ${JSON.stringify(value)})`);
  }
  return Number(v) * MINUTE;
}
