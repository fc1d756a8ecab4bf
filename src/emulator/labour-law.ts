/**
 * Option `labourLaw` (docs/emulator.md "Labour-law cases"): two headquarters collaborators whose days
 * follow a script on known days of every month, so each finding of the labour-law marts happens on
 * purpose — a short rest (CLT art. 66), a short break (art. 71), a day of two punches whose break is
 * pre-recorded (art. 74 §2), overtime above 2 h and a day above 10 h (art. 59), a night shift from
 * 22:00 to 06:00 that crosses midnight (art. 73), seven days in a row (Lei 605/1949) and work on
 * holidays. The source's inconsistencies (spec 2.10) follow from those days as usual, with two planted
 * differences: the pre-recorded break day is listed as a short break, and a day 4 minutes above the
 * 2-hour limit is listed as overtime above it (the source otherwise holds, as the warehouse does, a
 * mark's variation of up to 5 minutes within the limit: art. 58 §1).
 */
import { isHoliday, weekday } from './calendar.js';
import { employmentEnd, type CollaboratorEntity } from './entities.js';
import type { World } from './world.js';

const H = 3600;
const M = 60;

/** Who follows the script (null when the option is off or the headquarters has nobody fitting). */
export interface LabourLawCast {
  /** Day worker: the week of findings and the holidays. */
  readonly day: CollaboratorEntity | null;
  /** Night worker: the Friday night shift crossing midnight. */
  readonly night: CollaboratorEntity | null;
}

/** Nobody: the option is off. */
export const NO_LABOUR_LAW: LabourLawCast = Object.freeze({ day: null, night: null });

/**
 * Picks the cast in the headquarters: generated records employed since history began, alone with
 * their CPF, on a journey of more than six hours. The first two such records are left to quirk `contradictions` while others exist, so both
 * can be on at once. The script's times follow each one's journey start.
 */
export function pickLabourLawCast(world: World): LabourLawCast {
  const hq = world.headquarters.collaborators;
  const alone = (c: CollaboratorEntity): boolean => hq.filter((x) => x.cpf === c.cpf).length === 1;
  const steady = hq.filter(
    (c) => c.generated && employmentEnd(c) === Infinity && c.beginDay <= world.fromDay && alone(c),
  );
  // The script's short break needs a day above six hours.
  const order = [...steady.slice(2), ...steady.slice(0, 2)].filter((c) => world.journeyOf(c).workSec > 6 * H);
  return { day: order[0] ?? null, night: order[1] ?? null };
}

/** The first Monday of the month of `day` (a day number). */
export function firstMonday(day: number, dayOfMonth: number): number {
  const first = day - dayOfMonth + 1;
  return first + ((8 - weekday(first)) % 7);
}

/**
 * The scripted punch times of `c` on `day` (seconds after the day's midnight; beyond 24 h for the next
 * morning), or null when the script leaves the day to the generator. `M0` is the month's first Monday.
 */
export function scriptedDay(
  world: World,
  cast: LabourLawCast,
  c: CollaboratorEntity,
  day: number,
  dayOfMonth: number,
): { secs: number[]; manualSlot: number; listedShortBreak?: boolean; listedOvertime?: boolean } | null {
  if (c !== cast.day && c !== cast.night) return null;
  const m0 = firstMonday(day, dayOfMonth);
  const k = day - m0;
  if (c === cast.night) {
    if (k === 4) return { secs: [22 * H, 26 * H, 27 * H, 30 * H], manualSlot: -1 }; // Friday 22:00 → Saturday 06:00
    if (k === 5 || k === 6) return { secs: [], manualSlot: -1 }; // the weekend after it is rest
    return null;
  }
  // Times follow the journey: start s, scheduled work w, a one-hour break after four hours.
  const { startSec: s, workSec: w } = world.journeyOf(c);
  const mondayLast = s + 5 * H + w - 4 * H + 5 * H + 30 * M; // w + 5 h 30 worked
  const tuesday = mondayLast + 8 * H + 30 * M - 24 * H; // 8 h 30 of rest after Monday
  switch (k) {
    case -1:
      return { secs: [], manualSlot: -1 }; // Sunday before: rest, so the run of days starts on Monday
    case 0:
      return { secs: [s, s + 4 * H, s + 5 * H, mondayLast], manualSlot: -1 };
    case 1:
      return { secs: [tuesday, tuesday + 4 * H, tuesday + 5 * H, tuesday + w + H], manualSlot: 0 }; // entry by a manager
    case 2:
      return { secs: [s, s + 4 * H, s + 4 * H + 30 * M, s + w + 30 * M], manualSlot: -1 }; // a 30-minute break
    case 3:
      return { secs: [s, s + w + H], manualSlot: -1, listedShortBreak: true }; // two punches: the break is pre-recorded
    case 4:
      return { secs: [s, s + 4 * H, s + 5 * H, s + w + 3 * H + 4 * M], manualSlot: -1, listedOvertime: true }; // 2 h 04 of overtime
    case 5:
    case 6:
      return { secs: [s, s + 4 * H], manualSlot: -1 }; // Saturday and Sunday: the sixth and seventh day
    case 7:
      return { secs: [s + 2 * M, s + 4 * H, s + 5 * H, s + w + H + 7 * M], manualSlot: -1 }; // 5 min over: tolerated
    default:
      return isHoliday(day) ? { secs: [s, s + 4 * H], manualSlot: -1 } : null;
  }
}
