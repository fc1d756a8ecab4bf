/**
 * The roster side of the data quirks (quirks.ts). Records are replaced or appended, never drawn anew,
 * so every collaborator the quirks do not touch keeps its data:
 * - `nulls`: the last collaborator of each active company is a contractor (no registration, no PIS);
 * - `unpaddedCpf`: the first branch's second collaborator gets a CPF with two leading zeros, sent without;
 * - `newEnums`: the headquarters' first `BH` collaborator is sent with a regime the spec does not list;
 * - `duplicateCpf`: the headquarters' first collaborator gets a second, concurrently active contract;
 * - `rehireInMonth`: one of the second branch is dismissed and admitted again 13 days later, same month;
 * - `groupTransfer`: one of the headquarters is dismissed and admitted by a branch 10 days later (the
 *   same person and CPF, a new record of the branch: a move between two companies of the group).
 */
import { makeCpf } from '../util/national-registry.js';
import { dateOf, monthOf, monthStart } from './calendar.js';
import type { CollaboratorEntity, CompanyEntity } from './entities.js';
import { NEW_ENUM_VALUES, type Quirks } from './quirks.js';
import { rngFor } from './random.js';
import type { RosterContext } from './roster-generator.js';

/** Appends another contract of `c`'s person to its company from `day`, with a registration of its own. */
function appendContract(
  ctx: RosterContext,
  c: CollaboratorEntity,
  day: number,
  changes: Partial<CollaboratorEntity> = {},
): void {
  c.company.collaborators.push({
    ...c,
    id: ctx.nextId++,
    registrationNumber: String(c.company.index * 10000 + 9001).padStart(6, '0'),
    admissionDate: dateOf(day),
    beginDay: day,
    dismissalDay: null,
    initialBalanceSec: 0,
    overrides: {},
    hasFacePhoto: false,
    ...changes,
  });
}

/** Replaces the record at `i` of its company's roster. */
function replace(
  company: CompanyEntity,
  i: number,
  changes: Partial<CollaboratorEntity>,
): CollaboratorEntity {
  const next = { ...company.collaborators[i]!, ...changes } as CollaboratorEntity;
  company.collaborators[i] = next;
  return next;
}

/** Days of the re-hire: dismissal and re-admission in one month, about six weeks before today. */
function rehireDays(fromDay: number, todayDay: number): { dismissal: number; readmission: number } | null {
  const month = Math.max(monthOf(fromDay) + 1, monthOf(todayDay - 40));
  const dismissal = monthStart(month) + 4;
  const readmission = monthStart(month) + 17;
  return readmission < todayDay && dismissal > fromDay ? { dismissal, readmission } : null;
}

/** Days of the group transfer: the dismissal on the 10th of the month about ten weeks before today, the branch's admission 10 days later. */
function transferDays(fromDay: number, todayDay: number): { dismissal: number; admission: number } | null {
  const dismissal = monthStart(Math.max(monthOf(fromDay) + 1, monthOf(todayDay - 70))) + 9;
  const admission = dismissal + 10;
  return admission < todayDay && dismissal > fromDay ? { dismissal, admission } : null;
}

/**
 * Moves one of the headquarters' clean collaborators, alone with its CPF there, to the
 * first branch where its CPF has no record: the headquarters' record is dismissed and
 * the branch admits the same person with the attributes (department, journey, unit...)
 * of the branch's first clean collaborator. The last such collaborator is taken, so the
 * quirks that pick the first ones keep their people.
 */
function transferToBranch(ctx: RosterContext, active: readonly CompanyEntity[]): void {
  const [hq, ...branches] = active;
  const days = transferDays(ctx.fromDay, ctx.todayDay);
  if (!hq || !days) return;
  const clean = (c: CollaboratorEntity) =>
    c.dismissalDay === null && c.inactiveFromDay === null && !c.contractor && !c.cpfUnpadded;
  const destination = (c: CollaboratorEntity) =>
    branches.find((b) => b.collaborators.some(clean) && !b.collaborators.some((x) => x.cpf === c.cpf));
  const i = hq.collaborators.findLastIndex(
    (c, k) =>
      k > 0 &&
      clean(c) &&
      hq.collaborators.filter((x) => x.cpf === c.cpf).length === 1 &&
      c.beginDay < days.dismissal - 30 &&
      destination(c) !== undefined,
  );
  if (i < 0) return;
  const branch = destination(hq.collaborators[i]!)!;
  const template = branch.collaborators.find(clean)!;
  const person = replace(hq, i, { dismissalDay: days.dismissal });
  branch.collaborators.push({
    ...template,
    id: ctx.nextId++,
    cpf: person.cpf,
    name: person.name,
    email: person.email,
    pis: person.pis,
    birthDate: person.birthDate,
    registrationNumber: String(branch.index * 10000 + 9002).padStart(6, '0'),
    admissionDate: dateOf(days.admission),
    beginDay: days.admission,
    dismissalDay: null,
    initialBalanceSec: 0,
    overrides: {},
    hasFacePhoto: false,
    regimeLabel: undefined,
  });
}

/** Applies the roster quirks to the active companies (see the file comment). */
export function applyRosterQuirks(
  companies: readonly CompanyEntity[],
  quirks: Quirks,
  ctx: RosterContext,
): void {
  const active = companies.filter((c) => c.active);
  const hq = active[0]!;
  const clean = (c: CollaboratorEntity): boolean => c.dismissalDay === null && c.inactiveFromDay === null;

  if (quirks.nulls) {
    for (const company of active) replace(company, company.collaborators.length - 1, { contractor: true });
  }

  const firstBranch = active[1] ?? hq;
  if (quirks.unpaddedCpf && firstBranch.collaborators.length > 1) {
    const used = new Set(companies.flatMap((co) => co.collaborators.map((c) => c.cpf)));
    const rng = rngFor(ctx.base, 1000 + firstBranch.index, 1, 99);
    let cpf = '';
    do cpf = makeCpf(`00${rng.digits(7)}`);
    while (used.has(cpf));
    replace(firstBranch, 1, { cpf, cpfUnpadded: true });
  }

  if (quirks.newEnums) {
    const i = hq.collaborators.findIndex((c) => c.regime === 'BH');
    if (i >= 0) replace(hq, i, { regimeLabel: NEW_ENUM_VALUES.regime });
  }

  if (quirks.duplicateCpf) {
    const first = hq.collaborators[0]!;
    const journeys = hq.lookups.journeys.filter((j) => j.active);
    const other = journeys[(journeys.findIndex((j) => j.id === first.journeyId) + 2) % journeys.length]!;
    const regime = first.regime === 'HE' ? 'BH' : 'HE';
    appendContract(ctx, first, ctx.fromDay - 100, { journeyId: other.id, regime, regimeLabel: undefined });
  }

  const days = rehireDays(ctx.fromDay, ctx.todayDay);
  const branch = active[2] ?? active[active.length - 1]!;
  const i = branch.collaborators.findIndex(
    (c, k) => k > 0 && clean(c) && !c.contractor && days !== null && c.beginDay < days.dismissal - 30,
  );
  if (quirks.rehireInMonth && days && i >= 0) {
    appendContract(ctx, replace(branch, i, { dismissalDay: days.dismissal }), days.readmission);
  }

  if (quirks.groupTransfer) transferToBranch(ctx, active);
}
