/** What one day is worth (spec 2.7, 2.11): every total and balance sums these, so they agree. */
import type { Regime } from './entities.js';
import type { DayPlan } from './day-plan.js';

/** Numbers of one day, in seconds. */
export interface DayMetrics {
  /** Sum of complete punch pairs (spec 2.12 `worked_time`; `worked_actual_time`). */
  worked: number;
  /** Worked time by the rule: within ±10 minutes of the schedule counts as the schedule. */
  ruleWorked: number;
  /** Time between pairs (breaks). */
  intervals: number;
  sched: number;
  /** Overtime of the day, all destinations. */
  overtime: number;
  /** Hours short of the schedule on a worked day. */
  missing: number;
  faultFull: number;
  faultPartial: number;
  justified: number;
  justifiedNotPaid: number;
  medical: number;
  /** Worked time between 22:00 and 05:00. */
  night: number;
  /** Shortfall of the 11-hour rest since the previous day's last punch. */
  interShort: number;
  /** Shortfall of the one-hour break on days over six hours. */
  intraShort: number;
  /** Paid overtime per band (1, 2, 3, 4, dsr, holiday): [total, night] pairs. */
  bands: number[];
  /** Raw hour-bank movement (overtime to the bank minus debt). */
  bankRaw: number;
  /** Factored credit to the hour bank, and debit from it. */
  credit: number;
  debt: number;
}

const NIGHT_END = 5 * 3600;
const NIGHT_START = 22 * 3600;
/** Daily overtime limit (CLT art. 59). */
export const OVERTIME_LIMIT = 2 * 3600;
/** A mark's variation the overtime limit tolerates (CLT art. 58 §1): the source lists overtime above 2 h 05. */
export const MARK_TOLERANCE = 300;
/** Minimum break of a day over six hours (CLT art. 71). */
export const INTRA_BREAK = 3600;
/** Minimum rest between two days (CLT art. 66). */
const INTERJOURNEY = 11 * 3600;
/** Daily tolerance of the rule (CLT art. 58 §1). */
const RULE_TOLERANCE = 600;

/** Overtime band of work on each kind of rest day. */
const REST_BANDS = { saturday: 3, sunday: 4, holiday: 5 } as const;

/** Seconds of [a, b) that fall in the night windows [0, 05:00), [22:00, 05:00 next day) and the next night's. */
function nightOverlap(a: number, b: number): number {
  let night = Math.max(0, Math.min(b, NIGHT_END) - Math.max(a, 0));
  for (const midnight of [86400, 2 * 86400])
    night += Math.max(0, Math.min(b, midnight + NIGHT_END) - Math.max(a, midnight - 86400 + NIGHT_START));
  return night;
}

/** Adds the paid part [paidFrom, paidTo) of overtime offsets [a, b) to a band, with its night part. */
function putBand(
  bands: number[],
  band: number,
  a: number,
  b: number,
  paidFrom: number,
  paidTo: number,
  t0: number,
): void {
  const x = Math.max(a, paidFrom);
  const y = Math.min(b, paidTo);
  if (y <= x) return;
  bands[band * 2] += y - x;
  bands[band * 2 + 1] += nightOverlap(t0 + x, t0 + y);
}

/** Sum of complete pairs (an unpaired last punch counts nothing) and of the breaks between them. */
function pairTotals(secs: readonly number[]): {
  worked: number;
  intervals: number;
  night: number;
  lastEnd: number;
} {
  let worked = 0;
  let intervals = 0;
  let night = 0;
  let lastEnd = -1;
  for (let i = 0; i + 1 < secs.length; i += 2) {
    const a = secs[i]!;
    const b = secs[i + 1]!;
    worked += b - a;
    night += nightOverlap(a, b);
    if (lastEnd >= 0) intervals += a - lastEnd;
    lastEnd = b;
  }
  return { worked, intervals, night, lastEnd };
}

/** Night reduction of CLT art. 73: a night hour counts as 52 min 30 s. */
export function nightReduced(night: number): number {
  return Math.round((night * 8) / 7);
}

/** Metrics of one day. `prevLast` is the previous day's last punch (seconds) or null. */
export function computeDayMetrics(
  plan: DayPlan,
  secs: readonly number[],
  prevLast: number | null,
  regime: Regime,
): DayMetrics {
  const { worked, intervals, night, lastEnd } = pairTotals(secs);
  const m: DayMetrics = {
    worked,
    ruleWorked: worked,
    intervals,
    sched: plan.schedSec,
    night,
    overtime: 0,
    missing: 0,
    faultFull: 0,
    faultPartial: 0,
    justified: 0,
    justifiedNotPaid: 0,
    medical: 0,
    interShort: 0,
    intraShort: 0,
    bankRaw: 0,
    credit: 0,
    debt: 0,
    bands: new Array<number>(12).fill(0),
  };
  // A day in progress only shows what was punched so far.
  if (plan.inProgress) return m;
  const bankRegime = regime !== 'HE';

  if (plan.absence && plan.scheduled) {
    const k = plan.absence.type.kind;
    if (k === 'comp_off' && bankRegime) m.debt += plan.schedSec;
    else if (!plan.absence.paid) m.justifiedNotPaid += plan.schedSec;
    else m.justified += plan.schedSec;
    if (k === 'medical') m.medical += plan.schedSec;
  }
  let partialJust = 0;
  if (plan.partial && plan.scheduled) {
    partialJust = plan.partial.endSec - plan.partial.beginSec;
    if (plan.partial.paid) m.justified += partialJust;
    else m.justifiedNotPaid += partialJust;
  }

  if (plan.scheduled && !plan.absence) {
    if (secs.length < 2) {
      m.faultFull = plan.schedSec;
    } else {
      const diff = worked + partialJust - plan.schedSec;
      m.ruleWorked = Math.abs(diff) <= RULE_TOLERANCE ? worked - diff : worked;
      m.overtime = Math.max(0, m.ruleWorked + partialJust - plan.schedSec);
      m.missing = Math.max(0, plan.schedSec - m.ruleWorked - partialJust);
    }
  } else if (!plan.scheduled) {
    m.overtime = worked;
  }

  if (secs.length >= 4 && worked > 6 * 3600 && intervals < INTRA_BREAK)
    m.intraShort = INTRA_BREAK - intervals;
  if (prevLast !== null && secs.length > 0) {
    const gap = 86400 - prevLast + secs[0]!;
    if (gap < INTERJOURNEY) m.interShort = INTERJOURNEY - gap;
  }

  // Split the overtime between paid bands and the hour bank by regime (spec 2.11).
  const o = m.overtime;
  let paidFrom = 0;
  let paidTo = 0;
  if (regime === 'HE') paidTo = o;
  else if (regime === 'Híbrido (BH)') [paidFrom, paidTo] = [Math.min(o, OVERTIME_LIMIT), o];
  else if (regime === 'Híbrido (HE)') paidTo = Math.min(o, OVERTIME_LIMIT);
  const bankPart = o - (paidTo - paidFrom);
  if (paidTo > paidFrom) {
    // Overtime is the end of the worked time: offset t is clock time (lastEnd - o + t).
    const t0 = lastEnd - o;
    if (plan.rest) putBand(m.bands, REST_BANDS[plan.rest], 0, o, paidFrom, paidTo, t0);
    else {
      putBand(m.bands, 0, 0, 3600, paidFrom, paidTo, t0);
      putBand(m.bands, 1, 3600, OVERTIME_LIMIT, paidFrom, paidTo, t0);
      putBand(m.bands, 2, OVERTIME_LIMIT, Infinity, paidFrom, paidTo, t0);
    }
  }
  const factor = plan.rest === 'sunday' || plan.rest === 'holiday' ? 1.5 : 1;
  m.credit = Math.round(bankPart * factor);
  if (bankRegime) m.debt += m.missing;
  else m.faultPartial = m.missing;
  m.bankRaw = bankPart - m.debt;
  return m;
}
