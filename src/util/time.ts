/**
 * src/util/ — ground-floor helpers that know nothing of punchline's parts: spec 1.2 dates, times
 * and durations, CPF and CNPJ, Brazil's legal time, connection strings, deadlines.
 *
 * Dates and local date-times of spec 1.2: the API speaks the company's local time without an
 * offset; the warehouse stores it as sent and as an instant in the connection's IANA zone.
 */
import { formatInTimeZone } from 'date-fns-tz';

/** spec 1.2: `YYYY-MM-DD`, a real calendar day. */
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
/** spec 1.2: `YYYY-MM-DD HH:MM:SS` in the company's local time. */
export const DATE_TIME_RE = /^(\d{4})-(\d{2})-(\d{2}) ([01]\d|2[0-3]):([0-5]\d):([0-5]\d)$/;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** True when `y-m-d` names a day that exists in the proleptic Gregorian calendar. */
export function isCalendarDate(value: string): boolean {
  // Arithmetic, not a Date: every date of every answer passes here.
  if (value.length !== 10 || !DATE_RE.test(value)) return false;
  const y = Number(value.slice(0, 4));
  const mo = Number(value.slice(5, 7));
  const d = Number(value.slice(8, 10));
  if (mo < 1 || mo > 12 || d < 1) return false;
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  return d <= (mo === 2 && leap ? 29 : DAYS_IN_MONTH[mo - 1]!);
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Offset of `timeZone` from UTC at `instant` (epoch ms), in ms (negative west of Greenwich). */
function offsetAt(instant: number, timeZone: string): number {
  let fmt = formatters.get(timeZone);
  if (!fmt) {
    const two = '2-digit';
    const fields = { year: 'numeric', month: two, day: two, hour: two, minute: two, second: two } as const;
    fmt = new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', ...fields });
    formatters.set(timeZone, fmt);
  }
  const parts: Record<string, number> = {};
  for (const p of fmt.formatToParts(new Date(instant)))
    if (p.type !== 'literal') parts[p.type] = Number(p.value);
  const wall = Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
  return wall - Math.floor(instant / 1000) * 1000;
}

/** Probe distance around a wall time: wider than any UTC offset, narrower than two DST changes. */
const PROBE_MS = 30 * 3_600_000;

/**
 * Converts a local `YYYY-MM-DD HH:MM:SS` in `timeZone` to the UTC instant. In a DST gap the wall
 * time is read with the offset before the change (02:30 on a spring-forward night in New York is
 * 07:30Z, shown as 03:30); in an overlap the earlier of the two instants is chosen.
 */
export function localToUtc(local: string, timeZone: string): Date {
  if (!DATE_TIME_RE.test(local) || !isCalendarDate(local.slice(0, 10))) {
    throw new RangeError(`not a date-time YYYY-MM-DD HH:MM:SS: ${JSON.stringify(local)}`);
  }
  if (!isValidTimeZone(timeZone)) throw new RangeError(`not an IANA time zone: ${JSON.stringify(timeZone)}`);
  const [y, mo, d, h, mi, s] = local.split(/[- :]/).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const wall = Date.UTC(y, mo - 1, d, h, mi, s);
  // The offsets in effect a little before and after this wall time; each one that maps
  // back onto the same wall time gives a valid instant.
  const before = offsetAt(wall - PROBE_MS, timeZone);
  const after = offsetAt(wall + PROBE_MS, timeZone);
  const valid = [...new Set([before, after])]
    .map((offset) => wall - offset)
    .filter((instant) => offsetAt(instant, timeZone) === wall - instant)
    .sort((a, b) => a - b);
  // Overlap: two valid instants, take the earlier. Gap: none, read with the offset before.
  return new Date(valid[0] ?? wall - before);
}

/** Formats an instant as the local `YYYY-MM-DD HH:MM:SS` of `timeZone`. */
export const utcToLocal = (instant: Date, timeZone: string): string =>
  formatInTimeZone(instant, timeZone, 'yyyy-MM-dd HH:mm:ss');

/** Today's calendar date (`YYYY-MM-DD`) in `timeZone`. */
export const todayIn = (timeZone: string, now: Date = new Date()): string =>
  formatInTimeZone(now, timeZone, 'yyyy-MM-dd');

const knownZones = new Set<string>();

/** True when `timeZone` is an IANA zone this runtime knows (remembered: the check builds a formatter). */
export function isValidTimeZone(timeZone: string): boolean {
  if (knownZones.has(timeZone)) return true;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    knownZones.add(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** Adds `days` (may be negative) to a `YYYY-MM-DD` date. */
export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** Whole days from `from` to `to` (both `YYYY-MM-DD`); 0 when equal. */
export const daysBetween = (from: string, to: string): number =>
  Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);

/** Last day of the month of `date`. */
export function endOfMonth(date: string): string {
  const [y, m] = date.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
}
