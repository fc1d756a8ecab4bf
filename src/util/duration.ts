/**
 * Durations of spec 1.2: signed `HH:MM:SS` (hours may exceed 99) and `HH:MM`,
 * converted to and from integer seconds for the warehouse.
 */

/** spec 1.2 / 2.8: `HH:MM`. */
export const HOUR_MINUTE_RE = /^\d{2,}:[0-5]\d$/;

/** The value of the digit at `i`, or -1. */
function digit(value: string, i: number): number {
  const d = value.charCodeAt(i) - 48; // '0'
  return d >= 0 && d <= 9 ? d : -1;
}

/**
 * Parses a signed `[-]HH:MM:SS` duration (spec 1.2) into integer seconds. By hand: the sync
 * reads millions per backfill, and a regular expression per value showed in the profile.
 */
export function durationToSeconds(value: string): number {
  const n = value.length;
  const start = value.charCodeAt(0) === 45 /* - */ ? 1 : 0;
  // At least two hour digits, then :MM:SS.
  let ok = n - start >= 8 && value.charCodeAt(n - 3) === 58 && value.charCodeAt(n - 6) === 58;
  let h = 0;
  for (let i = start; ok && i < n - 6; i++) {
    const d = digit(value, i);
    ok = d >= 0;
    h = h * 10 + d;
  }
  const m1 = digit(value, n - 5);
  const m2 = digit(value, n - 4);
  const s1 = digit(value, n - 2);
  const s2 = digit(value, n - 1);
  if (!ok || m1 < 0 || m1 > 5 || m2 < 0 || s1 < 0 || s1 > 5 || s2 < 0) {
    throw new RangeError(`not a duration [-]HH:MM:SS: ${JSON.stringify(value)}`);
  }
  const total = h * 3600 + (m1 * 10 + m2) * 60 + s1 * 10 + s2;
  // `-00:00:00` is zero, not -0 (which would compare unequal with Object.is).
  return start === 1 && total !== 0 ? -total : total;
}

/** Two digits at least. */
const pad = (n: number): string => String(n).padStart(2, '0');

/** Formats integer seconds as a signed `HH:MM:SS` duration (at least two hour digits). */
export function secondsToDuration(seconds: number): string {
  if (!Number.isInteger(seconds)) throw new RangeError(`not a whole number of seconds: ${seconds}`);
  const abs = Math.abs(seconds);
  const body = `${secondsToHourMinute(abs - (abs % 60))}:${pad(abs % 60)}`;
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
  if (!Number.isInteger(seconds) || seconds < 0)
    throw new RangeError(`not a non-negative whole number: ${seconds}`);
  return `${pad(Math.floor(seconds / 3600))}:${pad(Math.floor((seconds % 3600) / 60))}`;
}

/** An API duration value, string or `decimal_format=1` number of hours (spec 1.2), in integer seconds. */
export const durationValueToSeconds = (value: string | number): number =>
  typeof value === 'number' ? Math.round(value * 3600) : durationToSeconds(value);
