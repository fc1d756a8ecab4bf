/** One collaborator's day from the seed: a pure function of (seed, collaborator, date, journey, absences). */
import { isHoliday, weekday } from './calendar.js';
import type { AbsenceEntity, JourneyEntity } from './entities.js';
import { shiftText } from './lookup-generator.js';
import { rngFor } from './random.js';

/** Punch slots per day in point ids (a generated day has at most four punches). */
export const SLOTS_PER_DAY = 4;
/** Latest generated punch time, so a day never crosses midnight. */
const LAST_SEC = 23 * 3600 + 59 * 60;

/** A generated punch: its slot in the point id and its time. */
export interface RawPunch {
  readonly slot: number;
  readonly sec: number;
  /** Entered by a manager (origin `Manual`, adjusted, with an approved request). */
  readonly manual: boolean;
}

/** Why a day without a schedule is off. */
export type RestKind = 'sunday' | 'holiday' | 'saturday';

/** The generated plan of one day. */
export interface DayPlan {
  readonly day: number;
  /** A working day of the journey. */
  readonly scheduled: boolean;
  /** Kind of rest day when not scheduled. */
  readonly rest: RestKind | null;
  /** Start of the day's shift, seconds after midnight. */
  readonly startSec: number;
  /** Scheduled work, seconds (0 on rest days). */
  readonly schedSec: number;
  /** spec 2.12 `shift`. */
  readonly shift: string;
  readonly punches: readonly RawPunch[];
  /** Scheduled, no punches and no absence: an unjustified absence (falta). */
  readonly fault: boolean;
  /** Full-day absence covering the day. */
  readonly absence: AbsenceEntity | null;
  /** Partial-day absence on the day. */
  readonly partial: AbsenceEntity | null;
  /** Slot of a forgotten punch (a pending adjustment request), or -1. */
  readonly missingSlot: number;
  /** A refused adjustment request exists for the day. */
  readonly refused: boolean;
  /** Today: the day is in progress; it shows only the punches made so far and is not valued. */
  readonly inProgress: boolean;
  /** Option `labourLaw`: the source lists a short break for the day although its break is pre-recorded. */
  readonly listedShortBreak?: boolean;
  /** Option `labourLaw`: the source lists the day's overtime above the limit although it is within the tolerance. */
  readonly listedOvertime?: boolean;
}

/** True when the journey works on `day` (weekday in its set, not a holiday). */
export function isScheduledDay(j: JourneyEntity, day: number): boolean {
  return ((j.weekdays >> weekday(day)) & 1) === 1 && !isHoliday(day);
}

/** Generation switches of one day. */
export interface PlanInput {
  readonly base: number;
  readonly collaboratorId: number;
  readonly journey: JourneyEntity;
  readonly day: number;
  readonly todayDay: number;
  /** False for collaborators created through the API: they have no generated punches. */
  readonly generated: boolean;
  readonly absence: AbsenceEntity | null;
  readonly partial: AbsenceEntity | null;
  /** Today's punches shown: those until this second; -1 (a pinned clock) shows none, whatever the clock. */
  readonly visibleUntilSec: number;
}

const clamp = (s: number): number => Math.max(0, Math.min(LAST_SEC, s));

/** Plans one day. */
export function planDay(input: PlanInput): DayPlan {
  const { journey: j, day } = input;
  const scheduled = isScheduledDay(j, day);
  const wd = weekday(day);
  const rest: RestKind | null = scheduled
    ? null
    : isHoliday(day)
      ? 'holiday'
      : wd === 0
        ? 'sunday'
        : 'saturday';
  const inProgress = day >= input.todayDay;
  const base: DayPlan = {
    day,
    scheduled,
    rest,
    startSec: j.startSec,
    schedSec: scheduled ? j.workSec : 0,
    shift: scheduled
      ? j.shift
      : rest === 'holiday'
        ? 'Feriado'
        : rest === 'sunday'
          ? 'Descanso semanal remunerado'
          : 'Folga',
    punches: [],
    fault: false,
    absence: input.absence,
    partial: input.partial,
    missingSlot: -1,
    refused: false,
    inProgress,
  };
  if (!input.generated || input.absence || (inProgress && input.visibleUntilSec < 0)) return base;
  const full = generatePunches(input, base);
  if (!inProgress) return full;
  // A day in progress: what was punched so far, without the day's verdicts.
  return {
    ...full,
    punches: full.punches.filter((p) => p.sec <= input.visibleUntilSec),
    fault: false,
    missingSlot: -1,
    refused: false,
  };
}

/** The whole day as it will have happened. */
function generatePunches(input: PlanInput, base: DayPlan): DayPlan {
  const { journey: j, day } = input;
  const { scheduled, rest } = base;
  const r = rngFor(input.base, input.collaboratorId, day);

  if (!scheduled) {
    // Occasional work on rest days: a half shift, all of it overtime.
    const p = rest === 'holiday' ? 0.05 : rest === 'sunday' ? 0.007 : 0.015;
    if (!r.chance(p)) return base;
    const entry = 8 * 3600 + r.int(1800);
    return {
      ...base,
      punches: [
        { slot: 0, sec: entry, manual: false },
        { slot: 1, sec: entry + 4 * 3600 + r.int(3600), manual: false },
      ],
    };
  }

  if (r.chance(0.02)) return { ...base, fault: true, refused: r.chance(0.3) };

  let start = j.startSec;
  // Late-shift workers are sometimes called in the next morning: less than 11 h of rest.
  if (j.lateShift && r.chance(0.03)) start = 9 * 3600;
  const tol = j.toleranceMin * 60;
  const u = r.next();
  const entry =
    u < 0.06
      ? start + tol + 60 + r.int(7200 - tol - 180) // late, within two hours (spec 2.8)
      : u < 0.067
        ? start + 7200 + r.int(5400) // too late: a partial absence, not a tardiness
        : start - 900 + r.int(900 + tol); // on time or within tolerance
  const endBase = start + j.workSec + j.breakSec;
  const v = r.next();
  let exit =
    v < 0.12
      ? endBase + 1200 + r.int(9000) // overtime, sometimes above the daily limit
      : v < 0.15
        ? endBase - 1800 - r.int(3600) // early leave
        : endBase - 300 + r.int(1020);
  if (input.partial) exit = Math.min(exit, input.partial.beginSec + r.int(300));

  const secs: number[] = [];
  if (j.breakSec > 0) {
    const lunchOut = Math.max(entry + 3600, start + 4 * 3600 - 900 + r.int(2100));
    const interval = r.chance(0.05) ? 1800 + r.int(1500) : 3600 + r.int(900);
    const lunchIn = lunchOut + interval;
    exit = Math.max(exit, lunchIn + 600);
    secs.push(entry, lunchOut, lunchIn, exit);
  } else {
    exit = Math.max(exit, entry + 1800);
    secs.push(entry, exit);
  }
  const missingSlot = secs.length === 4 && r.chance(0.01) ? 2 : -1;
  const manualSlot = r.chance(0.03) ? r.int(secs.length) : -1;
  const punches: RawPunch[] = [];
  secs.forEach((s, slot) => {
    if (slot !== missingSlot) punches.push({ slot, sec: clamp(s), manual: slot === manualSlot });
  });
  return {
    ...base,
    startSec: start,
    shift: start === j.startSec ? base.shift : shiftText(j, start),
    punches,
    missingSlot,
    refused: r.chance(0.004),
  };
}
