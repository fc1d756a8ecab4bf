/**
 * The one statement shape every loader uses (pure builder): rows travel as one array
 * per column, unnested into a set, upserted by natural key with
 * `INSERT … ON CONFLICT … DO UPDATE … WHERE (old) IS DISTINCT FROM (new)` so unchanged
 * rows are not rewritten, and — for a completed window — the rows of the load's scope
 * that the set lacks are soft-deleted, deleted or deactivated in the same statement.
 * The statement returns honest counts: inserted (`xmax = 0`), updated, removed.
 */
import { quoteIdent } from './db.js';
import { toPgArray, type ArrayElement } from './pg-array.js';

/** Column types a loader sends; `[]` types travel as one array literal per row. */
export type SqlType =
  | 'int4'
  | 'int8'
  | 'float8'
  | 'text'
  | 'bool'
  | 'date'
  | 'timestamp'
  | 'timestamptz'
  | 'time'
  | 'bytea'
  | 'text[]'
  | 'time[]';

/** A column the loader sends a value for. */
export interface ColumnSpec {
  readonly name: string;
  readonly type: SqlType;
}

/** What happens to rows of the scope that the loaded set lacks. */
export type MissingMode = 'soft-delete' | 'delete' | 'deactivate';

/** Registers a parameter and returns its placeholder (`$n`). */
export type Param = (value: unknown) => string;

/** Description of one upsert. */
export interface UpsertSpec {
  readonly schema: string;
  readonly table: string;
  /** Natural key: the conflict target (a primary key or unique constraint). */
  readonly key: readonly string[];
  /** Columns sent per row, key included. */
  readonly columns: readonly ColumnSpec[];
  /** Columns set to an SQL expression on insert and update, e.g. `{ active: 'true' }`. */
  readonly fixed?: Readonly<Record<string, string>>;
  /** The table has `deleted_at`: an upserted row loses it (comes back). */
  readonly softDelete?: boolean;
  /** `nothing` leaves existing rows as they are (insert-only). Default `update`. */
  readonly onConflict?: 'update' | 'nothing';
  /** Reconcile the load's scope: rows matching `where` (alias `t`) and absent from the set. */
  readonly missing?: { readonly mode: MissingMode; readonly where: (param: Param) => string };
}

/** A query ready for pg. */
export interface BuiltQuery {
  readonly text: string;
  readonly values: unknown[];
}

/** Row counts one statement returns. */
export interface StatementCounts {
  received: number;
  inserted: number;
  updated: number;
  deleted: number;
}

/** Column arrays of the rows to load (all the same length), by column name. */
export type ColumnData = Readonly<Record<string, readonly ArrayElement[]>>;

function sendType(type: SqlType): string {
  return type.endsWith('[]') ? 'text' : type;
}

/** Builds the upsert (and reconcile) statement of `spec` for `data`. */
export function buildUpsert(spec: UpsertSpec, data: ColumnData): BuiltQuery {
  const values: unknown[] = [];
  const param: Param = (value) => {
    values.push(value);
    return `$${values.length}`;
  };
  const q = quoteIdent;
  const table = `${q(spec.schema)}.${q(spec.table)}`;
  const names = spec.columns.map((c) => c.name);
  let length: number | undefined;
  for (const c of spec.columns) {
    const column = data[c.name];
    if (!column) throw new Error(`buildUpsert ${spec.table}: no data for column ${c.name}`);
    if (length !== undefined && column.length !== length) {
      throw new Error(`buildUpsert ${spec.table}: column ${c.name} has ${column.length} values, expected ${length}`);
    }
    length = column.length;
  }
  for (const k of spec.key) {
    if (!names.includes(k)) throw new Error(`buildUpsert ${spec.table}: key column ${k} is not sent`);
  }

  const placeholders = new Map(spec.columns.map((c) => [c.name, `${param(toPgArray(data[c.name]!))}::${sendType(c.type)}[]`]));
  // One unnest per column in the select list: Postgres streams those in lockstep
  // (ProjectSet), where unnest(a, b, ...) in FROM materializes every row first.
  const unnested = (cols: readonly string[]) => cols.map((n) => `unnest(${placeholders.get(n)!}) AS ${q(n)}`).join(', ');
  const selectCols = spec.columns.map((c) => (c.type.endsWith('[]') ? `s.${q(c.name)}::${c.type}` : `s.${q(c.name)}`));
  const fixed = Object.entries(spec.fixed ?? {});
  const insertCols = [...names, ...fixed.map(([n]) => n), 'synced_at'].map(q);
  const insertVals = [...selectCols, ...fixed.map(([, expr]) => expr), 'now()'];

  const valueCols = names.filter((n) => !spec.key.includes(n));
  const updates = [
    ...valueCols.map((n) => `${q(n)} = excluded.${q(n)}`),
    ...fixed.map(([n, expr]) => `${q(n)} = ${expr}`),
    ...(spec.softDelete ? ['deleted_at = NULL'] : []),
    'synced_at = excluded.synced_at',
  ];
  const oldRow = [
    ...valueCols.map((n) => `t.${q(n)}`),
    ...fixed.map(([n]) => `t.${q(n)}`),
    ...(spec.softDelete ? ['t.deleted_at'] : []),
  ];
  const newRow = [
    ...valueCols.map((n) => `excluded.${q(n)}`),
    ...fixed.map(([, expr]) => expr),
    ...(spec.softDelete ? ['NULL::timestamptz'] : []),
  ];
  const conflictTarget = spec.key.map(q).join(', ');
  let onConflict: string;
  if (spec.onConflict === 'nothing') {
    onConflict = `ON CONFLICT (${conflictTarget}) DO NOTHING`;
  } else if (oldRow.length === 0) {
    // Key-only table: an existing row is already what we would write.
    onConflict = `ON CONFLICT (${conflictTarget}) DO NOTHING`;
  } else {
    // ROW() keeps a one-column comparison a row comparison.
    onConflict =
      `ON CONFLICT (${conflictTarget}) DO UPDATE SET ${updates.join(', ')}\n` +
      `    WHERE ROW(${oldRow.join(', ')}) IS DISTINCT FROM ROW(${newRow.join(', ')})`;
  }

  const ctes = [
    `src AS (\n  SELECT ${unnested(names)}\n)`,
    `up AS (\n  INSERT INTO ${table} AS t (${insertCols.join(', ')})\n  SELECT ${insertVals.join(', ')} FROM src s\n  ${onConflict}\n  RETURNING (xmax = 0) AS inserted\n)`,
  ];
  let deleted = '0';
  if (spec.missing) {
    const scope = spec.missing.where(param);
    // The keys are unnested again rather than read from src, so that src is used once
    // and Postgres streams it into the insert instead of materializing every column.
    const keys = `(SELECT ${unnested(spec.key)}) AS k`;
    const absent = `NOT EXISTS (SELECT 1 FROM ${keys} WHERE ${spec.key.map((k) => `k.${q(k)} = t.${q(k)}`).join(' AND ')})`;
    let body: string;
    switch (spec.missing.mode) {
      case 'soft-delete':
        body = `UPDATE ${table} AS t SET deleted_at = now(), synced_at = now()\n  WHERE (${scope}) AND t.deleted_at IS NULL AND ${absent}\n  RETURNING 1`;
        break;
      case 'delete':
        body = `DELETE FROM ${table} AS t\n  WHERE (${scope}) AND ${absent}\n  RETURNING 1`;
        break;
      case 'deactivate':
        body = `UPDATE ${table} AS t SET active = false, synced_at = now()\n  WHERE (${scope}) AND t.active AND ${absent}\n  RETURNING 1`;
        break;
    }
    ctes.push(`gone AS (\n  ${body}\n)`);
    deleted = '(SELECT count(*) FROM gone)';
  }
  const text =
    `WITH ${ctes.join(',\n')}\n` +
    `SELECT ${length ?? 0}::int AS received,\n` +
    `       counts.inserted, counts.updated,\n` +
    `       ${deleted}::int AS deleted\n` +
    `FROM (SELECT count(*) FILTER (WHERE inserted)::int AS inserted, count(*) FILTER (WHERE NOT inserted)::int AS updated FROM up) AS counts`;
  return { text, values };
}
