/**
 * Brazil's legal time by postal code (CEP): which state a CEP lies in, and the IANA zones whose UTC
 * offset is that state's legal time. The sync reads every date-time of a company in one zone (spec
 * 1.2: the company's local time); a company whose address lies where the legal time differs from
 * that zone has every punch an hour or two off, so `status` warns.
 *
 * Legal time since 2019 (no daylight saving): UTC−3 in most states; UTC−4 in Amazonas (most of it),
 * Roraima, Rondônia, Mato Grosso and Mato Grosso do Sul; UTC−5 in Acre and the south-west of
 * Amazonas; UTC−2 on Fernando de Noronha. Zones are compared by their offset at a given instant,
 * not by name: America/Cuiaba and America/Manaus agree.
 */
import { getTimezoneOffset } from 'date-fns-tz';
import { digitsOnly } from './national-registry.js';

/** A state's legal time as the zones that keep it. */
export interface LegalTime {
  /** Two-letter state code (`AM`), or `PE (Fernando de Noronha)`. */
  readonly state: string;
  /**
   * IANA zones of the legal time, the usual one first. Amazonas lists two: its CEPs do not split
   * cleanly between its two legal times (UTC−4 and, in the south-west, UTC−5), so either is taken
   * as right there.
   */
  readonly zones: readonly string[];
}

/** The states keeping each legal time, with its zones. */
const STATES_BY_ZONES: readonly (readonly [states: readonly string[], ...zones: string[]])[] = [
  [['SP', 'RJ', 'ES', 'MG', 'DF', 'GO', 'PR', 'SC', 'RS'], 'America/Sao_Paulo'],
  [['BA'], 'America/Bahia'],
  [['SE', 'AL'], 'America/Maceio'],
  [['PE'], 'America/Recife'],
  [['PE (Fernando de Noronha)'], 'America/Noronha'],
  [['PB', 'RN', 'CE', 'PI', 'MA'], 'America/Fortaleza'],
  [['PA', 'AP'], 'America/Belem'],
  [['AM'], 'America/Manaus', 'America/Eirunepe'],
  [['RR'], 'America/Boa_Vista'],
  [['AC'], 'America/Rio_Branco'],
  [['RO'], 'America/Porto_Velho'],
  [['TO'], 'America/Araguaina'],
  [['MT'], 'America/Cuiaba'],
  [['MS'], 'America/Campo_Grande'],
];

/** Each state's legal time, by state. */
const LEGAL = new Map<string, LegalTime>();
for (const [states, ...zones] of STATES_BY_ZONES) {
  for (const state of states) LEGAL.set(state, Object.freeze({ state, zones: Object.freeze(zones) }));
}

/** The Correios' CEP ranges of each state by 5-digit prefix, both ends inclusive; Noronha's one CEP first. */
const RANGES: readonly (readonly [from: number, to: number, state: string])[] = [
  [53990, 53990, 'PE (Fernando de Noronha)'],
  [1000, 19999, 'SP'],
  [20000, 28999, 'RJ'],
  [29000, 29999, 'ES'],
  [30000, 39999, 'MG'],
  [40000, 48999, 'BA'],
  [49000, 49999, 'SE'],
  [50000, 56999, 'PE'],
  [57000, 57999, 'AL'],
  [58000, 58999, 'PB'],
  [59000, 59999, 'RN'],
  [60000, 63999, 'CE'],
  [64000, 64999, 'PI'],
  [65000, 65999, 'MA'],
  [66000, 68899, 'PA'],
  [68900, 68999, 'AP'],
  [69000, 69299, 'AM'],
  [69300, 69399, 'RR'],
  [69400, 69899, 'AM'],
  [69900, 69999, 'AC'],
  [70000, 72799, 'DF'],
  [72800, 72999, 'GO'],
  [73000, 73699, 'DF'],
  [73700, 76799, 'GO'],
  [76800, 76999, 'RO'],
  [77000, 77999, 'TO'],
  [78000, 78899, 'MT'],
  [79000, 79999, 'MS'],
  [80000, 87999, 'PR'],
  [88000, 89999, 'SC'],
  [90000, 99999, 'RS'],
];

/**
 * The legal time where a CEP lies; undefined when it is no CEP (not 8 digits once dots, dashes and
 * spaces are dropped) or lies in no range. A CEP stored as a number that lost its leading zero
 * (`1310100` for São Paulo's `01310-100`) is padded back to 8 digits.
 */
export function legalTimeOfCep(zip: string | null | undefined): LegalTime | undefined {
  const digits = digitsOnly(zip ?? '');
  if (digits.length < 7 || digits.length > 8) return undefined;
  const prefix = Number(digits.padStart(8, '0').slice(0, 5));
  const range = RANGES.find(([from, to]) => prefix >= from && prefix <= to);
  return range && LEGAL.get(range[2]);
}

/** Offset of `zone` from UTC at `instant`, in minutes (negative west of Greenwich). */
export const utcOffsetMinutes = (zone: string, instant: Date): number =>
  Math.round(getTimezoneOffset(zone, instant) / 60_000);

/** `UTC−4`, `UTC+5:30`, `UTC`. */
export function formatOffset(minutes: number): string {
  if (minutes === 0) return 'UTC';
  const abs = Math.abs(minutes);
  const hm = abs % 60 === 0 ? `${abs / 60}` : `${Math.floor(abs / 60)}:${String(abs % 60).padStart(2, '0')}`;
  return `UTC${minutes < 0 ? '−' : '+'}${hm}`;
}

/** How a zone in use compares with the legal time at a CEP (offsets in minutes, at the instant checked). */
export interface ZoneCheck {
  readonly legal: LegalTime;
  readonly offsetInUse: number;
  /** One per legal zone. */
  readonly legalOffsets: readonly number[];
  /** True when the zone in use keeps one of the legal offsets. */
  readonly agrees: boolean;
}

/** Compares `zone` with the legal time at `zip` at `instant`; undefined when the CEP says nothing. */
export function checkZoneAgainstCep(
  zone: string,
  zip: string | null | undefined,
  instant: Date,
): ZoneCheck | undefined {
  const legal = legalTimeOfCep(zip);
  if (!legal) return undefined;
  const offsetInUse = utcOffsetMinutes(zone, instant);
  const legalOffsets = [...new Set(legal.zones.map((z) => utcOffsetMinutes(z, instant)))];
  return { legal, offsetInUse, legalOffsets, agrees: legalOffsets.includes(offsetInUse) };
}
