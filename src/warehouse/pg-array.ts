/** Postgres array literals for array columns' COPY text: cheaper than pg's generic serializer. */

/** A value of one array element. */
export type ArrayElement = string | number | boolean | Buffer | null | undefined;

const NEEDS_ESCAPE = /["\\]/;
/** A JSON escape other than \" and \\ (may also match an escaped backslash before b/f/n/r/t/u: harmless). */
const JSON_ONLY_ESCAPE = /\\[bfnrtu]/;

function element(value: ArrayElement): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'boolean') return value ? 't' : 'f';
  // bytea in hex format; the backslash is escaped for the array parser.
  if (typeof value !== 'string') return `"\\\\x${value.toString('hex')}"`;
  return NEEDS_ESCAPE.test(value) ? `"${value.replace(/[\\"]/g, '\\$&')}"` : `"${value}"`;
}

/** The Postgres array literal of `values` (one dimension), e.g. `{1,NULL,"a b"}`. */
export function toPgArray(values: readonly ArrayElement[]): string {
  let plain = true;
  for (const v of values) {
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) throw new RangeError(`cannot store a non-finite number: ${v}`);
    } else if (typeof v === 'object' && v !== null) {
      plain = false;
    }
  }
  if (plain) {
    // JSON quotes and escapes " and \ exactly as the array parser expects, and null is
    // NULL to it; other escapes (control characters) would be misread, so those go the
    // slow way. Native JSON is far cheaper than building strings element by element.
    const json = JSON.stringify(values);
    if (!JSON_ONLY_ESCAPE.test(json)) return `{${json.slice(1, -1)}}`;
  }
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    if (i > 0) out += ',';
    out += element(values[i]);
  }
  return out + '}';
}
