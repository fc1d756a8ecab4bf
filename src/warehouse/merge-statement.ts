/**
 * The statements that move a staged table into its warehouse table (pure builders):
 * reconciliation of the scope's rows the stage lacks, then one `INSERT … ON CONFLICT`
 * rewriting only changed rows. Reconciling first makes a fresh window (most of a backfill)
 * cost one empty index range scan, and the upsert never compares a row it just wrote.
 */
import { quoteIdent } from './db.js';
import { columnNames, type LoadScope, type Param, type TableSpec } from './table-spec.js';

/** A query ready for pg. */
export interface BuiltQuery {
  readonly text: string;
  readonly values: unknown[];
}

const q = quoteIdent;
const target = (schema: string, spec: TableSpec) => `${q(schema)}.${q(spec.table)}`;

/** The rows of `scope` in `spec`'s table `t`, with the parameters the predicate registered. */
function scoped(schema: string, spec: TableSpec, scope: LoadScope) {
  if (!spec.missing) throw new Error(`${spec.table}: no reconciliation declared`);
  const values: unknown[] = [];
  const param: Param = (value) => `$${values.push(value)}`;
  return { param, values, where: spec.missing.where(param, scope, (name) => `${q(schema)}.${q(name)}`) };
}

/** The predicate of rows that still count as present (not soft-deleted, or active), by missing mode. */
const LIVE = { 'soft-delete': 't.deleted_at IS NULL', deactivate: 't.active', delete: 'true' } as const;
const liveCondition = (spec: TableSpec) => (spec.missing ? LIVE[spec.missing.mode] : 'true');

/** `NOT EXISTS` a staged row with the key of `t`. */
function absentFromStage(spec: TableSpec, stage: string): string {
  const match = spec.key.map((k) => `s.${q(k)} = t.${q(k)}`).join(' AND ');
  return `NOT EXISTS (SELECT 1 FROM ${q(stage)} s WHERE ${match})`;
}

/** Counts the live rows of the scope (the base of the mass-removal guard). */
export function buildLiveCount(schema: string, spec: TableSpec, scope: LoadScope): BuiltQuery {
  const { where, values } = scoped(schema, spec, scope);
  const text = `SELECT count(*)::int AS live FROM ${target(schema, spec)} t WHERE (${where}) AND ${liveCondition(spec)}`;
  return { text, values };
}

/** Whether the scope holds any row at all, live or not (a load into an empty scope copies straight in). */
export function buildScopeHasRows(schema: string, spec: TableSpec, scope: LoadScope): BuiltQuery {
  const { where, values } = scoped(schema, spec, scope);
  return { text: `SELECT EXISTS (SELECT 1 FROM ${target(schema, spec)} t WHERE ${where}) AS any`, values };
}

/** The predicate that keeps the rows of rejected records out of reconciliation (see Protection). */
function protectedRows(spec: TableSpec, scope: LoadScope, param: Param): string {
  const p = scope.protect;
  if (!p) return '';
  if (p.all) return ' AND false';
  let out = '';
  if (p.cpfs.length > 0 && 'cpf' in spec.columns) out += ` AND NOT (t.cpf = ANY(${param(p.cpfs)}::text[]))`;
  for (const [column, ids] of Object.entries(p.ids)) {
    if (ids.length > 0 && spec.key.includes(column))
      out += ` AND NOT (t.${q(column)} = ANY(${param(ids)}::int8[]))`;
  }
  return out;
}

/** Soft-deletes, deletes or deactivates the live rows of the scope that the stage lacks; returns `removed` and the `digest` of their keys. */
export function buildReconcile(schema: string, spec: TableSpec, stage: string, scope: LoadScope): BuiltQuery {
  const { param, values, where: inScope } = scoped(schema, spec, scope);
  const table = target(schema, spec);
  const live = `(${inScope}) AND ${liveCondition(spec)} AND ${absentFromStage(spec, stage)}`;
  const where = `${live}${protectedRows(spec, scope, param)}`;
  // The removed rows' natural keys, one text each, for the digest of what was removed.
  const key = `concat_ws(E'\\x1f', ${spec.key.map((k) => `t.${q(k)}::text`).join(', ')}) AS k`;
  const mode = spec.missing!.mode;
  const set = mode === 'soft-delete' ? 'deleted_at = now()' : 'active = false';
  const body =
    mode === 'delete'
      ? `DELETE FROM ${table} AS t WHERE ${where} RETURNING ${key}`
      : `UPDATE ${table} AS t SET ${set}, synced_at = now() WHERE ${where} RETURNING ${key}`;
  return {
    text: `WITH gone AS (${body}) SELECT count(*)::int AS removed, md5(coalesce(string_agg(k, E'\\x1e' ORDER BY k), '')) AS digest FROM gone`,
    values,
  };
}

/**
 * Upserts the staged rows by natural key; returns `inserted` and `updated` (changed, or back
 * from deleted/inactive). A key staged twice fails with a cardinality violation (a statement
 * cannot touch a row twice) unless `dedupe` keeps its last row, as the caller retries.
 */
export function buildUpsert(
  schema: string,
  spec: TableSpec,
  stage: string,
  options: { dedupe?: boolean } = {},
): BuiltQuery {
  const names = columnNames(spec);
  const fixed = Object.entries(spec.fixed ?? {});
  const insertCols = [...names, ...fixed.map(([n]) => n), 'synced_at'].map(q);
  const insertVals = [...names.map((n) => `s.${q(n)}`), ...fixed.map(([, expr]) => expr), 'now()'];
  const source = options.dedupe
    ? `(SELECT DISTINCT ON (${spec.key.map(q).join(', ')}) * FROM ${q(stage)} ORDER BY ${spec.key.map(q).join(', ')}, ctid DESC) s`
    : `${q(stage)} s`;

  const valueCols = names.filter((n) => !spec.key.includes(n));
  const loaded = (n: string) =>
    spec.keepOnNull?.includes(n) ? `coalesce(excluded.${q(n)}, t.${q(n)})` : `excluded.${q(n)}`;
  const oldRow = [
    ...valueCols.map((n) => `t.${q(n)}`),
    ...fixed.map(([n]) => `t.${q(n)}`),
    ...(spec.softDelete ? ['t.deleted_at'] : []),
  ];
  const newRow = [
    ...valueCols.map(loaded),
    ...fixed.map(([, expr]) => expr),
    ...(spec.softDelete ? ['NULL::timestamptz'] : []),
  ];
  const conflictTarget = spec.key.map(q).join(', ');
  let onConflict: string;
  if (spec.onConflict === 'nothing' || oldRow.length === 0) {
    // Insert-only, or a key-only table whose existing row is already what we would write.
    onConflict = `ON CONFLICT (${conflictTarget}) DO NOTHING`;
  } else {
    const updates = [
      ...valueCols.map((n) => `${q(n)} = ${loaded(n)}`),
      ...fixed.map(([n, expr]) => `${q(n)} = ${expr}`),
      ...(spec.softDelete ? ['deleted_at = NULL'] : []),
      'synced_at = excluded.synced_at',
    ];
    // ROW() keeps a one-column comparison a row comparison.
    onConflict =
      `ON CONFLICT (${conflictTarget}) DO UPDATE SET ${updates.join(', ')}\n` +
      `    WHERE ROW(${oldRow.join(', ')}) IS DISTINCT FROM ROW(${newRow.join(', ')})` +
      (spec.updateWhen ? ` AND (${spec.updateWhen})` : '');
  }
  const text =
    `WITH up AS (\n  INSERT INTO ${target(schema, spec)} AS t (${insertCols.join(', ')})\n` +
    `  SELECT ${insertVals.join(', ')} FROM ${source}\n  ${onConflict}\n  RETURNING (xmax = 0) AS inserted\n)\n` +
    `SELECT count(*) FILTER (WHERE inserted)::int AS inserted, count(*) FILTER (WHERE NOT inserted)::int AS updated FROM up`;
  return { text, values: [] };
}

/** Counts the distinct keys of a stage (an answer that held a key twice). */
export function buildDistinctCount(spec: TableSpec, stage: string): BuiltQuery {
  return {
    text: `SELECT count(*)::int AS n FROM (SELECT DISTINCT ${spec.key.map(q).join(', ')} FROM ${q(stage)}) d`,
    values: [],
  };
}
