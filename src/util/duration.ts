/**
 * Durations of spec 1.2: signed `HH:MM:SS` (hours may exceed 99) and `HH:MM`,
 * converted to and from integer seconds for the warehouse.
 */
import { DURATION_RE, HOUR_MINUTE_RE } from '../api/schemas.js';

/** Parses a signed `[-]HH:MM:SS` duration (spec 1.2) into integer seconds. */
export function durationToSeconds(value: string): number {
  if (!DURATION_RE.test(value)) throw new RangeError(`not a duration [-]HH:MM:SS: ${JSON.stringify(value)}`);
  const negative = value.startsWith('-');
  const [h, m, s] = (negative ? value.slice(1) : value).split(':').map(Number) as [number, number, number];
  const total = h * 3600 + m * 60 + s;
  // `-00:00:00` is zero, not -0 (which would compare unequal with Object.is).
  return negative && total !== 0 ? -total : total;
}

/** Formats integer seconds as a signed `HH:MM:SS` duration (at least two hour digits). */
export function secondsToDuration(seconds: number): string {
  if (!Number.isInteger(seconds)) throw new RangeError(`not a whole number of seconds: ${seconds}`);
  const abs = Math.abs(seconds);
  const h = Math.floor(abs / 3600);
  const m = Math.floor((abs % 3600) / 60);
  const s = abs % 60;
  const body = `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}`;
  return seconds < 0 ? `-${body}` : body;
}

/** Parses an `HH:MM` clock time or duration (spec 2.8) into integer seconds. */
export function hourMinuteToSeconds(value: string): number {
  if (!HOUR_MINUTE_RE.test(value)) throw new RangeError(`not a time HH:MM: ${JSON.stringify(value)}`);
  const [h, m] = value.split(':').map(Number) as [number, number];
  return h * 3600 + m * 60;
}

/** Formats integer seconds (non-negative, whole minutes are kept) as `HH:MM`. */
export function secondsToHourMinute(seconds: number): string {
  if (!Number.isInteger(seconds) || seconds < 0) throw new RangeError(`not a non-negative whole number: ${seconds}`);
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  return `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`;
}

/**
 * Converts an API duration value, string or `decimal_format=1` number of hours
 * (spec 1.2), into integer seconds.
 */
export function durationValueToSeconds(value: string | number): number {
  return typeof value === 'number' ? Math.round(value * 3600) : durationToSeconds(value);
}
