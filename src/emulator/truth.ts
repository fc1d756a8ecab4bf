/**
 * Ground truth straight from the model (docs/emulator.md, `truth`), for tests
 * that compare the warehouse with the emulator by sets. It uses the same builders as
 * the HTTP handlers, so truth and responses cannot drift apart.
 */
import { TOTAL_HOURS_KEYS, type CollaboratorBlock, type TotalHoursKey } from '../api/schemas.js';
import { durationToSeconds, hourMinuteToSeconds } from '../util/duration.js';
import { dateOf, dayOf } from './calendar.js';
import type { CollaboratorEntity, CompanyEntity } from './entities.js';
import type { History } from './history.js';
import { addToTotals, adjustmentsJson, inconsistenciesJson, newTotals, tardinessJson } from './records.js';
import { LOOKUP_TABLES, type LookupTable } from './world.js';

/** A collaborator record as the model knows it. */
export interface TruthCollaborator extends CollaboratorBlock {
  /** `collaborator_id`. */
  readonly collaboratorId: number;
  /** Listed by `GET collaborator` (neither dismissed nor blocked). */
  readonly listed: boolean;
  readonly dismissed: boolean;
  readonly dismissalDate: string | null;
}

/** Ground truth of one company (all ranges are inclusive `YYYY-MM-DD`). */
export interface EmulatorTruth {
  /** Every collaborator record of the company, dismissed and blocked ones included. */
  collaborators(cnpj: string): TruthCollaborator[];
  /** Ids of the punches `point/getFromPeriod` returns for the range. */
  pointIds(cnpj: string, from: string, to: string): number[];
  /** Day objects of `point/getFromPeriod`, worked time in seconds. */
  workDays(cnpj: string, from: string, to: string): { cpf: string; date: string; workedSeconds: number }[];
  /** `collaborator/totalHours` for the range, every key of spec 2.7 in seconds. */
  hourTotals(cnpj: string, from: string, to: string): { cpf: string; totals: Record<TotalHoursKey, number> }[];
  /** `tardiness` entries. */
  tardiness(cnpj: string, from: string, to: string): { cpf: string; date: string; journeyIn: string; punchIn: string; minutesLateSeconds: number }[];
  /** `adjustment` entries. */
  adjustments(cnpj: string, from: string, to: string): { cpf: string; date: string; type: string; status: string }[];
  /** `inconsistency` entries. */
  inconsistencies(cnpj: string, from: string, to: string): { cpf: string; date: string; type: string; valueSeconds: number; status: string }[];
  /** `overtime` for one date, in seconds. */
  hourBank(
    cnpj: string,
    date: string,
  ): { cpf: string; regime: string; dayBalanceSeconds: number; accumulatedSeconds: number; creditSeconds: number; debtSeconds: number }[];
  /** Ids of absences overlapping the range. */
  absenceIds(cnpj: string, from: string, to: string): number[];
  /** Ids each lookup listing returns, by warehouse table name. */
  lookups(cnpj: string): Record<LookupTable, number[]>;
}

/** Builds the truth view of a history. */
export function createTruth(history: History): EmulatorTruth {
  const world = history.world;
  const company = (cnpj: string): CompanyEntity => {
    const c = world.companyByCnpj(cnpj);
    if (!c) throw new RangeError(`truth: no company ${cnpj} in the emulator`);
    return c;
  };
  function* within(cnpj: string, from: string, to: string): Generator<[CollaboratorEntity, ReturnType<History['days']>]> {
    const b = dayOf(from);
    const e = dayOf(to);
    for (const c of company(cnpj).collaborators) {
      if (Math.max(b, world.firstDay(c)) <= Math.min(e, world.lastDay(c))) yield [c, history.days(c, b, e)];
    }
  }
  return {
    collaborators: (cnpj) =>
      company(cnpj).collaborators.map((c) => ({
        ...world.collaboratorBlock(c),
        collaboratorId: c.id,
        listed: world.isListed(c),
        dismissed: c.dismissalDay !== null,
        dismissalDate: c.dismissalDay === null ? null : dateOf(c.dismissalDay),
      })),
    pointIds: (cnpj, from, to) => {
      const ids: number[] = [];
      for (const [, days] of within(cnpj, from, to)) for (const r of days) for (const p of r.punches) ids.push(p.id);
      return ids;
    },
    workDays: (cnpj, from, to) => {
      const out: { cpf: string; date: string; workedSeconds: number }[] = [];
      for (const [c, days] of within(cnpj, from, to)) for (const r of days) out.push({ cpf: c.cpf, date: dateOf(r.day), workedSeconds: r.metrics.worked });
      return out;
    },
    hourTotals: (cnpj, from, to) => {
      const out: { cpf: string; totals: Record<TotalHoursKey, number> }[] = [];
      for (const [c, days] of within(cnpj, from, to)) {
        const acc = newTotals();
        for (const r of days) addToTotals(acc, r.metrics);
        out.push({ cpf: c.cpf, totals: Object.fromEntries(TOTAL_HOURS_KEYS.map((k, i) => [k, acc[i]!])) as Record<TotalHoursKey, number> });
      }
      return out;
    },
    tardiness: (cnpj, from, to) => {
      const out: { cpf: string; date: string; journeyIn: string; punchIn: string; minutesLateSeconds: number }[] = [];
      for (const [c, days] of within(cnpj, from, to)) {
        for (const r of days) {
          const t = tardinessJson(world, r) as { date: string; journey_in: string; punch_in: string; minutes_late: string } | null;
          if (t) out.push({ cpf: c.cpf, date: t.date, journeyIn: t.journey_in, punchIn: t.punch_in, minutesLateSeconds: hourMinuteToSeconds(t.minutes_late) });
        }
      }
      return out;
    },
    adjustments: (cnpj, from, to) => {
      const out: { cpf: string; date: string; type: string; status: string }[] = [];
      for (const [c, days] of within(cnpj, from, to)) {
        for (const r of days) for (const a of adjustmentsJson(world, r)) out.push({ cpf: c.cpf, date: String(a.date), type: String(a.type), status: String(a.status) });
      }
      return out;
    },
    inconsistencies: (cnpj, from, to) => {
      const out: { cpf: string; date: string; type: string; valueSeconds: number; status: string }[] = [];
      for (const [c, days] of within(cnpj, from, to)) {
        for (const r of days) {
          for (const i of inconsistenciesJson(world, r)) {
            out.push({ cpf: c.cpf, date: String(i.date), type: String(i.type), valueSeconds: durationToSeconds(String(i.value)), status: String(i.status) });
          }
        }
      }
      return out;
    },
    hourBank: (cnpj, date) => {
      const day = dayOf(date);
      const out: { cpf: string; regime: string; dayBalanceSeconds: number; accumulatedSeconds: number; creditSeconds: number; debtSeconds: number }[] = [];
      for (const c of company(cnpj).collaborators) {
        const b = history.bank(c, day);
        if (b) {
          out.push({ cpf: c.cpf, regime: c.regime, dayBalanceSeconds: b.dayBalance, accumulatedSeconds: b.accumulated, creditSeconds: b.credit, debtSeconds: b.debt });
        }
      }
      return out;
    },
    absenceIds: (cnpj, from, to) => history.absencesOverlapping(company(cnpj), dayOf(from), 0, dayOf(to), 86399).map((a) => a.id),
    lookups: (cnpj) => {
      const co = company(cnpj);
      return Object.fromEntries(LOOKUP_TABLES.map((t) => [t, world.listedLookups(co, t).map((r) => r.id)])) as Record<LookupTable, number[]>;
    },
  };
}
