/**
 * The roster side of the data quirks (quirks.ts). Records are replaced or appended, never drawn anew,
 * so every collaborator the quirks do not touch keeps its data:
 * - `nulls`: the last collaborator of each active company is a contractor (no registration, no PIS);
 * - `unpaddedCpf`: the first branch's second collaborator gets a CPF with two leading zeros, sent without;
 * - `newEnums`: the headquarters' first `BH` collaborator is sent with a regime the spec does not list;
 * - `duplicateCpf`: the headquarters' first collaborator gets a second, concurrently active contract;
 * - `rehireInMonth`: one of the second branch is dismissed and admitted again 13 days later, same month.
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
    let cpf: string;
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
}
