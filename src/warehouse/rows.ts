/**
 * Small helpers that turn API records into the column arrays the upsert statement sends.
 */
import type { ArrayElement } from './pg-array.js';
import type { ColumnData, ColumnSpec } from './upsert-statement.js';

/** A row as an object of column values. */
export type RowValues = Record<string, ArrayElement>;

/**
 * One row per key, the last one seen winning (an upsert cannot touch a row twice),
 * ordered by key so that concurrent loads lock rows in the same order.
 */
export function uniqueByKey<R>(rows: readonly R[], key: (row: R) => string | number): R[] {
  const byKey = new Map<string | number, R>();
  for (const r of rows) byKey.set(key(r), r);
  const keys = [...byKey.keys()];
  if (keys.every((k) => typeof k === 'number')) (keys as number[]).sort((a, b) => a - b);
  else keys.sort((a, b) => (String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0));
  return keys.map((k) => byKey.get(k)!);
}

/** Transposes rows into one array per column of `columns`. */
export function toColumns(columns: readonly ColumnSpec[], rows: readonly RowValues[]): ColumnData {
  const out: Record<string, ArrayElement[]> = {};
  for (const c of columns) out[c.name] = new Array<ArrayElement>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    for (const c of columns) out[c.name]![i] = row[c.name];
  }
  return out;
}
