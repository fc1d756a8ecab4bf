/**
 * Column buffers: API records become one array per column as they are read, which is
 * what the upsert statement sends. Rows are copied into the arrays at once (no list of
 * row objects kept alive), so large windows cost little garbage collection.
 */
import type { ArrayElement } from './pg-array.js';
import type { ColumnData, ColumnSpec } from './upsert-statement.js';

/** A row as an object of column values (short-lived: copied into the buffer). */
export type RowValues = Record<string, ArrayElement>;

/** Column arrays of rows with distinct keys, in first-seen order. */
export class ColumnBuffer {
  /** One array per column, all the same length. */
  readonly data: ColumnData;
  private readonly columns: readonly ColumnSpec[];
  private readonly arrays: ArrayElement[][];
  private readonly positions = new Map<string | number, number>();

  constructor(columns: readonly ColumnSpec[]) {
    this.columns = columns;
    this.arrays = columns.map(() => []);
    this.data = Object.fromEntries(columns.map((c, i) => [c.name, this.arrays[i]!]));
  }

  /** Rows held. */
  get length(): number {
    return this.positions.size;
  }

  /**
   * Adds a row under its natural key. A key seen before is replaced in place: the last
   * record wins, since one upsert cannot touch a row twice.
   */
  add(key: string | number, row: RowValues): void {
    const at = this.positions.get(key);
    const i = at ?? this.positions.size;
    if (at === undefined) this.positions.set(key, i);
    for (let c = 0; c < this.columns.length; c++) this.arrays[c]![i] = row[this.columns[c]!.name];
  }
}

/** Column arrays of `rows`, one row per `key` (the last one winning), in first-seen order. */
export function columnsOf<R extends RowValues>(columns: readonly ColumnSpec[], rows: readonly R[], key: (row: R) => string | number): ColumnData {
  const buffer = new ColumnBuffer(columns);
  for (const r of rows) buffer.add(key(r), r);
  return buffer.data;
}
