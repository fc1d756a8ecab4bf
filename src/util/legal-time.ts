/**
 * Brazil's legal time by postal code (CEP): which state a CEP lies in, and the IANA zones
 * whose UTC offset is that state's legal time. The sync reads every date-time of a company
 * in one zone (spec 1.2: the company's local time); a company whose address lies where the
 * legal time differs from that zone has every punch an hour or two off, so `status` warns.
 *
 * Legal time since 2019 (no daylight saving): UTC−3 in most states; UTC−4 in Amazonas
 * (most of it), Roraima, Rondônia, Mato Grosso and Mato Grosso do Sul; UTC−5 in Acre and
 * the south-west of Amazonas; UTC−2 on Fernando de Noronha. Zones are compared by their
 * offset at a given instant, not by name: America/Cuiaba and America/Manaus agree.
 */
import { getTimezoneOffset } from 'date-fns-tz';
import { digitsOnly } from './national-registry.js';

/** A state's legal time as the zones that keep it. */
export interface LegalTime {
  /** Two-letter state code (`AM`), or `PE (Fernando de Noronha)`. */
  readonly state: string;
  /**
   * IANA zones of the legal time, the usual one first. Amazonas lists two: its CEPs do not
   * split cleanly between its two legal times (UTC−4 and, in the south-west, UTC−5), so
   * either is taken as right there.
   */
  readonly zones: readonly string[];
}

/** A range of 5-digit CEP prefixes (both ends inclusive) and its legal time. */
interface CepRange {
  readonly from: number;
  readonly to: number;
  readonly legal: LegalTime;
}

const at = (state: string, ...zones: string[]): LegalTime => Object.freeze({ state, zones: Object.freeze(zones) });

const SP = at('SP', 'America/Sao_Paulo');
const RJ = at('RJ', 'America/Sao_Paulo');
const ES = at('ES', 'America/Sao_Paulo');
const MG = at('MG', 'America/Sao_Paulo');
const BA = at('BA', 'America/Bahia');
const SE = at('SE', 'America/Maceio');
const PE = at('PE', 'America/Recife');
const NORONHA = at('PE (Fernando de Noronha)', 'America/Noronha');
const AL = at('AL', 'America/Maceio');
const PB = at('PB', 'America/Fortaleza');
const RN = at('RN', 'America/Fortaleza');
const CE = at('CE', 'America/Fortaleza');
const PI = at('PI', 'America/Fortaleza');
const MA = at('MA', 'America/Fortaleza');
const PA = at('PA', 'America/Belem');
const AP = at('AP', 'America/Belem');
const AM = at('AM', 'America/Manaus', 'America/Eirunepe');
const RR = at('RR', 'America/Boa_Vista');
const AC = at('AC', 'America/Rio_Branco');
const DF = at('DF', 'America/Sao_Paulo');
const GO = at('GO', 'America/Sao_Paulo');
const RO = at('RO', 'America/Porto_Velho');
const TO = at('TO', 'America/Araguaina');
const MT = at('MT', 'America/Cuiaba');
const MS = at('MS', 'America/Campo_Grande');
const PR = at('PR', 'America/Sao_Paulo');
const SC = at('SC', 'America/Sao_Paulo');
const RS = at('RS', 'America/Sao_Paulo');

/** The Correios' CEP ranges of each state, by 5-digit prefix; the single CEP of Fernando de Noronha first. */
const RANGES: readonly CepRange[] = [
  { from: 53990, to: 53990, legal: NORONHA },
  { from: 1000, to: 19999, legal: SP },
  { from: 20000, to: 28999, legal: RJ },
  { from: 29000, to: 29999, legal: ES },
  { from: 30000, to: 39999, legal: MG },
  { from: 40000, to: 48999, legal: BA },
  { from: 49000, to: 49999, legal: SE },
  { from: 50000, to: 56999, legal: PE },
  { from: 57000, to: 57999, legal: AL },
  { from: 58000, to: 58999, legal: PB },
  { from: 59000, to: 59999, legal: RN },
  { from: 60000, to: 63999, legal: CE },
  { from: 64000, to: 64999, legal: PI },
  { from: 65000, to: 65999, legal: MA },
  { from: 66000, to: 68899, legal: PA },
  { from: 68900, to: 68999, legal: AP },
  { from: 69000, to: 69299, legal: AM },
  { from: 69300, to: 69399, legal: RR },
  { from: 69400, to: 69899, legal: AM },
  { from: 69900, to: 69999, legal: AC },
  { from: 70000, to: 72799, legal: DF },
  { from: 72800, to: 72999, legal: GO },
  { from: 73000, to: 73699, legal: DF },
  { from: 73700, to: 76799, legal: GO },
  { from: 76800, to: 76999, legal: RO },
  { from: 77000, to: 77999, legal: TO },
  { from: 78000, to: 78899, legal: MT },
  { from: 79000, to: 79999, legal: MS },
  { from: 80000, to: 87999, legal: PR },
  { from: 88000, to: 89999, legal: SC },
  { from: 90000, to: 99999, legal: RS },
];

/**
 * The legal time where a CEP lies; undefined when it is no CEP (not 8 digits once dots,
 * dashes and spaces are dropped) or lies in no range. A CEP stored as a number that lost
 * its leading zero (`1310100` for São Paulo's `01310-100`) is padded back to 8 digits.
 */
export function legalTimeOfCep(zip: string | null | undefined): LegalTime | undefined {
  const digits = digitsOnly(zip ?? '');
  if (digits.length < 7 || digits.length > 8) return undefined;
  const prefix = Number(digits.padStart(8, '0').slice(0, 5));
  return RANGES.find((r) => prefix >= r.from && prefix <= r.to)?.legal;
}

/** Offset of `zone` from UTC at `instant`, in minutes (negative west of Greenwich). */
export function utcOffsetMinutes(zone: string, instant: Date): number {
  return Math.round(getTimezoneOffset(zone, instant) / 60_000);
}

/** `UTC−4`, `UTC+5:30`, `UTC`. */
export function formatOffset(minutes: number): string {
  if (minutes === 0) return 'UTC';
  const abs = Math.abs(minutes);
  const hm = abs % 60 === 0 ? `${abs / 60}` : `${Math.floor(abs / 60)}:${String(abs % 60).padStart(2, '0')}`;
  return `UTC${minutes < 0 ? '−' : '+'}${hm}`;
}

/** How a zone in use compares with the legal time at a CEP. */
export interface ZoneCheck {
  /** Where the CEP lies. */
  readonly legal: LegalTime;
  /** Offset of the zone in use at the instant checked, minutes. */
  readonly offsetInUse: number;
  /** Offsets of the legal time at that instant, minutes (one per legal zone). */
  readonly legalOffsets: readonly number[];
  /** True when the zone in use keeps one of the legal offsets. */
  readonly agrees: boolean;
}

/** Compares `zone` with the legal time at `zip` at `instant`; undefined when the CEP says nothing. */
export function checkZoneAgainstCep(zone: string, zip: string | null | undefined, instant: Date): ZoneCheck | undefined {
  const legal = legalTimeOfCep(zip);
  if (!legal) return undefined;
  const offsetInUse = utcOffsetMinutes(zone, instant);
  const legalOffsets = [...new Set(legal.zones.map((z) => utcOffsetMinutes(z, instant)))];
  return { legal, offsetInUse, legalOffsets, agrees: legalOffsets.includes(offsetInUse) };
}
