/**
 * Reading a `punchline push` input file row by row, streaming: CSV (csv-parse: quoting, UTF-8 with or
 * without BOM, `;` or `,` detected from the header) or JSONL. What breaks the whole file (an unknown,
 * duplicate or missing CSV column, a quote never closed) is a {@link UsageError} before anything is
 * sent; what breaks one line makes that row invalid and the others go on. Blank lines are not rows.
 */
import { createReadStream } from 'node:fs';
import { extname } from 'node:path';
import { createInterface } from 'node:readline';
import { parse, type CsvError, type Info } from 'csv-parse';
import { UsageError } from '../util/usage-error.js';
import { headOf } from './files.js';

/** Formats an input file may have, by extension. */
const INPUT_FORMATS = { '.csv': 'csv', '.jsonl': 'jsonl', '.ndjson': 'jsonl' } as const;
/** One input format. */
export type InputFormat = (typeof INPUT_FORMATS)[keyof typeof INPUT_FORMATS];

/** The format of `path` by its extension, or undefined. */
export function inputFormatOf(path: string): InputFormat | undefined {
  return (INPUT_FORMATS as Record<string, InputFormat>)[extname(path).toLowerCase()];
}

/** One row as read: its line, and its raw values or why it could not be read. */
export type RawRow =
  | { readonly line: number; readonly values: Readonly<Record<string, unknown>> }
  | { readonly line: number; readonly error: string };

/** The columns a file may have, and which must be there (each inner list: one of them). */
export interface ColumnRules {
  readonly accepted: readonly string[];
  /** Groups of which at least one column must be present (e.g. `[department_id, department]`). */
  readonly required: readonly (readonly string[])[];
}

/** A list field may be named with the spec's `[]` suffix (`national_registry[]`, spec 1.3). */
function columnName(raw: string): string {
  return raw.trim().replace(/\[\]$/, '');
}

/** Checks a CSV header against `rules`; returns the column names or throws a UsageError naming the problem. */
function checkHeader(file: string, header: readonly string[], rules: ColumnRules): string[] {
  const names = header.map(columnName);
  const accepted = new Set(rules.accepted);
  const seen = new Set<string>();
  names.forEach((n, i) => {
    if (n === '') throw new UsageError(`${file}: column ${i + 1} of the header has no name`);
    if (!accepted.has(n))
      throw new UsageError(`${file}: unknown column "${n}" (accepted: ${rules.accepted.join(', ')})`);
    if (seen.has(n)) throw new UsageError(`${file}: column "${n}" appears twice in the header`);
    seen.add(n);
  });
  const missing = rules.required.find((group) => !group.some((c) => seen.has(c)));
  if (missing) throw new UsageError(`${file}: missing column ${missing.map((c) => `"${c}"`).join(' or ')}`);
  return names;
}

/** The cell delimiter of a CSV header line: `;` when it has more of them than `,`. */
export function detectDelimiter(headerLine: string): ';' | ',' {
  const count = (ch: string) => headerLine.split(ch).length - 1;
  return count(';') > count(',') ? ';' : ',';
}

async function* readCsv(path: string, rules: ColumnRules): AsyncGenerator<RawRow> {
  const head = (await headOf(path, 64 * 1024)).toString('utf8').replace(/^\uFEFF/, '');
  const delimiter = detectDelimiter(head.split(/\r?\n/)[0] ?? '');
  const skipped: RawRow[] = [];
  let fatal: UsageError | undefined;
  let lastGoodLine = 1;
  const parser = createReadStream(path).pipe(
    parse({
      bom: true,
      delimiter,
      columns: (header: string[]) => checkHeader(path, header, rules),
      info: true,
      skip_empty_lines: true,
      relax_quotes: true,
      on_record: (record: { record: Record<string, string>; info: Info }) => {
        lastGoodLine = record.info.lines;
        return record;
      },
      skip_records_with_error: true,
      on_skip: (err: CsvError | undefined) => {
        if (!err) return;
        const line = Number((err as CsvError & { lines?: number }).lines ?? 0);
        if (err.code === 'CSV_QUOTE_NOT_CLOSED') {
          // Everything after the quote was swallowed into one field: no row can be trusted.
          fatal ??= new UsageError(
            `${path}: a quoted field opened after line ${lastGoodLine} is never closed`,
          );
          return;
        }
        skipped.push({ line, error: `not a valid CSV record: ${err.message.replace(/ on line \d+$/, '')}` });
      },
    }),
  );
  for await (const item of parser as AsyncIterable<{ record: Record<string, string>; info: Info }>) {
    if (fatal) throw fatal;
    // The parser runs ahead of this loop: a skipped record may be reported before the good ones above it.
    const line = item.info.lines;
    while (skipped.length > 0 && skipped[0]!.line < line) yield skipped.shift()!;
    yield { line, values: item.record };
  }
  if (fatal) throw fatal;
  yield* skipped.splice(0);
}

/** The values of one JSONL line, or why it is not a row. */
function jsonlRow(text: string, rules: ColumnRules) {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return { error: `not valid JSON: ${(err as Error).message}` };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    return { error: 'not a JSON object' };
  const fields = Object.entries(parsed).map(([k, v]) => ({ k, name: columnName(k), v }));
  const unknown = fields.filter((f) => !rules.accepted.includes(f.name)).map((f) => `"${f.k}"`);
  if (unknown.length > 0)
    return { error: `unknown field ${unknown.join(', ')} (accepted: ${rules.accepted.join(', ')})` };
  return { values: Object.fromEntries(fields.map((f) => [f.name, f.v])) };
}

async function* readJsonl(path: string, rules: ColumnRules): AsyncGenerator<RawRow> {
  const lines = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
  let line = 0;
  for await (const rawText of lines) {
    line += 1;
    const text = line === 1 ? rawText.replace(/^\uFEFF/, '') : rawText;
    if (text.trim() !== '') yield { line, ...jsonlRow(text, rules) };
  }
}

/** Reads `path` row by row; see the file comment. */
export function readRows(path: string, format: InputFormat, rules: ColumnRules): AsyncGenerator<RawRow> {
  return format === 'csv' ? readCsv(path, rules) : readJsonl(path, rules);
}
