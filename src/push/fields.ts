/**
 * Reading the value of one column of an input row into what the write wants (spec 1.2 formats),
 * pure. CSV gives strings; JSONL may give numbers, booleans and arrays too. Surrounding blanks are
 * trimmed and an empty value counts as absent.
 */
import { DATE_TIME_RE, isCalendarDate } from '../util/time.js';
import { isValidCpf, padCpf } from '../util/national-registry.js';
import { RowInvalid } from './row-invalid.js';

/** The closed set of column types, each with how it is written in a file (for messages and docs). */
const FIELD_FORMATS = {
  text: 'text',
  integer: 'a whole number',
  date: 'a date YYYY-MM-DD',
  datetime: 'a local date-time YYYY-MM-DD HH:MM:SS',
  boolean: '1 or 0',
  cpf: 'a CPF (11 digits; dots, dash and missing leading zeros are accepted)',
  cpfs: 'one or more CPFs separated by |',
  email: 'an e-mail address',
  base64: 'base64 text without a data: prefix',
  file: "a file path inside the files folder (the input file's folder, or --files-dir)",
  files:
    "one or more file paths separated by |, inside the files folder (the input file's folder, or --files-dir)",
} as const;
/** One column type. */
export type FieldType = keyof typeof FIELD_FORMATS;

/** Separator of several values in one CSV cell (`;` and `,` separate the cells). */
const LIST_SEPARATOR = '|';

/** True when a raw value counts as absent (missing, null, or blank text). */
function isBlank(raw: unknown): boolean {
  return (
    raw === undefined ||
    raw === null ||
    (typeof raw === 'string' && raw.trim() === '') ||
    (Array.isArray(raw) && raw.length === 0)
  );
}

function text(column: string, raw: unknown): string {
  if (typeof raw === 'string') return raw.trim();
  if (typeof raw === 'number' && Number.isFinite(raw)) return String(raw);
  throw new RowInvalid(`${column}: expected text, got ${JSON.stringify(raw)}`);
}

function list(column: string, raw: unknown): string[] {
  const items = Array.isArray(raw)
    ? raw.map((v) => text(column, v))
    : text(column, raw).split(LIST_SEPARATOR);
  return items.map((s) => s.trim()).filter((s) => s !== '');
}

function cpf(column: string, value: string): string {
  const digits = value.replace(/[.\-\s/]/g, '');
  if (!/^\d{1,11}$/.test(digits))
    throw new RowInvalid(`${column}: ${JSON.stringify(value)} is not a CPF (11 digits)`);
  const padded = padCpf(digits);
  if (!isValidCpf(padded))
    throw new RowInvalid(`${column}: ${padded} is not a valid CPF (check digits do not match)`);
  return padded;
}

const DATE_TIME_LOOSE = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}):(\d{2})(?::(\d{2}))?$/;

/** Reads a non-blank raw value of a column; `bad` throws the message naming what the type expects. */
type Reader = (column: string, raw: unknown, bad: () => never) => unknown;

/** The text of a value when `ok` accepts it. */
function checked(ok: (v: string) => boolean): Reader {
  return (column, raw, bad) => (ok(text(column, raw)) ? text(column, raw) : bad());
}

const READERS: Readonly<Record<FieldType, Reader>> = {
  text,
  integer: (column, raw, bad) => {
    if (typeof raw === 'number') return Number.isSafeInteger(raw) && raw >= 0 ? raw : bad();
    return Number(checked((v) => /^\d{1,15}$/.test(v))(column, raw, bad));
  },
  date: checked(isCalendarDate),
  datetime: (column, raw, bad) => {
    // spec 1.2 wants `YYYY-MM-DD HH:MM:SS`; a `T` or missing seconds (spreadsheets) are normalised.
    const m = DATE_TIME_LOOSE.exec(text(column, raw));
    if (!m) return bad();
    const v = `${m[1]} ${m[2]}:${m[3]}:${m[4] ?? '00'}`;
    return DATE_TIME_RE.test(v) && isCalendarDate(m[1]!) ? v : bad();
  },
  boolean: (column, raw, bad) => {
    const v = typeof raw === 'boolean' ? String(raw) : text(column, raw).toLowerCase();
    return v === '1' || v === 'true' ? true : v === '0' || v === 'false' ? false : bad();
  },
  cpf: (column, raw) => cpf(column, text(column, raw)),
  cpfs: (column, raw) => [...new Set(list(column, raw).map((v) => cpf(column, v)))],
  email: checked((v) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v)),
  base64: (column, raw, bad) => {
    const v = text(column, raw).replace(/\s+/g, '');
    if (v.startsWith('data:'))
      throw new RowInvalid(`${column}: send the base64 without the data:... prefix (spec 4.2)`);
    return /^[A-Za-z0-9+/]+={0,2}$/.test(v) && v.length % 4 === 0 ? v : bad();
  },
  file: text,
  files: list,
};

/** Reads `raw` as `type` (blank: undefined); {@link RowInvalid} names the column and what was expected. */
export function readField(column: string, type: FieldType, raw: unknown): unknown {
  if (isBlank(raw)) return undefined;
  return READERS[type](column, raw, () => {
    throw new RowInvalid(`${column}: expected ${FIELD_FORMATS[type]}, got ${JSON.stringify(raw)}`);
  });
}
