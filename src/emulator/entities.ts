/** The emulator's in-memory per-company state; history is derived on demand from it and the seed. */
import type { Company, CompanyBlock } from '../api/schemas.js';
import type { City } from './names.js';

/** spec 2.11: hour-bank regimes. */
export const REGIME_NAMES = ['BH', 'HE', 'Híbrido (BH)', 'Híbrido (HE)'] as const;
/** One of spec 2.11's regimes. */
export type Regime = (typeof REGIME_NAMES)[number];

/** A lookup record of spec 2.4 (`label` is its `description` or `name`). */
export interface LookupEntity {
  readonly id: number;
  label: string;
  readonly active: boolean;
}

/** A journey (escala) with the schedule the day generator follows. */
export interface JourneyEntity extends LookupEntity {
  /** Scheduled start, seconds after midnight. */
  readonly startSec: number;
  /** Scheduled work, seconds (excluding the break). */
  readonly workSec: number;
  /** Scheduled meal break, seconds (0 = two punches a day). */
  readonly breakSec: number;
  /** Working weekdays, bit `1 << weekday` (0 = Sunday). */
  readonly weekdays: number;
  /** Late-arrival tolerance, minutes (spec 2.8). */
  readonly toleranceMin: number;
  /** Late shift: occasionally called in early the next morning (inter-journey cases). */
  readonly lateShift: boolean;
  /** spec 2.12 `shift` text of a regular day. */
  readonly shift: string;
}

/** A unit: a place with coordinates where punches are geolocated. */
export interface UnitEntity extends LookupEntity {
  readonly isDefault: boolean;
  readonly lat: number;
  readonly lng: number;
  readonly address: string;
}

/** An occupation, with its CBO code. */
export interface OccupationEntity extends LookupEntity {
  readonly cbo: string | null;
}

/** Kinds of absence the generator knows, which decide how an absence counts in totals. */
export type AbsenceKind = 'vacation' | 'medical' | 'consult' | 'unpaid' | 'comp_off' | 'training' | 'other';

/** spec 2.4: absence type. */
export interface AbsenceTypeEntity {
  readonly id: number;
  readonly description: string;
  readonly paidLeave: boolean;
  readonly compTime: boolean;
  readonly compensation: boolean;
  readonly canRequestApp: boolean;
  readonly kind: AbsenceKind;
}

/** Every lookup list of one company. */
export interface CompanyLookups {
  readonly journeys: JourneyEntity[];
  readonly departments: LookupEntity[];
  readonly occupations: OccupationEntity[];
  readonly costCenters: LookupEntity[];
  readonly units: UnitEntity[];
  readonly pointRules: LookupEntity[];
  readonly settings: LookupEntity[];
  readonly fences: LookupEntity[];
  readonly firedTypes: LookupEntity[];
  /** Company-defined absence types (the global ones are shared by all companies). */
  readonly absenceTypes: AbsenceTypeEntity[];
}

/** A company of the economic group. */
export interface CompanyEntity {
  /** Position in the group: 0 = headquarters. */
  readonly index: number;
  readonly cnpj: string;
  /** Its fake `apiServiceToken`. */
  readonly token: string;
  readonly isHeadquarter: boolean;
  /** An inactive company's token gives 401 and it is outside the accessible group (spec §5 rule 4). */
  readonly active: boolean;
  /** spec 2.2 record. */
  readonly record: Company;
  /** spec 2.1 `company` block. */
  readonly block: CompanyBlock;
  readonly city: City;
  readonly lookups: CompanyLookups;
  /** Every collaborator record of the company, by id. */
  readonly collaborators: CollaboratorEntity[];
}

/** Attributes an admin mutation may overwrite on a collaborator block (spec 2.1 names). */
export interface CollaboratorOverrides {
  name?: string;
  email?: string;
  registration_number?: string;
  occupation?: string;
  department?: string;
  team?: string | null;
  business_unit?: string;
  pis?: string;
}

/** One collaborator record (a person hired twice in a company has two). */
export interface CollaboratorEntity {
  /** `collaborator_id` (spec 4.2 dismissal); unique in the whole emulator. */
  readonly id: number;
  readonly company: CompanyEntity;
  readonly cpf: string;
  name: string;
  email: string;
  registrationNumber: string;
  pis: string;
  readonly birthDate: string;
  /** Formal admission (spec 2.1 `admission_date`). */
  readonly admissionDate: string;
  /** Day number from which the collaborator punches (spec 4.2 `begin_date`). */
  readonly beginDay: number;
  /** Day number of the dismissal; null while employed. */
  dismissalDay: number | null;
  /** Day number from which the record is inactive without a dismissal (blocked); null when active. */
  readonly inactiveFromDay: number | null;
  departmentId: number;
  occupationId: number | null;
  unitId: number;
  journeyId: number;
  readonly costCenterId: number;
  readonly settingsId: number;
  readonly pointRuleId: number;
  team: string | null;
  readonly regime: Regime;
  /** Hour-bank balance carried in when history starts, seconds. */
  readonly initialBalanceSec: number;
  /** Usual origin: 0 App Mobile, 1 REP, 2 Web. */
  readonly originPref: number;
  /** True for the seeded roster (generated history); false for collaborators created through the API. */
  readonly generated: boolean;
  /** Admin overwrites of block attributes. */
  readonly overrides: CollaboratorOverrides;
  /** Set once a face photo was accepted. */
  hasFacePhoto: boolean;
  /** Quirk `nulls`: a contractor, sent without `registration_number` and `pis`. */
  readonly contractor?: boolean;
  /** Quirk `unpaddedCpf`: the CPF has leading zeros and is sent without them. */
  readonly cpfUnpadded?: boolean;
  /** Quirk `newEnums`: the regime name sent instead of {@link CollaboratorEntity.regime}, which still values the bank. */
  readonly regimeLabel?: string;
}

/** A file attached to an absence (spec 2.6), with its bytes built on demand. */
export interface AttachmentEntity {
  readonly filename: string;
  readonly mimeType: string;
  readonly content: () => Buffer;
}

/** An approved absence or vacation (spec 2.5) of one or more collaborators of a company. */
export interface AbsenceEntity {
  readonly id: number;
  readonly company: CompanyEntity;
  readonly type: AbsenceTypeEntity;
  readonly description: string;
  readonly details: string;
  readonly beginDay: number;
  readonly endDay: number;
  /** Seconds after midnight of `begin_date` and `end_date` (0 and 86399 for full days). */
  readonly beginSec: number;
  readonly endSec: number;
  readonly fullDay: boolean;
  readonly paid: boolean;
  readonly sumOnWorkTime: boolean;
  readonly sumTotalOnWorkTime: boolean;
  readonly crRegister: string;
  readonly professionalName: string;
  readonly healthUnit: string;
  readonly cidDescription: string;
  readonly cid: readonly string[];
  readonly attachments: readonly AttachmentEntity[];
  readonly collaboratorIds: readonly number[];
}

/** Last day the collaborator works (dismissal or block), ignoring the clock. */
export function employmentEnd(c: CollaboratorEntity): number {
  const blocked = c.inactiveFromDay === null ? Infinity : c.inactiveFromDay - 1;
  return Math.min(c.dismissalDay ?? Infinity, blocked);
}
