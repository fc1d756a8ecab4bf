/**
 * Dates and local date-times of spec 1.2. The API speaks the company's local time
 * without an offset; the warehouse stores it as sent and as an instant converted with
 * the connection's IANA time zone.
 */
import { fromZonedTime, formatInTimeZone } from 'date-fns-tz';
import { DATE_TIME_RE, isCalendarDate } from '../api/schemas.js';

/**
 * Converts a local `YYYY-MM-DD HH:MM:SS` in `timeZone` to the UTC instant.
 * In a DST gap the wall time is read with the offset before the change; in an
 * overlap the earlier of the two instants is chosen.
 */
export function localToUtc(local: string, timeZone: string): Date {
  if (!DATE_TIME_RE.test(local) || !isCalendarDate(local.slice(0, 10))) {
    throw new RangeError(`not a date-time YYYY-MM-DD HH:MM:SS: ${JSON.stringify(local)}`);
  }
  return fromZonedTime(local.replace(' ', 'T'), timeZone);
}

/** Formats an instant as the local `YYYY-MM-DD HH:MM:SS` of `timeZone`. */
export function utcToLocal(instant: Date, timeZone: string): string {
  return formatInTimeZone(instant, timeZone, 'yyyy-MM-dd HH:mm:ss');
}

/** Today's calendar date (`YYYY-MM-DD`) in `timeZone`. */
export function todayIn(timeZone: string, now: Date = new Date()): string {
  return formatInTimeZone(now, timeZone, 'yyyy-MM-dd');
}

/** True when `timeZone` is an IANA zone this runtime knows. */
export function isValidTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
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
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

/** Last day of the month of `date`. */
export function endOfMonth(date: string): string {
  const [y, m] = date.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
}
