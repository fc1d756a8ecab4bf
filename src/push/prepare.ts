/**
 * The local half of a push, before any request: every row of the input file is read,
 * its columns checked against the kind's declaration (types, required columns, an id
 * or a name for each reference), and the files it names found inside the files folder
 * and size-checked (files.ts). A
 * problem with one row makes that row invalid with the reason; the run goes on.
 */
import { dirname } from 'node:path';
import { formatBytes, imageType, prepareFile } from './files.js';
import { readField } from './fields.js';
import { inputFormatOf, readRows, type ColumnRules } from './input.js';
import { RowInvalid, type Reference, type WriteKind } from './kind.js';
import type { RowResult } from './outcomes.js';
import { UsageError } from '../util/usage-error.js';

/** A row after the local checks: its values, and the names still to resolve into ids. */
export interface PreparedRow {
  /** Line in the input file. */
  readonly line: number;
  /** Column values read (files as PreparedFile, ids given directly as numbers). */
  readonly values: Record<string, unknown>;
  /** References given by name, resolved once the API and warehouse are reachable. */
  readonly names: readonly { readonly ref: Reference; readonly name: string }[];
}

/** Every row of a file: prepared, or already decided (invalid). */
export type LocalRow = PreparedRow | RowResult;

/** True when the row still has to go through the checks against the API. */
export function isPrepared(row: LocalRow): row is PreparedRow {
  return 'values' in row;
}

/** Options of {@link prepareRows}. */
export interface PrepareOptions {
  /** Largest attachment or photo accepted, in bytes. */
  readonly maxFileBytes: number;
  /** The folder file columns are read from, and nothing outside it (default: the input file's folder). */
  readonly filesDir?: string;
}

/** The columns a kind accepts and requires (for the CSV header check). */
export function columnRules(kind: WriteKind<unknown>): ColumnRules {
  const accepted = [...Object.keys(kind.columns), ...kind.references.flatMap((r) => [r.idField, r.nameColumn])];
  const required = [
    ...Object.entries(kind.columns)
      .filter(([, spec]) => spec.required)
      .map(([name]) => [name]),
    ...kind.references.filter((r) => r.required).map((r) => [r.idField, r.nameColumn]),
  ];
  return { accepted, required };
}

async function prepareRow(
  kind: WriteKind<unknown>,
  filesDir: string,
  line: number,
  raw: Readonly<Record<string, unknown>>,
  options: PrepareOptions,
): Promise<PreparedRow> {
  const values: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [column, spec] of Object.entries(kind.columns)) {
    try {
      const value = readField(column, spec.type, raw[column]);
      if (value === undefined) {
        if (spec.required) problems.push(`${column}: missing`);
        continue;
      }
      if (spec.type === 'file') {
        values[column] = await prepareFile(filesDir, column, value as string, { maxBytes: options.maxFileBytes, ...(spec.accept ? { accept: spec.accept } : {}) });
      } else if (spec.type === 'files') {
        const files = [];
        for (const p of value as string[]) files.push(await prepareFile(filesDir, column, p, { maxBytes: options.maxFileBytes }));
        values[column] = files;
      } else if (spec.type === 'base64') {
        const bytes = Buffer.from(value as string, 'base64');
        if (bytes.length > options.maxFileBytes) {
          throw new RowInvalid(`${column}: ${formatBytes(bytes.length)}, above the limit of ${formatBytes(options.maxFileBytes)} (PUSH_MAX_FILE_BYTES)`);
        }
        if (spec.accept === 'image' && !imageType(bytes)) throw new RowInvalid(`${column}: not a JPEG or PNG image (spec 4.2)`);
        values[column] = value;
      } else {
        values[column] = value;
      }
    } catch (err) {
      if (!(err instanceof RowInvalid)) throw err;
      problems.push(err.message);
    }
  }
  const names: { ref: Reference; name: string }[] = [];
  for (const ref of kind.references) {
    try {
      const id = readField(ref.idField, 'integer', raw[ref.idField]);
      const name = readField(ref.nameColumn, 'text', raw[ref.nameColumn]) as string | undefined;
      if (id !== undefined && name !== undefined) throw new RowInvalid(`give ${ref.idField} or ${ref.nameColumn}, not both`);
      if (id !== undefined) values[ref.idField] = id;
      else if (name !== undefined) names.push({ ref, name });
      else if (ref.required) throw new RowInvalid(`${ref.idField} or ${ref.nameColumn}: missing`);
    } catch (err) {
      if (!(err instanceof RowInvalid)) throw err;
      problems.push(err.message);
    }
  }
  if (problems.length > 0) throw new RowInvalid(problems.join('; '));
  return { line, values, names };
}

/**
 * Reads and checks every row of `file` for `kind`. Throws {@link UsageError} when the
 * file as a whole cannot be used (see input.ts); otherwise returns one entry per row.
 */
export async function prepareRows(kind: WriteKind<unknown>, file: string, options: PrepareOptions): Promise<LocalRow[]> {
  const format = inputFormatOf(file);
  if (!format) throw new UsageError(`${file}: unknown input format (use a .csv or .jsonl file)`);
  const filesDir = options.filesDir ?? dirname(file);
  const out: LocalRow[] = [];
  for await (const raw of readRows(file, format, columnRules(kind))) {
    if ('error' in raw) {
      out.push({ line: raw.line, outcome: 'invalid', code: 'unreadable_row', message: raw.error });
      continue;
    }
    try {
      out.push(await prepareRow(kind, filesDir, raw.line, raw.values, options));
    } catch (err) {
      if (!(err instanceof RowInvalid)) throw err;
      out.push({ line: raw.line, outcome: 'invalid', code: 'invalid_row', message: err.message });
    }
  }
  return out;
}
