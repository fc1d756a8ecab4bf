/**
 * The local half of a push, before any request: every row is read, checked against the kind's
 * declaration (types, required columns, an id or a name per reference), and its files found inside
 * the files folder (files.ts). A problem makes its row invalid with the reason; the run goes on.
 */
import { dirname } from 'node:path';
import { formatBytes, imageType, prepareFile, type FileRule } from './files.js';
import { readField } from './fields.js';
import { inputFormatOf, readRows, type ColumnRules, type RawRow } from './input.js';
import { RowInvalid, type Reference, type WriteKind } from './kind.js';
import type { RowResult } from './outcomes.js';
import { UsageError } from '../util/usage-error.js';

/** A row after the local checks: its values, and the names still to resolve into ids. */
export interface PreparedRow {
  readonly line: number;
  /** Column values read (files as PreparedFile, ids given directly as numbers). */
  readonly values: Record<string, unknown>;
  /** References given by name, resolved once the API and warehouse are reachable. */
  readonly names: readonly { readonly ref: Reference; readonly name: string }[];
}

/** A row as read, without a problem reading it. */
type ReadRow = Extract<RawRow, { values: unknown }>;

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
  /** Read files and folders whose names start with "." too (default: refused). */
  readonly allowHidden?: boolean;
}

/** The columns a kind accepts and requires (for the CSV header check). */
export function columnRules(kind: WriteKind<unknown>): ColumnRules {
  const accepted = [
    ...Object.keys(kind.columns),
    ...kind.references.flatMap((r) => [r.idField, r.nameColumn]),
  ];
  const required = Object.entries(kind.columns).flatMap(([name, spec]) => (spec.required ? [[name]] : []));
  required.push(...kind.references.filter((r) => r.required).map((r) => [r.idField, r.nameColumn]));
  return { accepted, required };
}

/** Reads and checks the values of one row; throws {@link RowInvalid} naming all its problems. */
async function prepareRow(
  kind: WriteKind,
  filesDir: string,
  files: Pick<FileRule, 'maxBytes' | 'allowHidden'>,
  { line, values: raw }: ReadRow,
) {
  const maxBytes = files.maxBytes;
  const values: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [column, spec] of Object.entries(kind.columns)) {
    try {
      const value = readField(column, spec.type, raw[column]);
      if (value === undefined) {
        if (spec.required) problems.push(`${column}: missing`);
        continue;
      }
      const rule = { ...files, ...(spec.accept ? { accept: spec.accept } : {}) };
      if (spec.type === 'file') {
        values[column] = await prepareFile(filesDir, column, value as string, rule);
      } else if (spec.type === 'files') {
        const files = [];
        for (const p of value as string[]) files.push(await prepareFile(filesDir, column, p, rule));
        values[column] = files;
      } else {
        const bytes = spec.type === 'base64' ? Buffer.from(value as string, 'base64') : undefined;
        if (bytes && bytes.length > maxBytes) {
          throw new RowInvalid(
            `${column}: ${formatBytes(bytes.length)}, above the limit of ${formatBytes(maxBytes)} (PUSH_MAX_FILE_BYTES)`,
          );
        }
        if (bytes && spec.accept === 'image' && !imageType(bytes))
          throw new RowInvalid(`${column}: not a JPEG or PNG image (spec 4.2)`);
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
      if (id !== undefined && name !== undefined)
        throw new RowInvalid(`give ${ref.idField} or ${ref.nameColumn}, not both`);
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

/** Reads and checks every row of `file`, one entry each; {@link UsageError} if the file is unusable. */
export async function prepareRows(
  kind: WriteKind<unknown>,
  file: string,
  options: PrepareOptions,
): Promise<LocalRow[]> {
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
      out.push(
        await prepareRow(
          kind,
          filesDir,
          { maxBytes: options.maxFileBytes, allowHidden: options.allowHidden },
          raw,
        ),
      );
    } catch (err) {
      if (!(err instanceof RowInvalid)) throw err;
      out.push({ line: raw.line, outcome: 'invalid', code: 'invalid_row', message: err.message });
    }
  }
  return out;
}
