/**
 * Conversion of the API's local date-times (spec 1.2: the company's wall clock, no offset)
 * to instants, fast enough for large windows: the UTC offset is looked up once per local hour
 * and reused for the minutes of that hour whenever the offset is the same at both ends of it
 * (an hour holding a DST change is converted value by value).
 */
import { localToUtc } from './time.js';

function offsetSuffix(offsetMs: number): string {
  const sign = offsetMs < 0 ? '-' : '+';
  const minutes = Math.abs(offsetMs) / 60_000;
  const seconds = Math.round((Math.abs(offsetMs) % 60_000) / 1000);
  const hh = String(Math.floor(minutes / 60)).padStart(2, '0');
  const mm = String(Math.floor(minutes % 60)).padStart(2, '0');
  return `${sign}${hh}:${mm}${seconds ? `:${String(seconds).padStart(2, '0')}` : ''}`;
}

const wallMs = (local: string) => Date.parse(`${local.replace(' ', 'T')}Z`);

/** Offsets by local hour, per zone, shared by every load of the process (an hour's offset never changes). */
const offsetsByZone = new Map<string, Map<string, string | null>>();

/**
 * A converter of `YYYY-MM-DD HH:MM:SS` wall times of `timeZone` to timestamptz input: the wall
 * time with its offset (`2024-03-04 08:00:00-03:00`), the same instant whatever the session's zone.
 */
export function createLocalTimeConverter(timeZone: string): (local: string) => string {
  let suffixes = offsetsByZone.get(timeZone);
  if (!suffixes) offsetsByZone.set(timeZone, (suffixes = new Map()));
  return (local) => {
    const hour = local.slice(0, 13);
    let suffix = suffixes.get(hour);
    if (suffix === undefined) {
      const start = wallMs(`${hour}:00:00`) - localToUtc(`${hour}:00:00`, timeZone).getTime();
      const end = wallMs(`${hour}:59:59`) - localToUtc(`${hour}:59:59`, timeZone).getTime();
      suffix = start === end ? offsetSuffix(start) : null;
      suffixes.set(hour, suffix);
    }
    // An hour holding a DST change, or a malformed value (localToUtc says what is wrong).
    if (suffix === null || local.length !== 19) return localToUtc(local, timeZone).toISOString();
    return local + suffix;
  };
}
