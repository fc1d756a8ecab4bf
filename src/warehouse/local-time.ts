/**
 * Conversion of the API's local date-times (spec 1.2: the company's wall clock, no
 * offset) to instants, fast enough for large windows: the UTC offset is looked up once
 * per local hour and reused for the minutes of that hour whenever the offset is the
 * same at both ends of it (an hour holding a DST change is converted value by value).
 */
import { localToUtc } from '../util/time.js';

/** Converts `YYYY-MM-DD HH:MM:SS` wall times of one time zone to ISO-8601 UTC strings. */
export type LocalTimeConverter = (local: string) => string;

/** A converter for `timeZone`, with its own cache of offsets by local hour. */
export function createLocalTimeConverter(timeZone: string): LocalTimeConverter {
  const offsets = new Map<string, number | null>();
  const wallMs = (local: string) => Date.parse(`${local.replace(' ', 'T')}Z`);
  return (local) => {
    const hour = local.slice(0, 13);
    let offset = offsets.get(hour);
    if (offset === undefined) {
      const start = localToUtc(`${hour}:00:00`, timeZone).getTime();
      const end = localToUtc(`${hour}:59:59`, timeZone).getTime();
      const startOffset = wallMs(`${hour}:00:00`) - start;
      offset = wallMs(`${hour}:59:59`) - end === startOffset ? startOffset : null;
      offsets.set(hour, offset);
    }
    if (offset === null) return localToUtc(local, timeZone).toISOString();
    const ms = wallMs(local);
    if (Number.isNaN(ms)) return localToUtc(local, timeZone).toISOString(); // throws the precise error
    return new Date(ms - offset).toISOString();
  };
}
