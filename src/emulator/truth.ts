/**
 * Ground truth straight from the model (docs/emulator.md, `truth`), for tests that compare the
 * warehouse with the emulator by sets. It uses the handlers' builders, so the two cannot drift apart.
 */
import { TOTAL_HOURS_KEYS, type TotalHoursKey } from '../api/schemas.js';
import { LOOKUP_TABLES, type LookupTable } from '../resources/lookups.js';
import { localToUtc } from '../util/time.js';
import { dateOf, dateTimeOf, dayOf, monthOf } from './calendar.js';
import {
  employmentEnd,
  type AbsenceEntity,
  type CollaboratorEntity,
  type CompanyEntity,
} from './entities.js';
import type { DayRecord, History } from './history.js';
import { EXTRA_FIELDS, NEW_ENUM_VALUES, type Quirks } from './quirks.js';
import { DAY_ENTRY_ENDPOINTS, isGeolocated, periodTotals, punchTraits } from './records.js';
import { phantomSeconds } from './contradictions.js';
import { labourLawDays, LOOKBACK_DAYS, type TruthLabourDay } from './labour-law-truth.js';
import type { SentCollaboratorBlock } from './world.js';

/**
 * A collaborator record as the model knows it. `national_registry` is the CPF as the
 * warehouse should hold it (11 digits, zero-padded), even when quirk `unpaddedCpf` sends
 * it without its leading zeros (`sentNationalRegistry`).
 */
export interface TruthCollaborator extends SentCollaboratorBlock {
  readonly collaboratorId: number;
  /** The CPF exactly as the API sends it. */
  readonly sentNationalRegistry: string;
  /** Quirk `nulls`: a contractor, sent without `registration_number` and `pis`. */
  readonly contractor: boolean;
  /** Listed by `GET collaborator` (neither dismissed nor blocked). */
  readonly listed: boolean;
  readonly dismissed: boolean;
  readonly dismissalDate: string | null;
  /** The last day the API returns data of the record for: its dismissal, the day before a block, or today. */
  readonly lastDataDate: string;
}

/** An entry of one collaborator record: its zero-padded CPF and `collaborator_id`, then `T`. */
type Owned<T> = { readonly cpf: string; readonly collaboratorId: number } & T;

/** An absence as the model knows it (its ledger entry, spec 2.5). */
export interface TruthAbsence {
  readonly absenceId: number;
  /** Type name as sent. */
  readonly type: string;
  /** Local dates of `begin_date` and `end_date`. */
  readonly beginDate: string;
  readonly endDate: string;
  /** Whole days (spec 2.5 `full_day`), or part of a day. */
  readonly fullDay: boolean;
  /** Seconds after local midnight of `begin_date` and of `end_date` (0 and 86399 for full days). */
  readonly beginSeconds: number;
  readonly endSeconds: number;
  /** The collaborator records it concerns. */
  readonly collaborators: readonly Owned<{ readonly admissionDate: string }>[];
}

/** A company as the model knows it. */
export interface TruthCompany {
  readonly cnpj: string;
  /** IANA zone of its local date-times (spec 1.2): what the sync should read them in. */
  readonly timeZone: string;
  /** `zip_code` as sent. */
  readonly zipCode: string;
  /** Two-letter state of its city (where its state holidays apply). */
  readonly state: string;
  /** The spec 2.2 record exactly as sent (quirk `nulls` leaves address parts empty, null or absent). */
  readonly record: Record<string, unknown>;
}

/** A punch as the model knows it. */
export type TruthPoint = Owned<{
  readonly pointId: number;
  /** Local date-time as sent. */
  readonly datetime: string;
  /** The UTC instant of `datetime` in the company's time zone (ISO 8601). */
  readonly instant: string;
  readonly origin: string;
  readonly method: string;
  /** False when sent without `geolocation`, `accuracy_meters` and `address` (quirk `nulls`). */
  readonly geolocated: boolean;
}>;

/** Several records of one CPF in one company. */
export interface TruthDuplicate {
  /** Zero-padded CPF. */
  readonly cpf: string;
  /**
   * `duplicateCpf`: at least two records active at once; `rehireInMonth`: a dismissal and a
   * re-admission in the same calendar month; `rehire`: records months apart.
   */
  readonly kind: 'duplicateCpf' | 'rehireInMonth' | 'rehire';
  /** The records, in admission order. */
  readonly records: readonly {
    readonly collaboratorId: number;
    readonly registrationNumber: string | null;
    readonly admissionDate: string;
    readonly dismissalDate: string | null;
  }[];
}

/** A move of one person between two companies of the group. */
export interface TruthTransfer {
  /** Zero-padded CPF. */
  readonly cpf: string;
  readonly fromCnpj: string;
  readonly toCnpj: string;
  /** Last day of the record left (`YYYY-MM-DD`) and admission of the record started. */
  readonly leftOn: string;
  readonly startedOn: string;
}

/** What the quirks of this emulator produce. */
export interface TruthQuirks {
  /** The quirks that are on. */
  readonly enabled: Quirks;
  /** Values outside the spec's lists that `newEnums` sends. */
  readonly newValues: typeof NEW_ENUM_VALUES;
  /** Fields outside the spec that `extraFields` sends (ignored by a sync, reported as drift). */
  readonly extraFields: typeof EXTRA_FIELDS;
}

/** One entry of a per-day endpoint, as sent. */
type DayEntry = Record<string, unknown>;

/** spec 2.11 `overtime` of one collaborator record on one date, in seconds. */
type TruthHourBank = Owned<{
  regime: string;
  dayBalanceSeconds: number;
  accumulatedSeconds: number;
  creditSeconds: number;
  debtSeconds: number;
  /** spec 2.11 `total_overtime` of the day. */
  totalOvertimeSeconds: number;
}>;

/** Ground truth of one company (all ranges are inclusive `YYYY-MM-DD`). */
export interface EmulatorTruth {
  /** Every company of the group, active ones first, with its time zone. */
  companies(): TruthCompany[];
  /** The IANA zone of a company's local date-times. */
  timeZone(cnpj: string): string;
  /** Punches `point/getFromPeriod` returns for the range, with origin, method, GPS and UTC instant. */
  points(cnpj: string, from: string, to: string): TruthPoint[];
  /** CPFs with more than one record in the company (duplicated CPF, re-hires). */
  duplicates(cnpj: string): TruthDuplicate[];
  /** The quirks that are on and the new values they send. */
  quirks(): TruthQuirks;
  /**
   * Moves between two active companies of the group: a CPF whose record in one company
   * ends (its last day of data) and whose record in another, admitted later, starts
   * within 31 days of it (quirk `groupTransfer` makes one).
   */
  transfers(): TruthTransfer[];
  /** Every collaborator record of the company, dismissed and blocked ones included. */
  collaborators(cnpj: string): TruthCollaborator[];
  /** Ids of the punches `point/getFromPeriod` returns for the range. */
  pointIds(cnpj: string, from: string, to: string): number[];
  /** Day objects of `point/getFromPeriod`, worked time in seconds. */
  workDays(cnpj: string, from: string, to: string): Owned<{ date: string; workedSeconds: number }>[];
  /**
   * Unjustified absences (faltas) of the range: scheduled days of a record without any
   * punch and without a full-day absence, as daily_attendance.is_absent counts them. Today
   * is in progress and never one.
   */
  absentDays(cnpj: string, from: string, to: string): Owned<{ date: string }>[];
  /** `collaborator/totalHours` for the range, every key of spec 2.7 in seconds (one entry per record). */
  hourTotals(cnpj: string, from: string, to: string): Owned<{ totals: Record<TotalHoursKey, number> }>[];
  /** The entries of a per-day endpoint (records.ts `DAY_ENTRY_ENDPOINTS`) as sent, with whose they are. */
  dayEntries(endpoint: string, cnpj: string, from: string, to: string): Owned<{ entry: DayEntry }>[];
  /** `overtime` for one date (one entry per collaborator record). */
  hourBank(cnpj: string, date: string): TruthHourBank[];
  /** Ids of absences overlapping the range. */
  absenceIds(cnpj: string, from: string, to: string): number[];
  /** The absences overlapping the range, with their days and collaborator records (the absence ledger). */
  absences(cnpj: string, from: string, to: string): TruthAbsence[];
  /** Ids each lookup listing returns, by warehouse table name. */
  lookups(cnpj: string): Record<LookupTable, number[]>;
  /** Where quirk `contradictions` makes the source disagree with itself in the range (empty without it). */
  contradictions(cnpj: string, from: string, to: string): TruthContradictions;
  /** The labour-law findings of every record day with punches in the range (labour-law-truth.ts). */
  labourLaw(cnpj: string, from: string, to: string): TruthLabourLaw;
}

/** The labour-law findings of a company's record days, and whom option `labourLaw` scripts. */
export interface TruthLabourLaw {
  /** CPFs of the scripted day worker and night worker (null without the option). */
  readonly cast: { readonly day: string | null; readonly night: string | null };
  readonly days: readonly Owned<
    TruthLabourDay & { readonly admissionDate: string; readonly department: string }
  >[];
}

/** What quirk `contradictions` sends that disagrees with the rest of the answer (contradictions.ts). */
export interface TruthContradictions {
  /** Days whose worked time the totals count but no day object holds: the totals exceed the days by `seconds`. */
  readonly totals: readonly Owned<{ readonly date: string; readonly seconds: number }>[];
  /** Days listed with their worked time but without their punches, and the punches left out. */
  readonly punches: readonly Owned<{
    readonly date: string;
    readonly workedSeconds: number;
    readonly pointIds: readonly number[];
  }>[];
}

/** Builds the truth view of a history. */
export function createTruth(history: History): EmulatorTruth {
  const world = history.world;
  const company = (cnpj: string): CompanyEntity => {
    const c = world.companyByCnpj(cnpj);
    if (!c) throw new RangeError(`truth: no company ${cnpj} in the emulator`);
    return c;
  };
  type Days = ReturnType<History['days']>;
  function* within(cnpj: string, from: string, to: string): Generator<[CollaboratorEntity, Days]> {
    const b = dayOf(from);
    const e = dayOf(to);
    for (const c of company(cnpj).collaborators) {
      if (Math.max(b, world.firstDay(c)) <= Math.min(e, world.lastDay(c))) yield [c, history.days(c, b, e)];
    }
  }
  /** Every valued day of the company's records in the range, with whose it is. */
  type Day = [CollaboratorEntity, DayRecord];
  const eachDay = (cnpj: string, from: string, to: string): Day[] =>
    [...within(cnpj, from, to)].flatMap(([c, days]) => Array.from(days, (r): Day => [c, r]));
  const owner = (c: CollaboratorEntity): Owned<object> => ({ cpf: c.cpf, collaboratorId: c.id });
  const companyOf = (co: CompanyEntity): TruthCompany => {
    const record = { ...world.companyRecord(co) } as Record<string, unknown>;
    return {
      cnpj: co.cnpj,
      timeZone: world.timeZoneOf(co),
      zipCode: String(record.zip_code),
      state: co.city.state,
      record,
    };
  };
  const overlapping = (cnpj: string, from: string, to: string): AbsenceEntity[] =>
    history.absencesOverlapping(company(cnpj), dayOf(from), 0, dayOf(to), 86399);
  return {
    companies: () => world.companies.map(companyOf),
    timeZone: (cnpj) => world.timeZoneOf(company(cnpj)),
    points: (cnpj, from, to) => {
      const zone = world.timeZoneOf(company(cnpj));
      return eachDay(cnpj, from, to).flatMap(([c, r]) =>
        r.punches.map((p) => {
          const t = punchTraits(world, c, r.day, p);
          const datetime = dateTimeOf(r.day, p.sec);
          return {
            pointId: p.id,
            collaboratorId: c.id,
            cpf: c.cpf,
            datetime,
            instant: localToUtc(datetime, zone).toISOString(),
            origin: t.origin,
            method: t.method,
            geolocated: isGeolocated(world, t),
          };
        }),
      );
    },
    duplicates: (cnpj) => {
      const byCpf = new Map<string, CollaboratorEntity[]>();
      for (const c of company(cnpj).collaborators) byCpf.set(c.cpf, [...(byCpf.get(c.cpf) ?? []), c]);
      return [...byCpf]
        .filter(([, list]) => list.length > 1)
        .map(([cpf, list]): TruthDuplicate => {
          const sorted = [...list].sort((a, b) => a.beginDay - b.beginDay || a.id - b.id);
          const concurrent = sorted.some((a, i) =>
            sorted.slice(i + 1).some((b) => b.beginDay <= world.lastDay(a)),
          );
          const sameMonth = sorted.some((a, i) => {
            const b = sorted[i + 1];
            return (
              b !== undefined && a.dismissalDay !== null && monthOf(a.dismissalDay) === monthOf(b.beginDay)
            );
          });
          return {
            cpf,
            kind: concurrent ? 'duplicateCpf' : sameMonth ? 'rehireInMonth' : 'rehire',
            records: sorted.map((c) => ({
              collaboratorId: c.id,
              registrationNumber: world.collaboratorBlock(c).registration_number,
              admissionDate: c.admissionDate,
              dismissalDate: c.dismissalDay === null ? null : dateOf(c.dismissalDay),
            })),
          };
        });
    },
    transfers: () => {
      const records = world.activeCompanies().flatMap((co) => co.collaborators);
      return records.flatMap((a) => {
        const end = employmentEnd(a);
        if (end === Infinity) return [];
        return records
          .filter(
            (b) =>
              b.cpf === a.cpf &&
              b.company !== a.company &&
              b.beginDay > a.beginDay &&
              b.beginDay >= end - 30 &&
              b.beginDay <= end + 31,
          )
          .map((b) => ({
            cpf: a.cpf,
            fromCnpj: a.company.cnpj,
            toCnpj: b.company.cnpj,
            leftOn: dateOf(end),
            startedOn: b.admissionDate,
          }));
      });
    },
    quirks: () => ({ enabled: world.options.quirks, newValues: NEW_ENUM_VALUES, extraFields: EXTRA_FIELDS }),
    collaborators: (cnpj) =>
      company(cnpj).collaborators.map((c) => ({
        ...world.collaboratorBlock(c),
        national_registry: c.cpf,
        sentNationalRegistry: world.sentCpf(c),
        contractor: c.contractor === true,
        collaboratorId: c.id,
        listed: world.isListed(c),
        dismissed: c.dismissalDay !== null,
        dismissalDate: c.dismissalDay === null ? null : dateOf(c.dismissalDay),
        lastDataDate: dateOf(world.lastDay(c)),
      })),
    pointIds: (cnpj, from, to) => eachDay(cnpj, from, to).flatMap(([, r]) => r.punches.map((p) => p.id)),
    workDays: (cnpj, from, to) =>
      eachDay(cnpj, from, to).map(([c, r]) => ({
        ...owner(c),
        date: dateOf(r.day),
        workedSeconds: r.metrics.worked,
      })),
    absentDays: (cnpj, from, to) =>
      eachDay(cnpj, from, to)
        .filter(
          ([, r]) => r.plan.scheduled && !r.plan.inProgress && !r.plan.absence && r.punches.length === 0,
        )
        .map(([c, r]) => ({ ...owner(c), date: dateOf(r.day) })),
    hourTotals: (cnpj, from, to) =>
      [...within(cnpj, from, to)].map(([c]) => {
        const acc = periodTotals(history, c, dayOf(from), dayOf(to));
        const totals = Object.fromEntries(TOTAL_HOURS_KEYS.map((k, i) => [k, acc[i]!]));
        return { ...owner(c), totals: totals as Record<TotalHoursKey, number> };
      }),
    dayEntries: (endpoint, cnpj, from, to) => {
      const build = DAY_ENTRY_ENDPOINTS[endpoint];
      if (!build) throw new RangeError(`truth: ${endpoint} is no per-day endpoint`);
      const entries = ([c, r]: Day) => build.entries(world, r).map((entry) => ({ ...owner(c), entry }));
      return eachDay(cnpj, from, to).flatMap(entries);
    },
    hourBank: (cnpj, date) =>
      company(cnpj).collaborators.flatMap((c) => {
        const b = history.bank(c, dayOf(date));
        if (!b) return [];
        return [
          {
            ...owner(c),
            regime: world.regimeName(c),
            dayBalanceSeconds: b.dayBalance,
            accumulatedSeconds: b.accumulated,
            creditSeconds: b.credit,
            debtSeconds: b.debt,
            totalOvertimeSeconds: b.record.metrics.overtime,
          },
        ];
      }),
    absenceIds: (cnpj, from, to) => overlapping(cnpj, from, to).map((a) => a.id),
    absences: (cnpj, from, to) =>
      overlapping(cnpj, from, to).map((a) => ({
        absenceId: a.id,
        type: a.type.description,
        beginDate: dateOf(a.beginDay),
        endDate: dateOf(a.endDay),
        fullDay: a.fullDay,
        beginSeconds: a.beginSec,
        endSeconds: a.endSec,
        collaborators: a.collaboratorIds.flatMap((id) => {
          const c = world.collaboratorById(id);
          return c ? [{ ...owner(c), admissionDate: c.admissionDate }] : [];
        }),
      })),
    contradictions: (cnpj, from, to) => {
      const days = eachDay(cnpj, from, to);
      return {
        totals: days.flatMap(([c, r]) => {
          const seconds = phantomSeconds(history.contradicting, c, r.day);
          return seconds > 0 ? [{ ...owner(c), date: dateOf(r.day), seconds }] : [];
        }),
        punches: days.flatMap(([c, r]) => {
          const pointIds = history.droppedPunches(c, r.day).map((p) => p.id);
          const workedSeconds = r.metrics.worked;
          return pointIds.length > 0 ? [{ ...owner(c), date: dateOf(r.day), workedSeconds, pointIds }] : [];
        }),
      };
    },
    labourLaw: (cnpj, from, to) => {
      const first = dayOf(from);
      const days = company(cnpj).collaborators.flatMap((c) => {
        const department = world.collaboratorBlock(c).department ?? '';
        const record = { ...owner(c), admissionDate: c.admissionDate, department };
        return labourLawDays(history.days(c, first - LOOKBACK_DAYS - 1, dayOf(to)), first).map((d) => ({
          ...record,
          ...d,
        }));
      });
      const cast = history.labourLaw;
      return { cast: { day: cast.day?.cpf ?? null, night: cast.night?.cpf ?? null }, days };
    },
    lookups: (cnpj) => {
      const co = company(cnpj);
      return Object.fromEntries(
        LOOKUP_TABLES.map((t) => [t, world.listedLookups(co, t).map((r) => r.id)]),
      ) as Record<LookupTable, number[]>;
    },
  };
}
