/**
 * The summary a push prints and its `--report` file: one line per input row with its outcome, as CSV
 * (csv-stringify) or JSON by extension. A CSV report is opened in spreadsheets and its cells repeat
 * what the input and the API said: a cell a spreadsheet would run as a formula is written as text.
 */
import { createWriteStream } from 'node:fs';
import { extname } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import { OUTCOMES, type Outcome } from './outcomes.js';
import type { PushResult } from './engine.js';

/** Report formats by extension. */
const REPORT_FORMATS = { '.csv': 'csv', '.json': 'json' } as const;
/** One report format. */
export type ReportFormat = (typeof REPORT_FORMATS)[keyof typeof REPORT_FORMATS];

/** The report format of `path` by its extension, or undefined. */
export function reportFormatOf(path: string): ReportFormat | undefined {
  return (REPORT_FORMATS as Record<string, ReportFormat>)[extname(path).toLowerCase()];
}

/** Columns of a CSV report, in order. */
const REPORT_COLUMNS = ['line', 'outcome', 'key', 'id', 'code', 'message'] as const;

/** An outcome in words. */
const word = (o: Outcome) => (o === 'would_create' ? 'would be created' : o);

/** Rows listed per outcome in the printed summary (all of them are in the report). */
const LISTED_PER_OUTCOME = 20;

/** Longest piece of a row (key, message) printed in the summary; the report keeps it whole. */
const MAX_PRINTED = 160;

function clip(text: string | undefined): string | undefined {
  return text !== undefined && text.length > MAX_PRINTED ? `${text.slice(0, MAX_PRINTED - 3)}...` : text;
}

/** The summary lines of a push (pure). */
export function summaryLines(r: PushResult, reportPath?: string): string[] {
  const counts = OUTCOMES.filter((o) => r.counts[o] > 0).map((o) => `${r.counts[o]} ${word(o)}`);
  const head = r.applied ? `push ${r.kind}` : `push ${r.kind} (plan: nothing was written)`;
  const lines = [
    `${head}: ${r.rows.length} row${r.rows.length === 1 ? '' : 's'} in ${r.file}${counts.length ? `: ${counts.join(', ')}` : ''}`,
  ];
  for (const outcome of OUTCOMES) {
    const rows = r.rows.filter((x) => x.outcome === outcome);
    for (const x of rows.slice(0, LISTED_PER_OUTCOME)) {
      const detail = [
        clip(x.key),
        x.id ? `id ${x.id}` : undefined,
        x.code && x.code !== 'exists' ? x.code : undefined,
        clip(x.message),
      ]
        .filter(Boolean)
        .join(': ');
      lines.push(`  line ${x.line}: ${word(outcome)}${detail ? `: ${detail}` : ''}`);
    }
    if (rows.length > LISTED_PER_OUTCOME) {
      lines.push(
        `  ... ${rows.length - LISTED_PER_OUTCOME} more ${word(outcome)}${reportPath ? ` (see ${reportPath})` : ' (use --report for every row)'}`,
      );
    }
  }
  if (r.interrupted)
    lines.push('interrupted: run the same file again to finish (what was created is skipped)');
  if (!r.applied && r.counts.would_create > 0) lines.push('this was a plan: run again with --apply to write');
  return lines;
}

/** Characters that make a spreadsheet read a cell as a formula (or smuggle one in after a tab or return). */
const FORMULA_START = /^[=+\-@\t\r]/;

/** `value` as a spreadsheet shows it and never runs it: a leading `'` before a formula character (OWASP's CSV injection advice). */
export function spreadsheetText(value: string): string {
  return FORMULA_START.test(value) ? `'${value}` : value;
}

/** Writes the report of `r` to `path` (CSV or JSON by extension). */
export async function writeReport(path: string, r: PushResult): Promise<void> {
  if (reportFormatOf(path) === 'json') {
    const doc = {
      kind: r.kind,
      file: r.file,
      applied: r.applied,
      interrupted: r.interrupted,
      counts: r.counts,
      rows: r.rows,
    };
    await pipeline(Readable.from([`${JSON.stringify(doc, null, 2)}\n`]), createWriteStream(path));
    return;
  }
  const csv = stringify({ header: true, columns: [...REPORT_COLUMNS], cast: { string: spreadsheetText } });
  await pipeline(Readable.from(r.rows), csv, createWriteStream(path));
}
