/**
 * Labels of `punchline_schema_drift_total`. Drift comes from the API's answers — a new
 * value of a source-owned list, the name of a field no schema knows — so its text is
 * not ours: an API (or whatever answers in its place) could send a new value per record
 * and grow the scrape without end, or put a CPF where a name goes. A value becomes a
 * label only when it looks like a word or a field path (no long number, no punctuation
 * beyond `_ . - / [ ]`, at most 64 characters) and the process has not already exported
 * {@link MAX_DRIFT_SERIES} series; anything else is counted as `other`. The warehouse's
 * `schema_drift` table keeps what was actually sent.
 */

/** Most distinct drift series one process exports. */
export const MAX_DRIFT_SERIES = 50;

/** The label of what may not be shown. */
const OTHER = 'other';

/** A short word, label or field path (`Quiosque`, `Em análise`, `days[].points[].selfie_url`), without a long number in it. */
const SAFE = /^[\p{L}_][\p{L}\p{M}\p{N} _.[\]/-]{0,63}$/u;
const LONG_NUMBER = /\d{5}/;

/** The labels of one piece of drift. */
export interface DriftLabelSet {
  readonly kind: string;
  readonly field: string;
  readonly value: string;
}

/** `text` when it may be a label, else {@link OTHER}. */
function safe(text: string): string {
  return SAFE.test(text) && !LONG_NUMBER.test(text) ? text : OTHER;
}

/** The drift series of one process, bounded; see the file comment. */
export class DriftLabels {
  readonly #series = new Set<string>();

  constructor(private readonly max: number = MAX_DRIFT_SERIES) {}

  /** The labels to count `e` under: its own when safe and within the bound, else `other`. */
  of(e: DriftLabelSet): DriftLabelSet {
    const labels = { kind: e.kind, field: safe(e.field), value: e.value === '' ? '' : safe(e.value) };
    const key = `${labels.kind}\u0000${labels.field}\u0000${labels.value}`;
    if (this.#series.has(key)) return labels;
    if (this.#series.size >= this.max)
      return { kind: e.kind, field: OTHER, value: e.value === '' ? '' : OTHER };
    this.#series.add(key);
    return labels;
  }
}
