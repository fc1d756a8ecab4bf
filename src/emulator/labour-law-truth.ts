/**
 * The labour-law findings of a record's days as the model knows them (truth `labourLaw`): an
 * implementation apart from the warehouse's SQL, from the days' punch times, for tests to compare
 * `clt_daily` with. The rules and their articles: docs/warehouse.md "Labour-law marts".
 */
import { dateTimeOf, isHoliday } from './calendar.js';
import type { DayRecord } from './history.js';

const H = 3600;
/** art. 66: rest between two days. */
const MIN_REST = 11 * H;
/** art. 59: overtime a day; §2: the day's cap. */
const OVERTIME_LIMIT = 2 * H;
const DAY_CAP = 10 * H;
/** art. 58 §1: a day's variation of up to 10 minutes is no overtime; a mark's of up to 5 breaks no limit. */
const DAY_TOLERANCE = 600;
const MARK_TOLERANCE = 300;
/** How far back the rest before a day and a run of days look (the mart's own reach). */
export const LOOKBACK_DAYS = 14;

/** One record day with punches, and its findings. */
export interface TruthLabourDay {
  readonly date: string;
  readonly firstPunchLocal: string;
  readonly lastPunchLocal: string;
  readonly punchCount: number;
  readonly workedSeconds: number;
  readonly scheduledSeconds: number;
  readonly restBeforeSeconds: number | null;
  readonly shortRest: boolean;
  readonly longestBreakSeconds: number;
  readonly breakRequiredSeconds: number;
  readonly shortBreak: boolean;
  readonly breakNotPunched: boolean;
  readonly overtimeSeconds: number;
  readonly overtimeOver2h: boolean;
  readonly dayOver10h: boolean;
  readonly nightSeconds: number;
  readonly nightReducedSeconds: number;
  readonly consecutiveDaysWorked: number;
  readonly seventhDayWorked: boolean;
  readonly workedOnHoliday: boolean;
  readonly manualPunches: number;
  readonly adjustedPunches: number;
}

/** Seconds of [a, b) (seconds after a day's midnight) between 22:00 and 05:00 of any night. */
function nightSeconds(a: number, b: number): number {
  let night = 0;
  for (let midnight = 0; midnight - 2 * H < b; midnight += 24 * H)
    night += Math.max(0, Math.min(b, midnight + 5 * H) - Math.max(a, midnight - 2 * H));
  return night;
}

/** The findings of one day, given the last punch (day, seconds) of the previous day with punches within reach. */
function findingsOf(
  r: DayRecord,
  previous: { day: number; last: number } | null,
  run: number,
): TruthLabourDay {
  const secs = r.punches.map((p) => p.sec);
  let worked = 0;
  let night = 0;
  let longestBreak = 0;
  for (let i = 0; i + 1 < secs.length; i += 2) {
    worked += secs[i + 1]! - secs[i]!;
    night += nightSeconds(secs[i]!, secs[i + 1]!);
    if (i + 3 < secs.length) longestBreak = Math.max(longestBreak, secs[i + 2]! - secs[i + 1]!);
  }
  const required = worked > 6 * H ? H : worked > 4 * H ? 15 * 60 : 0;
  const scheduled = r.plan.schedSec;
  const over = worked - scheduled;
  const overtime = over > DAY_TOLERANCE ? over : 0;
  const rest = previous && (r.day - previous.day) * 24 * H + secs[0]! - previous.last;
  return {
    date: dateTimeOf(r.day, 0).slice(0, 10),
    firstPunchLocal: dateTimeOf(r.day, secs[0]!),
    lastPunchLocal: dateTimeOf(r.day, secs[secs.length - 1]!),
    punchCount: secs.length,
    workedSeconds: worked,
    scheduledSeconds: scheduled,
    restBeforeSeconds: rest,
    shortRest: rest !== null && rest < MIN_REST,
    longestBreakSeconds: longestBreak,
    breakRequiredSeconds: required,
    shortBreak: required > 0 && longestBreak > 0 && longestBreak < required,
    breakNotPunched: required > 0 && longestBreak === 0,
    overtimeSeconds: overtime,
    overtimeOver2h: scheduled > 0 && overtime > OVERTIME_LIMIT + MARK_TOLERANCE,
    dayOver10h: worked > DAY_CAP + MARK_TOLERANCE,
    nightSeconds: night,
    nightReducedSeconds: Math.round((night * 8) / 7),
    consecutiveDaysWorked: run,
    seventhDayWorked: run >= 7,
    workedOnHoliday: isHoliday(r.day),
    manualPunches: r.punches.filter((p) => p.manual).length,
    adjustedPunches: r.punches.filter((p) => p.adjusted).length,
  };
}

/**
 * The findings of every day with punches among `days` (one record's, in order, starting
 * {@link LOOKBACK_DAYS} days before the first day wanted) from `firstDay` on.
 */
export function labourLawDays(days: Iterable<DayRecord>, firstDay: number): TruthLabourDay[] {
  const out: TruthLabourDay[] = [];
  const worked: DayRecord[] = [];
  for (const r of days) {
    if (r.punches.length === 0) continue;
    const prev = worked[worked.length - 1];
    const previous =
      prev && r.day - prev.day <= LOOKBACK_DAYS + 1
        ? { day: prev.day, last: prev.punches[prev.punches.length - 1]!.sec }
        : null;
    let run = 1;
    for (let i = worked.length - 1; i >= 0 && run <= LOOKBACK_DAYS && worked[i]!.day === r.day - run; i--)
      run++;
    worked.push(r);
    if (r.day >= firstDay) out.push(findingsOf(r, previous, run));
  }
  return out;
}
