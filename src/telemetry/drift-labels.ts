/**
 * Labels of `punchline_schema_drift_total`. Drift comes from the API's answers — a new
 * value of a source-owned list, the name of a field no schema knows — so its text is
 * not ours: an API (or whatever answers in its place) could send a new value per record
 * and grow the scrape without end, or put a person's name or a CPF where a value goes.
 * So a new value is never a label (the `schema_drift` table and `status` show it), and a
 * field becomes a label only when it is a field path of bounded charset and length
 * (ASCII letters, digits, `_`, `.`, `[]`, at most 64 characters, no long number) and the
 * process has not already exported {@link MAX_DRIFT_SERIES} series; anything else is
 * counted as `other`.
 */

/** Most distinct drift series one process exports. */
export const MAX_DRIFT_SERIES = 50;

/** The label of what may not be shown. */
const OTHER = 'other';

/** A field path (`point.origin`, `days[].points[].selfie_url`): ASCII identifiers joined by `.`, each maybe `[]`. */
const FIELD_PATH = /^(?=.{1,64}$)[A-Za-z_][A-Za-z0-9_]*(?:\[\])*(?:\.[A-Za-z_][A-Za-z0-9_]*(?:\[\])*)*$/;
const LONG_NUMBER = /\d{5}/;

/** The labels of one piece of drift: its kind (ours) and its field. */
export interface DriftLabelSet {
  readonly kind: string;
  readonly field: string;
}

/** `field` when it may be a label, else {@link OTHER}. */
function safeField(field: string): string {
  return FIELD_PATH.test(field) && !LONG_NUMBER.test(field) ? field : OTHER;
}

/** The drift series of one process, bounded; see the file comment. */
export class DriftLabels {
  readonly #series = new Set<string>();

  constructor(private readonly max: number = MAX_DRIFT_SERIES) {}

  /** The labels to count `e` under: its field when safe and within the bound, else `other`. */
  of(e: DriftLabelSet): DriftLabelSet {
    const labels = { kind: e.kind, field: e.field === '' ? '' : safeField(e.field) };
    const key = `${labels.kind}\u0000${labels.field}`;
    if (this.#series.has(key)) return labels;
    if (this.#series.size >= this.max) return { kind: e.kind, field: OTHER };
    this.#series.add(key);
    return labels;
  }
}
