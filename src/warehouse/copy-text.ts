/**
 * Rows in the text format of `COPY ... FROM STDIN`: one line per row, columns separated
 * by tabs, `\N` for null, and backslash, tab, newline and carriage return escaped with a
 * backslash. Postgres parses this far more cheaply than array parameters or VALUES lists.
 */
import { toPgArray } from './pg-array.js';
import type { SqlType } from './table-spec.js';

/** A value a declaration hands over for one column. */
export type CellValue = string | number | boolean | Buffer | readonly (string | null)[] | null | undefined;

const NEEDS_ESCAPE = /[\\\t\n\r]/;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** A text value escaped for COPY. */
export function escapeCopy(text: string): string {
  return NEEDS_ESCAPE.test(text) ? text.replace(/[\\\t\n\r]/g, (c) => ESCAPES[c]!) : text;
}

/** Thrown when a value does not fit its column's type. */
export class CellError extends RangeError {
  override readonly name = 'CellError';
}

/** One value as COPY text. Strings of dates and times are sent as they are (Postgres checks them). */
export function cell(type: SqlType, value: CellValue): string {
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
      if (Array.isArray(value)) return escapeCopy(toPgArray(value as (string | null)[]));
      break;
    default:
      if (typeof value === 'string') return escapeCopy(value);
  }
  throw new CellError(`cannot store ${JSON.stringify(value)} as ${type}`);
}
