/**
 * Lookup lists of one company (spec 2.4), each with inactive records so listings visibly filter them.
 * Ids are unique across the group, so an id of another company is detectable (spec 4.2).
 */
import { companyAbsenceTypes } from './absence-types.js';
import { hourMinuteOf as hm } from './calendar.js';
import type { CompanyLookups, JourneyEntity, LookupEntity, UnitEntity } from './entities.js';
import {
  COST_CENTERS,
  DEPARTMENTS,
  FIRED_TYPES,
  NEIGHBORHOODS,
  OCCUPATIONS,
  STREETS,
  type City,
} from './names.js';
import type { Rng } from './random.js';

/** First id per lookup kind: each has its own range so ids read like a real system's. */
const FIRST_IDS = {
  journeys: 11,
  departments: 201,
  occupations: 301,
  costCenters: 401,
  units: 501,
  pointRules: 601,
  settings: 701,
  fences: 801,
  firedTypes: 901,
};

/** Next id per lookup kind, shared by every company of the emulator. */
export type LookupIdCounters = Record<keyof typeof FIRST_IDS, number>;

/** Fresh counters. */
export function newLookupCounters(): LookupIdCounters {
  return { ...FIRST_IDS };
}

const MON_FRI = 0b0111110;
const MON_SAT = 0b1111110;
const H = 3600;

/** Journey templates: [description, start, work, break, weekdays, tolerance, lateShift, active]. */
const JOURNEYS: readonly [string, number, number, number, number, number, boolean, boolean][] = [
  ['Comercial 08:00-17:00 (seg-sex)', 8 * H, 8 * H, H, MON_FRI, 10, false, true],
  ['Comercial 09:00-18:00 (seg-sex)', 9 * H, 8 * H, H, MON_FRI, 5, false, true],
  ['Escala 6x1 07:00-15:20 (seg-sáb)', 7 * H, 7 * H + 20 * 60, H, MON_SAT, 10, false, true],
  ['Intermediário 14:00-23:00 (seg-sex)', 14 * H, 8 * H, H, MON_FRI, 10, true, true],
  ['Meio período 08:00-12:00 (seg-sex)', 8 * H, 4 * H, 0, MON_FRI, 5, false, true],
  ['Escala 12x36 (desativada)', 7 * H, 11 * H, H, MON_FRI, 10, false, false],
];

function simple(
  counters: LookupIdCounters,
  kind: keyof LookupIdCounters,
  active: string[],
  inactive: string[],
): LookupEntity[] {
  return [
    ...active.map((label) => ({ id: counters[kind]++, label, active: true })),
    ...inactive.map((label) => ({ id: counters[kind]++, label, active: false })),
  ];
}

/** Generates the lookup lists of one company. */
export function generateLookups(
  rng: Rng,
  counters: LookupIdCounters,
  company: { index: number; isHeadquarter: boolean; city: City },
): CompanyLookups {
  const journeys = JOURNEYS.map(([label, startSec, workSec, breakSec, weekdays, tolerance, late, on]) => ({
    id: counters.journeys++,
    label,
    active: on,
    startSec,
    workSec,
    breakSec,
    weekdays,
    toleranceMin: tolerance,
    lateShift: late,
    shift: shiftText({ workSec, breakSec }, startSec),
  }));

  const departments = simple(counters, 'departments', DEPARTMENTS.slice(0, 7), [DEPARTMENTS[7]]);
  const occupations = OCCUPATIONS.map(([label, cbo], i) => ({
    id: counters.occupations++,
    label,
    active: i < 10,
    cbo,
  }));
  const costCenters = simple(counters, 'costCenters', COST_CENTERS.slice(0, 4), [COST_CENTERS[4]]);

  const c = company.city;
  const unitAt = (
    label: string,
    active: boolean,
    isDefault: boolean,
    dLat: number,
    dLng: number,
  ): UnitEntity => ({
    id: counters.units++,
    label,
    active,
    isDefault,
    lat: Math.round((c.lat + dLat) * 1e6) / 1e6,
    lng: Math.round((c.lng + dLng) * 1e6) / 1e6,
    address: `${rng.pick(STREETS)}, ${rng.range(10, 2999)} - ${rng.pick(NEIGHBORHOODS)}, ${c.name} - ${c.state}`,
  });
  // The default unit is not the lowest id, so "default first" (spec 2.4) is visible.
  const units = [
    unitAt(`Centro de Distribuição ${c.name}`, true, false, 0.031, -0.027),
    unitAt(company.isHeadquarter ? `Matriz ${c.name}` : `Filial ${c.name}`, true, true, 0.002, 0.003),
    unitAt(`Loja ${c.name} Shopping`, true, false, -0.018, 0.022),
    unitAt(`Unidade ${c.name} (desativada)`, false, false, 0.05, 0.05),
  ];

  const pointRules = simple(
    counters,
    'pointRules',
    ['Regra padrão CLT', 'Regra com banco de horas'],
    ['Regra antiga 2019'],
  );
  const profiles = ['Perfil padrão (aplicativo e REP)', 'Perfil externo (aplicativo com geolocalização)'];
  const settings = simple(counters, 'settings', profiles, ['Perfil legado']);
  const fences = simple(
    counters,
    'fences',
    [`Cerca ${units[1]!.label}`, `Cerca ${units[0]!.label}`],
    ['Cerca obra encerrada'],
  );
  const firedTypes = simple(counters, 'firedTypes', [...FIRED_TYPES], []);
  const absenceTypes = companyAbsenceTypes(company.index, company.isHeadquarter);
  return {
    journeys,
    departments,
    occupations,
    costCenters,
    units,
    pointRules,
    settings,
    fences,
    firedTypes,
    absenceTypes,
  };
}

const shiftCache = new Map<string, string>();

/** `08:00-12:00 / 13:00-17:00`: the textual shift of a journey starting at `startSec`. */
export function shiftText(j: Pick<JourneyEntity, 'workSec' | 'breakSec'>, startSec: number): string {
  const key = `${j.workSec}|${j.breakSec}|${startSec}`;
  let text = shiftCache.get(key);
  if (text === undefined) {
    if (j.breakSec === 0) {
      text = `${hm(startSec)}-${hm(startSec + j.workSec)}`;
    } else {
      const first = Math.min(4 * H, j.workSec);
      const back = startSec + first + j.breakSec;
      text = `${hm(startSec)}-${hm(startSec + first)} / ${hm(back)}-${hm(back + j.workSec - first)}`;
    }
    shiftCache.set(key, text);
  }
  return text;
}
