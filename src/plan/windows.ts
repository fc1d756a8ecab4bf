/**
 * Date windows of the period endpoints: calendar-month windows (spec 8: at most 31 days, both
 * ends inclusive), halves for the adaptive split, the days of a window for per-day endpoints,
 * and the lookback horizon inside which a window is never settled.
 */
import type { Window } from '../resources/declaration.js';
import { addDays, daysBetween, endOfMonth } from '../util/time.js';

/** An inclusive range of calendar days, `YYYY-MM-DD` (the window resource declarations read). */
export type DateWindow = Window;

/** spec 8: the longest period a period endpoint accepts, in days, both ends inclusive. */
export const MAX_WINDOW_DAYS = 31;

/**
 * docs/architecture.md "The lookback horizon": the source still changes inside the last 35 days,
 * so those windows never count as done (the default of SYNC_LOOKBACK_DAYS).
 */
export const LOOKBACK_DAYS = 35;

/** Number of days in `w`, both ends included. */
export const windowDays = (w: DateWindow): number => daysBetween(w.from, w.to) + 1;

/** Splits `[from, to]` into calendar-month windows clipped to the range (so none is above 31 days). */
export function monthWindows(from: string, to: string): DateWindow[] {
  if (from > to) throw new RangeError(`window start ${from} is after its end ${to}`);
  const out: DateWindow[] = [];
  let start = from;
  while (start <= to) {
    const monthEnd = endOfMonth(start);
    const end = monthEnd < to ? monthEnd : to;
    out.push({ from: start, to: end });
    start = addDays(end, 1);
  }
  return out;
}

/**
 * The two halves of a window for the adaptive split (docs/architecture.md "The adaptive split"),
 * the first taking the extra day; `undefined` for a single day, which cannot be split.
 */
export function halveWindow(w: DateWindow): [DateWindow, DateWindow] | undefined {
  const days = windowDays(w);
  if (days <= 1) return undefined;
  const firstEnd = addDays(w.from, Math.ceil(days / 2) - 1);
  return [
    { from: w.from, to: firstEnd },
    { from: addDays(firstEnd, 1), to: w.to },
  ];
}

/** `w` cut into the fewest consecutive windows of at most `maxDays` days, of near-equal length. */
export function chunkWindow(w: DateWindow, maxDays: number): DateWindow[] {
  const days = windowDays(w);
  const parts = Math.ceil(days / Math.max(1, Math.floor(maxDays)));
  const out: DateWindow[] = [];
  let from = w.from;
  for (let i = 0; i < parts; i++) {
    const size = Math.floor(days / parts) + (i < days % parts ? 1 : 0);
    const to = addDays(from, size - 1);
    out.push({ from, to });
    from = addDays(to, 1);
  }
  return out;
}

/** Every day of `w` in order, for per-day endpoints (spec 4.1 `overtime`). */
export function daysOf(w: DateWindow): string[] {
  const out: string[] = [];
  for (let d = w.from; d <= w.to; d = addDays(d, 1)) out.push(d);
  return out;
}

/** spec 4.1: `absence/getFromPeriod` takes date-times; a day window covers its first second to its last. */
export const dateTimeBounds = (w: DateWindow): { beginDate: string; endDate: string } => ({
  beginDate: `${w.from} 00:00:00`,
  endDate: `${w.to} 23:59:59`,
});

/** True when `w` ends before `today`'s lookback horizon (the source no longer changes): done once synced. */
export const isSettled = (w: DateWindow, today: string, lookbackDays: number = LOOKBACK_DAYS): boolean =>
  w.to < addDays(today, -lookbackDays);
