/**
 * History derived on demand: each collaborator day is planned from the seed ({@link planDay}),
 * overlaid with writes and admin mutations, then valued ({@link computeDayMetrics}). Only
 * overlays and small caches are stored; the caches are dropped when an overlay touches them.
 */
import { civil, monthEnd, monthOf, monthStart } from './calendar.js';
import { generateMonthAbsences, decodeAbsenceId } from './absence-generator.js';
import { NO_CONTRADICTIONS, pickContradicting, type Contradicting } from './contradictions.js';
import { NO_LABOUR_LAW, pickLabourLawCast, scriptedDay, type LabourLawCast } from './labour-law.js';
import { computeDayMetrics, type DayMetrics } from './day-metrics.js';
import { planDay, SLOTS_PER_DAY, type DayPlan } from './day-plan.js';
import type { AbsenceEntity, CollaboratorEntity, CompanyEntity, JourneyEntity } from './entities.js';
import { ADJUSTMENT_REASONS, MANAGERS } from './names.js';
import { utcToLocal } from '../util/time.js';
import { rngFor } from './random.js';
import type { World } from './world.js';

/** A punch as the day shows it after overlays. */
export interface EffectivePunch {
  readonly id: number;
  readonly sec: number;
  /** Generated slot, or -1 for a punch sent through the API. */
  readonly slot: number;
  readonly api: boolean;
  /** Entered by a manager (origin `Manual`). */
  readonly manual: boolean;
  readonly adjusted: boolean;
  readonly reason: string | null;
  readonly by: string | null;
}

/** One valued day of one collaborator. */
export interface DayRecord {
  readonly collaborator: CollaboratorEntity;
  readonly day: number;
  readonly plan: DayPlan;
  /** Punches sorted by time. */
  readonly punches: readonly EffectivePunch[];
  readonly metrics: DayMetrics;
}

/** A punch's new time and who adjusted it why. */
type Edit = { sec: number; reason: string; by: string };
/** Changes to one collaborator day: deleted and moved point ids, punches sent through the API. */
type DayOverlay = { deleted: Set<number>; moved: Map<number, Edit>; added: { id: number; sec: number }[] };
type MonthAbsences = { list: AbsenceEntity[]; byCollaborator: Map<number, AbsenceEntity[]> };
type DayAbsences = { full: AbsenceEntity | null; partial: AbsenceEntity | null };

/** Company-months of generated absences kept in memory. */
const ABSENCE_CACHE_LIMIT = 512;

/** First id of absences created through the API. */
const API_ABSENCE_BASE = 1_900_000_000;

/** Keeps the first full-day and the first partial absence of `list` covering `day`. */
function pickAbsences(found: DayAbsences, list: AbsenceEntity[] = [], day: number, fullOnly = false): void {
  for (const a of list) {
    if (a.beginDay > day || a.endDay < day) continue;
    if (a.fullDay) found.full ??= a;
    else if (!fullOnly) found.partial ??= a;
  }
}

/** Hour-bank credit and debt summed over days. */
function creditAndDebt(days: Iterable<DayRecord>): [number, number] {
  let [credit, debt] = [0, 0];
  for (const r of days) [credit, debt] = [credit + r.metrics.credit, debt + r.metrics.debt];
  return [credit, debt];
}

/** Key of a collaborator day in the overlay map. */
function dayKey(c: CollaboratorEntity, day: number): number {
  return c.id * 100_000 + day;
}

/** Derives and caches the history of a {@link World}. */
export class History {
  private readonly overlays = new Map<number, DayOverlay>();
  private readonly apiPoints = new Map<number, { c: CollaboratorEntity; day: number }>();
  private nextApiPoint: number;
  /** Generated absences per company-month, evicted oldest first. */
  private readonly absenceCache = new Map<number, MonthAbsences>();
  private readonly apiAbsences: AbsenceEntity[] = [];
  private readonly apiAbsencesByCollaborator = new Map<number, AbsenceEntity[]>();
  private readonly bankCache = new Map<number, Float64Array>();
  /** Quirk `contradictions`: whom the source contradicts itself about (contradictions.ts). */
  readonly contradicting: Contradicting;
  /** Option `labourLaw`: whose days follow the script of labour-law cases (labour-law.ts). */
  readonly labourLaw: LabourLawCast;
  /** Quirk `contradictions`: the day of each month listed without its punches, by month. */
  private readonly droppedDays = new Map<number, number | null>();

  constructor(readonly world: World) {
    this.nextApiPoint = world.generatedPointMax + 1;
    this.contradicting = world.options.quirks.contradictions ? pickContradicting(world) : NO_CONTRADICTIONS;
    this.labourLaw = world.options.labourLaw ? pickLabourLawCast(world) : NO_LABOUR_LAW;
  }

  /** Generated absences starting in a month, indexed by collaborator (cached). */
  private monthAbsences(company: CompanyEntity, month: number): MonthAbsences {
    const key = company.index * 1_000_000 + month;
    const hit = this.absenceCache.get(key);
    if (hit) return hit;
    const list = generateMonthAbsences(this.world, company, month);
    const byCollaborator = new Map<number, AbsenceEntity[]>();
    for (const a of list)
      for (const id of a.collaboratorIds) byCollaborator.set(id, [...(byCollaborator.get(id) ?? []), a]);
    const entry = { list, byCollaborator };
    this.absenceCache.set(key, entry);
    if (this.absenceCache.size > ABSENCE_CACHE_LIMIT)
      this.absenceCache.delete(this.absenceCache.keys().next().value!);
    return entry;
  }

  /** The absences of a collaborator touching a day: the first full-day one and the first partial one. */
  absencesOfDay(c: CollaboratorEntity, day: number): DayAbsences {
    const found: DayAbsences = { full: null, partial: null };
    if (c.generated) {
      const m = monthOf(day);
      pickAbsences(found, this.monthAbsences(c.company, m - 1).byCollaborator.get(c.id), day);
      pickAbsences(found, this.monthAbsences(c.company, m).byCollaborator.get(c.id), day);
    }
    // Absences created through the API carry no times, so only full-day ones change the punches.
    pickAbsences(found, this.apiAbsencesByCollaborator.get(c.id), day, true);
    return found;
  }

  /** Absences of a company overlapping [begin, end] given as (day, seconds) bounds, by id. */
  absencesOverlapping(
    company: CompanyEntity,
    beginDay: number,
    beginSec: number,
    endDay: number,
    endSec: number,
  ): AbsenceEntity[] {
    const out: AbsenceEntity[] = [];
    const before = (d1: number, s1: number, d2: number, s2: number): boolean =>
      d1 < d2 || (d1 === d2 && s1 < s2);
    const overlaps = (a: AbsenceEntity): boolean =>
      !before(a.endDay, a.endSec, beginDay, beginSec) && !before(endDay, endSec, a.beginDay, a.beginSec);
    // A generated absence lasts at most 30 days, so it starts at most one month before the period.
    const from = Math.max(this.world.firstMonth, monthOf(beginDay) - 1);
    for (let m = from; m <= monthOf(endDay); m++) {
      for (const a of this.monthAbsences(company, m).list) if (overlaps(a)) out.push(a);
    }
    for (const a of this.apiAbsences) if (a.company === company && overlaps(a)) out.push(a);
    return out.sort((a, b) => a.id - b.id);
  }

  /** Finds an absence by id (generated or created through the API). */
  absenceById(id: number): AbsenceEntity | undefined {
    if (id > API_ABSENCE_BASE) return this.apiAbsences.find((a) => a.id === id);
    const d = decodeAbsenceId(this.world, id);
    const company = d && this.world.companies[d.companyIndex];
    if (!d || !company) return undefined;
    return this.monthAbsences(company, d.month).list.find((a) => a.id === id);
  }

  /** Records an absence created through the API; returns its id. */
  addApiAbsence(fields: Omit<AbsenceEntity, 'id'>): number {
    const a = { ...fields, id: API_ABSENCE_BASE + this.apiAbsences.length + 1 };
    this.apiAbsences.push(a);
    for (const id of a.collaboratorIds) {
      this.apiAbsencesByCollaborator.set(id, [...(this.apiAbsencesByCollaborator.get(id) ?? []), a]);
      this.bankCache.delete(id);
    }
    return a.id;
  }

  /** Point id of a generated punch. */
  pointId(c: CollaboratorEntity, day: number, slot: number): number {
    return 1 + ((c.id - 1) * this.world.spanDays + (day - this.world.fromDay)) * SLOTS_PER_DAY + slot;
  }

  /** Second of today, in the company's local time, up to which generated punches are visible: none with a pinned clock. */
  private visibleUntil(day: number, company: CompanyEntity): number {
    if (day !== this.world.todayDay || this.world.options.pinned) return -1;
    const now = utcToLocal(new Date(this.world.options.now()), this.world.timeZoneOf(company));
    if (now.slice(0, 10) > this.world.options.today) return 86400;
    return Number(now.slice(11, 13)) * 3600 + Number(now.slice(14, 16)) * 60 + Number(now.slice(17, 19));
  }

  /** Plans a day of a collaborator. */
  plan(c: CollaboratorEntity, day: number, journey: JourneyEntity = this.world.journeyOf(c)): DayPlan {
    const { full, partial } = this.absencesOfDay(c, day);
    const plan = planDay({
      visibleUntilSec: this.visibleUntil(day, c.company),
      base: this.world.base,
      collaboratorId: c.id,
      journey,
      day,
      todayDay: this.world.todayDay,
      generated: c.generated,
      absence: full,
      partial,
    });
    return this.scripted(c, day, plan);
  }

  /** Option `labourLaw`: the scripted punches replace the generated ones (not on leave, not today). */
  private scripted(c: CollaboratorEntity, day: number, plan: DayPlan): DayPlan {
    if (this.labourLaw.day === null || plan.absence || plan.inProgress || !c.generated) return plan;
    const script = scriptedDay(this.world, this.labourLaw, c, day, civil(day)[2]);
    if (!script) return plan;
    const punches = script.secs.map((sec, slot) => ({ slot, sec, manual: slot === script.manualSlot }));
    const listed = {
      ...(script.listedShortBreak === true ? { listedShortBreak: true } : {}),
      ...(script.listedOvertime === true ? { listedOvertime: true } : {}),
    };
    return { ...plan, punches, fault: false, missingSlot: -1, refused: false, ...listed };
  }

  /** The day's punches after overlays, sorted by time then id. */
  punches(c: CollaboratorEntity, day: number, plan: DayPlan): EffectivePunch[] {
    const ov = this.overlays.size === 0 ? undefined : this.overlays.get(dayKey(c, day));
    const out: EffectivePunch[] = [];
    // Slot -1 is a punch sent through the API; an edit marks the punch adjusted.
    const push = (id: number, sec: number, slot: number, manual: boolean, edit: Edit | undefined): void => {
      if (ov?.deleted.has(id)) return;
      const e = ov?.moved.get(id) ?? edit;
      const [adjusted, reason, by] = e ? [true, e.reason, e.by] : [false, null, null];
      out.push({ id, sec: e?.sec ?? sec, slot, api: slot < 0, manual, adjusted, reason, by });
    };
    for (const p of plan.punches) {
      const r = p.manual ? rngFor(this.world.base, c.id, day, 41) : undefined;
      const edit = r && { sec: p.sec, reason: r.pick(ADJUSTMENT_REASONS), by: r.pick(MANAGERS) };
      push(this.pointId(c, day, p.slot), p.sec, p.slot, p.manual, edit);
    }
    for (const a of ov?.added ?? []) push(a.id, a.sec, -1, false, undefined);
    return out.sort((a, b) => a.sec - b.sec || a.id - b.id);
  }

  /** Valued days of a collaborator within [from, to] ∩ the days it has data. */
  *days(c: CollaboratorEntity, from: number, to: number): Generator<DayRecord> {
    const first = Math.max(from, this.world.firstDay(c));
    const last = Math.min(to, this.world.lastDay(c));
    if (first > last) return;
    const journey = this.world.journeyOf(c);
    let prevLast: number | null = null;
    if (first - 1 >= this.world.firstDay(c)) {
      const pp = this.punches(c, first - 1, this.plan(c, first - 1, journey));
      prevLast = pp.length > 0 ? pp[pp.length - 1]!.sec : null;
    }
    for (let day = first; day <= last; day++) {
      const plan = this.plan(c, day, journey);
      const punches = this.punches(c, day, plan);
      const secs = punches.map((p) => p.sec);
      const metrics = computeDayMetrics(plan, secs, prevLast, c.regime);
      prevLast = secs.length > 0 ? secs[secs.length - 1]! : null;
      // Quirk contradictions: the day keeps the worked time of punches it no longer lists.
      const listed = this.droppedDay(c, monthOf(day)) === day ? [] : punches;
      yield { collaborator: c, day, plan, punches: listed, metrics };
    }
  }

  /** Quirk `contradictions`: the first day of `month` with two punches, listed without them; or null. */
  droppedDay(c: CollaboratorEntity, month: number): number | null {
    if (this.contradicting.punches !== c) return null;
    let day = this.droppedDays.get(month);
    if (day === undefined) {
      day = null;
      const last = Math.min(monthEnd(month), this.world.lastDay(c), this.world.todayDay - 1);
      for (let d = Math.max(monthStart(month), this.world.firstDay(c)); d <= last && day === null; d++) {
        if (this.punches(c, d, this.plan(c, d)).length >= 2) day = d;
      }
      this.droppedDays.set(month, day);
    }
    return day;
  }

  /** Quirk `contradictions`: the punches a day held before the source left them out (none for other days). */
  droppedPunches(c: CollaboratorEntity, day: number): EffectivePunch[] {
    return this.droppedDay(c, monthOf(day)) === day ? this.punches(c, day, this.plan(c, day)) : [];
  }

  /** The valued day, or null when the collaborator has no data that day. */
  day(c: CollaboratorEntity, day: number): DayRecord | null {
    for (const r of this.days(c, day, day)) return r;
    return null;
  }

  private overlay(c: CollaboratorEntity, day: number): DayOverlay {
    const key = dayKey(c, day);
    let ov = this.overlays.get(key);
    if (!ov) {
      ov = { deleted: new Set(), moved: new Map(), added: [] };
      this.overlays.set(key, ov);
    }
    this.bankCache.delete(c.id);
    this.droppedDays.clear();
    return ov;
  }

  /** Adds a punch sent through the API; returns its id. */
  addApiPunch(c: CollaboratorEntity, day: number, sec: number): number {
    const id = this.nextApiPoint++;
    this.overlay(c, day).added.push({ id, sec });
    this.apiPoints.set(id, { c, day });
    return id;
  }

  /** Where a point id lives, if that punch exists now. */
  locatePoint(id: number): { c: CollaboratorEntity; day: number; punch: EffectivePunch } | null {
    let where: { c: CollaboratorEntity; day: number } | undefined;
    if (Number.isSafeInteger(id) && id >= 1 && id <= this.world.generatedPointMax) {
      const y = Math.floor((id - 1) / SLOTS_PER_DAY);
      const c = this.world.collaboratorById(Math.floor(y / this.world.spanDays) + 1);
      if (c) where = { c, day: this.world.fromDay + (y % this.world.spanDays) };
    } else {
      where = this.apiPoints.get(id);
    }
    if (!where) return null;
    const rec = this.day(where.c, where.day);
    const punch = rec?.punches.find((p) => p.id === id);
    return rec && punch ? { c: where.c, day: where.day, punch } : null;
  }

  /** Deletes a punch (admin mutation); false when it does not exist. */
  deletePunch(id: number): boolean {
    const at = this.locatePoint(id);
    if (!at) return false;
    this.overlay(at.c, at.day).deleted.add(id);
    return true;
  }

  /** Moves a punch within its day and marks it adjusted (admin mutation); false when it does not exist. */
  movePunch(id: number, sec: number, reason: string, by: string): boolean {
    const at = this.locatePoint(id);
    if (!at) return false;
    this.overlay(at.c, at.day).moved.set(id, { sec, reason, by });
    return true;
  }

  /** Drops cached balances of a collaborator after a change of its history. */
  invalidate(c: CollaboratorEntity): void {
    this.bankCache.delete(c.id);
  }

  /** Sums [credit, debt] of one month, cached per collaborator. */
  private monthBank(c: CollaboratorEntity, month: number): [number, number] {
    let arr = this.bankCache.get(c.id);
    if (!arr) {
      arr = new Float64Array((monthOf(this.world.todayDay) - this.world.firstMonth + 1) * 2).fill(NaN);
      this.bankCache.set(c.id, arr);
    }
    const i = (month - this.world.firstMonth) * 2;
    if (Number.isNaN(arr[i]!)) arr.set(creditAndDebt(this.days(c, monthStart(month), monthEnd(month))), i);
    return [arr[i]!, arr[i + 1]!];
  }

  /**
   * Hour-bank position on a day (spec 2.11): the accumulated balance starts from the
   * initial balance; `Híbrido (HE)` pays a positive balance out when each half-year
   * window closes; credit and debt are summed from the start of the current window.
   */
  bank(c: CollaboratorEntity, day: number) {
    const record = this.day(c, day);
    if (!record) return null;
    const target = monthOf(day);
    const windowStart = target - (target % 12 >= 6 ? (target % 12) - 6 : target % 12);
    let acc = c.initialBalanceSec;
    let credit = 0;
    let debt = 0;
    for (let m = this.world.firstMonth; m < target; m++) {
      const [cr, db] = this.monthBank(c, m);
      acc += cr - db;
      if (m >= windowStart) {
        credit += cr;
        debt += db;
      }
      if (c.regime === 'Híbrido (HE)' && (m % 12 === 5 || m % 12 === 11) && acc > 0) acc = 0;
    }
    const [cr, db] = creditAndDebt(this.days(c, Math.max(monthStart(target), this.world.firstDay(c)), day));
    const dayBalance = record.metrics.credit - record.metrics.debt;
    return { record, dayBalance, accumulated: acc + cr - db, credit: credit + cr, debt: debt + db };
  }
}
