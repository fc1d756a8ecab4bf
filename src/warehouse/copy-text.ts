/**
 * Rows in the text format of `COPY ... FROM STDIN` (tab-separated, `\N` for null, `\`,
 * tab, newline and carriage return escaped), far cheaper for Postgres than parameters.
 * Postgres cannot store a NUL in text and would refuse the COPY, and the window, at every
 * retry: a value holding one is stored without it and counted in {@link Cleaning}. The
 * check rides on the escape test every value passes: clean values cost nothing more.
 */
import { toPgArray } from './pg-array.js';
import type { SqlType } from './table-spec.js';

/** A value a declaration hands over for one column. */
export type CellValue = string | number | boolean | Buffer | readonly (string | null)[] | null | undefined;

const NEEDS_ESCAPE = /[\\\t\n\r\0]/;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** Counts the values stored without characters Postgres cannot store (a NUL). */
export interface Cleaning {
  removed: number;
}

/** A text value escaped for COPY, without NUL characters (each value that had one counted in `cleaning`). */
export function escapeCopy(text: string, cleaning?: Cleaning): string {
  if (!NEEDS_ESCAPE.test(text)) return text;
  let out = text;
  if (out.includes('\0')) {
    out = out.replaceAll('\0', '');
    if (cleaning) cleaning.removed++;
  }
  return out.replace(/[\\\t\n\r]/g, (c) => ESCAPES[c]!);
}

/** Thrown when a value does not fit its column's type. */
export class CellError extends RangeError {
  override readonly name = 'CellError';
}

/** One value as COPY text; dates and times go as they are (Postgres checks them). */
export function cell(type: SqlType, value: CellValue, cleaning?: Cleaning): string {
  if (value === null || value === undefined) return '\\N';
  switch (type) {
    case 'int4':
    case 'int8':
    case 'float8':
      if (typeof value === 'number') {
        if (!Number.isFinite(value)) throw new CellError(`cannot store the number ${value}`);
        return String(value);
      }
      break;
    case 'bool':
      if (typeof value === 'boolean') return value ? 't' : 'f';
      break;
    case 'bytea':
      // The hex form `\x…`, its backslash escaped for COPY.
      if (Buffer.isBuffer(value)) return `\\\\x${value.toString('hex')}`;
      break;
    case 'text[]':
    case 'time[]':
      if (Array.isArray(value)) return escapeCopy(toPgArray(value as (string | null)[]), cleaning);
      break;
    default:
      if (typeof value === 'string') return escapeCopy(value, cleaning);
  }
  // The value itself is not quoted: it may be personal data, and this message is stored.
  throw new CellError(
    `cannot store a ${Array.isArray(value) ? 'list' : Buffer.isBuffer(value) ? 'file' : typeof value} as ${type}`,
  );
}
