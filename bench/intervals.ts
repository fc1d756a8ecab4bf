/**
 * Time spans of concurrent activity (pure): how long it ran in all (sum) and how much
 * wall time had at least one of them running (union), so four loaders busy at once for
 * one second count one second of loader time, not four.
 */

/** A span `[startMs, endMs]`. */
export type Span = readonly [number, number];

/** Totals of a set of spans. */
export interface SpanTotals {
  /** Number of spans. */
  readonly count: number;
  /** Sum of their lengths, ms. */
  readonly sumMs: number;
  /** Wall time covered by at least one, ms. */
  readonly busyMs: number;
}

/** Sum and union of `spans`. */
export function spanTotals(spans: readonly Span[]): SpanTotals {
  const sorted = [...spans].sort((a, b) => a[0] - b[0]);
  let sumMs = 0;
  let busyMs = 0;
  let curStart = -Infinity;
  let curEnd = -Infinity;
  for (const [s, e] of sorted) {
    sumMs += e - s;
    if (s > curEnd) {
      if (curEnd > curStart) busyMs += curEnd - curStart;
      curStart = s;
      curEnd = e;
    } else if (e > curEnd) {
      curEnd = e;
    }
  }
  if (curEnd > curStart) busyMs += curEnd - curStart;
  return { count: spans.length, sumMs, busyMs };
}
