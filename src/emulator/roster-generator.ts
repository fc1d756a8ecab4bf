/**
 * The collaborator roster of each company: realistic names, valid CPF and PIS check
 * digits, journeys and regimes spread so every case appears even at the smallest
 * scale, and the awkward cases of the real data:
 * - HQ #2: dismissed, with history until the dismissal;
 * - HQ #3 and #4: one CPF twice in the company (an old dismissed record, then a rehire);
 * - HQ #5 and branch 1 #1: one person (one CPF) in two companies of the group;
 * - branch 2 #1: blocked (inactive without dismissal), so a punch answers `collaborator_not_found`.
 */
import { makeCpf } from '../util/national-registry.js';
import { dateOf } from './calendar.js';
import { slug } from './company-generator.js';
import { REGIME_NAMES, type CollaboratorEntity, type CompanyEntity } from './entities.js';
import { FIRST_NAMES, LAST_NAMES, TEAMS } from './names.js';
import { rngFor, type Rng } from './random.js';

/** Completes 10 digits into a PIS/PASEP number with its check digit. */
export function makePis(base10: string): string {
  const w = [3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
  const sum = [...base10].reduce((acc, d, i) => acc + Number(d) * w[i]!, 0);
  const r = 11 - (sum % 11);
  return `${base10}${r >= 10 ? 0 : r}`;
}

/** Inputs of the roster generator. */
export interface RosterContext {
  readonly base: number;
  readonly fromDay: number;
  readonly todayDay: number;
  /** Next collaborator id (shared by all companies). */
  nextId: number;
  /** CPFs already used, to keep them unique. */
  readonly usedCpfs: Set<string>;
}

/** A person with a fresh CPF; one person may hold records in several companies. */
type Person = ReturnType<typeof newPerson>;

function newPerson(rng: Rng, ctx: RosterContext) {
  let cpf: string;
  do {
    const base = rng.digits(9);
    cpf = /^(\d)\1{8}$/.test(base) ? '' : makeCpf(base);
  } while (cpf === '' || ctx.usedCpfs.has(cpf));
  ctx.usedCpfs.add(cpf);
  const first = rng.pick(FIRST_NAMES);
  const last = `${rng.pick(LAST_NAMES)} ${rng.pick(LAST_NAMES)}`;
  const birthDay = ctx.fromDay - rng.range(17 * 365, 58 * 365);
  return { cpf, first, last, birthDate: dateOf(birthDay) };
}

/** Journey slot by position: the first five of each company cover every journey, the rest are weighted. */
function journeySlot(k: number, rng: Rng): number {
  if (k < 5) return k;
  const u = rng.next();
  return u < 0.35 ? 0 : u < 0.55 ? 1 : u < 0.8 ? 2 : u < 0.92 ? 3 : 4;
}

/** Generates the roster of one company; `people` carries persons shared between companies. */
export function generateRoster(
  company: CompanyEntity,
  count: number,
  ctx: RosterContext,
  people: Map<string, Person>,
): CollaboratorEntity[] {
  const L = company.lookups;
  const activeDepartments = L.departments.filter((d) => d.active);
  const activeOccupations = L.occupations.filter((o) => o.active);
  const activeUnits = L.units.filter((u) => u.active);
  const defaultUnit = activeUnits.find((u) => u.isDefault)!;
  const activeJourneys = L.journeys.filter((j) => j.active);
  const domain = company.record.email!.split('@')[1]!;
  const emails = new Set<string>();
  const out: CollaboratorEntity[] = [];
  let oldRecordDismissal = 0;

  for (let k = 0; k < count; k++) {
    const id = ctx.nextId++;
    const rng = rngFor(ctx.base, 1000 + company.index, k);
    const hq = company.isHeadquarter;
    const role =
      hq && k === 1
        ? 'dismissed'
        : hq && k === 2
          ? 'old-record'
          : hq && k === 3
            ? 'rehired'
            : hq && k === 4
              ? 'shared'
              : company.index === 1 && k === 0
                ? 'shared'
                : company.index === 2 && k === 0
                  ? 'blocked'
                  : 'normal';

    let person: Person;
    if (role === 'rehired') person = people.get('rehire')!;
    else if (role === 'shared' && people.has('shared')) person = people.get('shared')!;
    else {
      person = newPerson(rng, ctx);
      if (role === 'old-record') people.set('rehire', person);
      if (role === 'shared') people.set('shared', person);
    }

    // Dates hang from the history start, not from today, so moving today forward does
    // not rewrite the past; they are clamped when the history is shorter.
    const within = (offset: number): number =>
      Math.max(ctx.fromDay, Math.min(ctx.todayDay - 1, ctx.fromDay + offset));
    const hiredLater = rng.chance(0.2);
    const laterOffset = rng.int(540);
    const earlierOffset = rng.range(30, 3000);
    let admissionDay: number;
    let dismissalDay: number | null = null;
    let inactiveFromDay: number | null = null;
    if (role === 'dismissed') {
      admissionDay = ctx.fromDay - 400;
      dismissalDay = within(550);
    } else if (role === 'old-record') {
      admissionDay = ctx.fromDay - 200;
      dismissalDay = within(180);
      oldRecordDismissal = dismissalDay;
    } else if (role === 'rehired') {
      // The gap keeps the two records out of any single 31-day window.
      admissionDay = Math.min(ctx.todayDay, oldRecordDismissal + 120);
    } else if (role === 'blocked') {
      admissionDay = ctx.fromDay - 90;
      inactiveFromDay = within(600) + 1;
    } else if (hiredLater && ctx.fromDay + laterOffset < ctx.todayDay - 30) {
      admissionDay = ctx.fromDay + laterOffset;
    } else {
      admissionDay = ctx.fromDay - earlierOffset;
    }

    let emailLocal = `${slug(person.first)}.${slug(person.last.split(' ')[0]!)}`;
    if (emails.has(emailLocal) && role !== 'rehired') emailLocal = `${emailLocal}${id}`;
    emails.add(emailLocal);

    const balanceKind = k % 5;
    const initialBalanceSec =
      balanceKind === 0
        ? 99 * 3600 + 30 * 60 + rng.int(20) * 3600
        : balanceKind === 2
          ? -(12 * 3600 + rng.int(10 * 3600))
          : rng.range(-3 * 3600, 8 * 3600);

    const unit = rng.chance(0.7) ? defaultUnit : rng.pick(activeUnits);
    out.push({
      id,
      company,
      cpf: person.cpf,
      name: `${person.first} ${person.last}`,
      email: `${emailLocal}@${domain}`,
      registrationNumber: String(company.index * 10000 + k + 1).padStart(6, '0'),
      pis: makePis(`1${rng.digits(9)}`),
      birthDate: person.birthDate,
      admissionDate: dateOf(admissionDay),
      beginDay: admissionDay,
      dismissalDay,
      inactiveFromDay,
      departmentId: rng.pick(activeDepartments).id,
      occupationId: rng.chance(0.05) ? null : rng.pick(activeOccupations).id,
      unitId: unit.id,
      journeyId: activeJourneys[journeySlot(k, rng)]!.id,
      costCenterId: rng.pick(L.costCenters.filter((c) => c.active)).id,
      settingsId: L.settings[rng.int(2)]!.id,
      pointRuleId: L.pointRules[rng.int(2)]!.id,
      team: rng.chance(0.3) ? null : rng.pick(TEAMS),
      regime: REGIME_NAMES[(k + company.index) % 4]!,
      initialBalanceSec,
      originPref: rng.int(3),
      generated: true,
      overrides: {},
      hasFacePhoto: false,
    });
  }
  return out;
}
