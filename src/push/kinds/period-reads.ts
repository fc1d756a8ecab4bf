import type { CollaboratorPoints } from '../../api/schemas.js';
import type { DateWindow } from '../../plan/windows.js';
import { endOfMonth } from '../../util/time.js';
import type { CheckContext } from '../kind.js';

/** CPFs per `national_registry_list[]` request: a bounded number, so no URL grows without end. */
const CPFS_PER_READ = 50;

/**
 * `point/getFromPeriod` (spec 4.1) for the checks before writing: the period data of `cpfs` in the
 * token's company (spec 1.4 rule 1: no scope) over `window`, at most 31 days (spec §8).
 */
export async function pointsOf(
  ctx: CheckContext,
  window: DateWindow,
  cpfs: readonly string[],
): Promise<CollaboratorPoints[]> {
  const unique = [...new Set(cpfs)];
  const out: CollaboratorPoints[] = [];
  for (let i = 0; i < unique.length; i += CPFS_PER_READ) {
    const list = unique.slice(i, i + CPFS_PER_READ);
    out.push(
      ...(await ctx.api.getPointsFromPeriod(
        { beginDate: window.from, endDate: window.to, nationalRegistryList: list },
        undefined,
        ctx.call,
      )),
    );
  }
  return out;
}

/** The calendar month of a date (`YYYY-MM-DD`) as a window, as the sync reads it. */
export function monthOf(date: string): DateWindow {
  const from = `${date.slice(0, 8)}01`;
  return { from, to: endOfMonth(from) };
}
