/** The fields of a write request (JSON or multipart), checked as the API does (spec 1.1). */
import { DATE_TIME_RE, isCalendarDate } from '../../util/time.js';
import { ApiFault, invalidField, missingFields } from '../errors.js';

/** The raw fields of a request body. */
export type RawFields = Record<string, unknown>;

/** Checks that a JSON body is an object (400 otherwise; an absent body is an empty object). */
export function jsonObject(body: unknown): RawFields {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw new ApiFault(400, 'bad_request', 'The request body must be a JSON object.');
  }
  return body as RawFields;
}

/** True when a field counts as missing: absent, null or an empty string. */
function isMissing(v: unknown): boolean {
  return v === undefined || v === null || (typeof v === 'string' && v.trim() === '');
}

/** Throws 422 `validation_failed` listing the required fields that are missing, in the given order. */
export function requireFields(fields: RawFields, names: readonly string[]): void {
  const missing = names.filter((n) => isMissing(fields[n]));
  if (missing.length > 0) throw missingFields(missing);
}

/** A string field (numbers are not accepted where the spec says string: leading zeros matter). */
export function str(fields: RawFields, name: string): string | undefined {
  const v = fields[name];
  if (isMissing(v)) return undefined;
  if (typeof v !== 'string') throw invalidField(name, 'must be a string');
  return v.trim();
}

/** An integer field (a JSON integer or a string of digits). */
export function int(fields: RawFields, name: string): number | undefined {
  const v = fields[name];
  if (isMissing(v)) return undefined;
  if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
  if (typeof v === 'string' && /^\d{1,15}$/.test(v.trim())) return Number(v.trim());
  throw invalidField(name, 'must be an integer');
}

/** A date field (spec 1.2). */
export function date(fields: RawFields, name: string): string | undefined {
  const v = str(fields, name);
  if (v !== undefined && !isCalendarDate(v))
    throw invalidField(name, 'must be a date in the format YYYY-MM-DD');
  return v;
}

/** A date-time field (spec 1.2). */
export function dateTime(fields: RawFields, name: string): string | undefined {
  const v = str(fields, name);
  if (v !== undefined && !(DATE_TIME_RE.test(v) && isCalendarDate(v.slice(0, 10)))) {
    throw invalidField(name, 'must be a date-time in the format YYYY-MM-DD HH:MM:SS');
  }
  return v;
}

/** A boolean field: `1`/`0` (spec 1.2), also JSON true/false. */
export function bool(fields: RawFields, name: string): boolean | undefined {
  const v = fields[name];
  if (isMissing(v)) return undefined;
  if (v === true || v === 1 || v === '1') return true;
  if (v === false || v === 0 || v === '0') return false;
  throw invalidField(name, 'must be 1 or 0');
}
