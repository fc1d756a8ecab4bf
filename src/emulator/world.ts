/** The generated world: the group, its lookups and rosters; history is derived apart (history.ts). */
import type { CollaboratorBlock, Company } from '../api/schemas.js';
import { dayOf, monthOf } from './calendar.js';
import { generateCompanies } from './company-generator.js';
import type { AbsenceTypeEntity, CollaboratorEntity, CompanyEntity, JourneyEntity } from './entities.js';
import type { CompanyLookups, LookupEntity, UnitEntity } from './entities.js';
import { GLOBAL_ABSENCE_TYPES } from './absence-types.js';
import { employmentEnd } from './entities.js';
import { newLookupCounters, type LookupIdCounters } from './lookup-generator.js';
import { BRASILIA_TIME_ZONE } from './names.js';
import { MAX_HISTORY_DAYS, planScale, type ResolvedOptions } from './options.js';
import { hashString, rngFor } from './random.js';
import { generateRoster, type RosterContext } from './roster-generator.js';
import { applyRosterQuirks } from './roster-quirks.js';
import { SLOTS_PER_DAY } from './day-plan.js';
import type { LookupTable } from '../resources/lookups.js';

/** spec 2.1's collaborator block as sent: quirk `nulls` sends contractors without registration and PIS. */
export type SentCollaboratorBlock = Omit<CollaboratorBlock, 'registration_number' | 'pis'> & {
  registration_number: string | null;
  pis: string | null;
};

/** Where each lookup table's records sit in a company's lookups. */
const LOOKUP_KEYS = {
  departments: 'departments',
  occupations: 'occupations',
  cost_centers: 'costCenters',
  units: 'units',
  journeys: 'journeys',
  point_rules: 'pointRules',
  collaborator_settings: 'settings',
  digital_fences: 'fences',
  dismissal_types: 'firedTypes',
} as const satisfies Record<Exclude<LookupTable, 'absence_types'>, keyof CompanyLookups>;

/** The generated, mutable world of one emulator instance. */
export class World {
  /** Hash of the seed: the root of every generated value. */
  readonly base: number;
  readonly fromDay: number;
  readonly todayDay: number;
  readonly firstMonth: number;
  /** Days reserved per collaborator in point ids: the longest history allowed, so ids do not depend on today. */
  readonly spanDays = MAX_HISTORY_DAYS;
  /** Active companies first (headquarters at 0), then the inactive branch. */
  readonly companies: CompanyEntity[];
  /** Highest point id a generated punch can have; API punches are numbered after it. */
  readonly generatedPointMax: number;
  readonly lookupCounters: LookupIdCounters;
  private readonly byToken = new Map<string, CompanyEntity>();
  private readonly byCnpj = new Map<string, CompanyEntity>();
  private readonly byId = new Map<number, CollaboratorEntity>();
  /** Next id of a collaborator created through the API. */
  nextCollaboratorId: number;
  /** CNPJs whose token is revoked (admin surface): it answers 401 until restored. */
  readonly revoked = new Set<string>();

  constructor(readonly options: ResolvedOptions) {
    this.base = hashString(options.seed);
    this.fromDay = dayOf(options.from);
    this.todayDay = dayOf(options.today);
    this.firstMonth = monthOf(this.fromDay);
    const plan = planScale(options.scale);
    this.lookupCounters = newLookupCounters();
    const skeletons = generateCompanies(
      rngFor(this.base, 1),
      options.seed,
      plan.companies,
      this.lookupCounters,
      options.quirks,
    );
    const ctx: RosterContext = {
      base: this.base,
      fromDay: this.fromDay,
      todayDay: this.todayDay,
      nextId: 1,
      usedCpfs: new Set(),
    };
    const people = new Map();
    this.companies = skeletons.map((s) => {
      const company: CompanyEntity = { ...s, collaborators: [] };
      const count = s.active ? plan.perCompany[s.index]! : 2;
      company.collaborators.push(...generateRoster(company, count, ctx, people));
      return company;
    });
    applyRosterQuirks(this.companies, options.quirks, ctx);
    this.nextCollaboratorId = ctx.nextId;
    this.generatedPointMax = (ctx.nextId - 1) * this.spanDays * SLOTS_PER_DAY;
    for (const c of this.companies) {
      this.byToken.set(c.token, c);
      this.byCnpj.set(c.cnpj, c);
      for (const col of c.collaborators) this.byId.set(col.id, col);
    }
  }

  /** The company of a token, active or not. */
  companyByToken(token: string): CompanyEntity | undefined {
    return this.byToken.get(token);
  }

  /** The company of a CNPJ, active or not. */
  companyByCnpj(cnpj: string): CompanyEntity | undefined {
    return this.byCnpj.get(cnpj);
  }

  /** The headquarters. */
  get headquarters(): CompanyEntity {
    return this.companies[0]!;
  }

  /** Active companies of the group, headquarters first (spec 4.1 economic-group). */
  activeCompanies(): CompanyEntity[] {
    return this.companies.filter((c) => c.active);
  }

  /** A collaborator record by id. */
  collaboratorById(id: number): CollaboratorEntity | undefined {
    return this.byId.get(id);
  }

  /** Registers a collaborator created through the API. */
  addCollaborator(c: CollaboratorEntity): void {
    c.company.collaborators.push(c);
    this.byId.set(c.id, c);
  }

  /** The collaborator's journey (escala). */
  journeyOf(c: CollaboratorEntity): JourneyEntity {
    return c.company.lookups.journeys.find((j) => j.id === c.journeyId)!;
  }

  /** The collaborator's unit, where its punches are geolocated. */
  unitOf(c: CollaboratorEntity): UnitEntity {
    return c.company.lookups.units.find((u) => u.id === c.unitId)!;
  }

  /** True while the record is neither dismissed nor blocked (listed by `GET collaborator`). */
  isListed(c: CollaboratorEntity): boolean {
    return c.dismissalDay === null && (c.inactiveFromDay === null || c.inactiveFromDay > this.todayDay);
  }

  /** First day with data: the later of history start and begin date. */
  firstDay(c: CollaboratorEntity): number {
    return Math.max(this.fromDay, c.beginDay);
  }

  /** Last day with data: dismissal, the day before a block, or today. */
  lastDay(c: CollaboratorEntity): number {
    return Math.min(this.todayDay, employmentEnd(c));
  }

  /** The IANA zone of a company's local date-times (spec 1.2): its city's legal time. */
  timeZoneOf(company: CompanyEntity): string {
    return company.city.timeZone ?? BRASILIA_TIME_ZONE;
  }

  /** The CPF as the API sends it: quirk `unpaddedCpf` drops its leading zeros. */
  sentCpf(c: CollaboratorEntity): string {
    return c.cpfUnpadded ? c.cpf.replace(/^0+/, '') : c.cpf;
  }

  /** spec 2.11 `regime` as sent: quirk `newEnums` sends one collaborator's under a name the spec does not list. */
  regimeName(c: CollaboratorEntity): string {
    return c.regimeLabel ?? c.regime;
  }

  /** spec 2.2: a company record as sent; quirk `nulls` leaves the last branch's address parts empty, null or absent. */
  companyRecord(company: CompanyEntity): Company | Record<string, unknown> {
    const active = this.activeCompanies();
    if (!this.options.quirks.nulls || active.length < 2 || company !== active[active.length - 1])
      return company.record;
    const { neighborhood: _absent, ...rest } = company.record;
    return { ...rest, address_number: '', complement: null };
  }

  /** spec 2.1: the collaborator block, with current attributes and admin overrides. */
  collaboratorBlock(c: CollaboratorEntity): SentCollaboratorBlock {
    const L = c.company.lookups;
    const o = c.overrides;
    const occupation =
      c.occupationId === null ? '' : (L.occupations.find((x) => x.id === c.occupationId)?.label ?? '');
    return {
      national_registry: this.sentCpf(c),
      registration_number: o.registration_number ?? (c.contractor ? null : c.registrationNumber),
      email: o.email ?? c.email,
      name: o.name ?? c.name,
      occupation: o.occupation ?? occupation,
      department: o.department ?? L.departments.find((d) => d.id === c.departmentId)?.label ?? '',
      team: o.team !== undefined ? o.team : c.team,
      business_unit: o.business_unit ?? this.unitOf(c).label,
      admission_date: c.admissionDate,
      pis: o.pis ?? (c.contractor ? null : c.pis),
      company: c.company.block,
    };
  }

  /** Absence types a company lists: the global ones, then its own (spec 2.4). */
  absenceTypes(company: CompanyEntity): AbsenceTypeEntity[] {
    return [...GLOBAL_ABSENCE_TYPES, ...company.lookups.absenceTypes];
  }

  /** Records a listing shows (spec 2.4): active ones by id, units with the default first. */
  listedLookups(company: CompanyEntity, table: LookupTable): LookupEntity[] {
    const records: LookupEntity[] =
      table === 'absence_types'
        ? this.absenceTypes(company).map((t) => ({ id: t.id, label: t.description, active: true }))
        : company.lookups[LOOKUP_KEYS[table]];
    const all = records.filter((r) => r.active);
    all.sort((a, b) => a.id - b.id);
    if (table === 'units')
      all.sort((a, b) => Number((b as UnitEntity).isDefault) - Number((a as UnitEntity).isDefault));
    return all;
  }
}
