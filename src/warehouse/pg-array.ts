/**
 * Postgres array literals for query parameters. Loaders send each column as one array
 * parameter (`unnest($1::int8[], ...)`); building the literal here is cheaper than
 * pg's generic serializer and lets an array column travel as one literal per row.
 */

/** A value of one array element. */
export type ArrayElement = string | number | boolean | Buffer | null | undefined;

const NEEDS_ESCAPE = /["\\]/;

function element(value: ArrayElement): string {
  if (value === null || value === undefined) return 'NULL';
  switch (typeof value) {
    case 'number':
      if (!Number.isFinite(value)) throw new RangeError(`cannot store a non-finite number: ${value}`);
      return String(value);
    case 'boolean':
      return value ? 't' : 'f';
    case 'string':
      return NEEDS_ESCAPE.test(value) ? `"${value.replace(/[\\"]/g, '\\$&')}"` : `"${value}"`;
    default:
      // bytea in hex format; the backslash is escaped for the array parser.
      return `"\\\\x${value.toString('hex')}"`;
  }
}

/** The Postgres array literal of `values` (one dimension), e.g. `{1,NULL,"a b"}`. */
export function toPgArray(values: readonly ArrayElement[]): string {
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    if (i > 0) out += ',';
    out += element(values[i]);
  }
  return out + '}';
}
