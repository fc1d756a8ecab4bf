/**
 * The statements that move a staged table into its warehouse table (pure builders):
 * reconciliation first — rows of the load's scope that the staged answer lacks are
 * soft-deleted, deleted or deactivated — then one `INSERT … SELECT … ON CONFLICT` by
 * natural key that rewrites only rows whose values changed. Reconciling first means a
 * fresh window (the common case of a backfill) costs one empty index range scan, and
 * the upsert never compares a row it has just written.
 */
import { quoteIdent } from './db.js';
import { columnNames, type LoadScope, type Param, type TableSpec } from './table-spec.js';

/** A query ready for pg. */
export interface BuiltQuery {
  readonly text: string;
  readonly values: unknown[];
}

function builder(): { param: Param; values: unknown[] } {
  const values: unknown[] = [];
  return {
    values,
    param: (value) => {
      values.push(value);
      return `$${values.length}`;
    },
  };
}

const q = quoteIdent;
const target = (schema: string, spec: TableSpec) => `${q(schema)}.${q(spec.table)}`;

/** The predicate of rows that still count as present: not soft-deleted, or active. */
function liveCondition(spec: TableSpec): string {
  if (!spec.missing) return 'true';
  switch (spec.missing.mode) {
    case 'soft-delete':
      return 't.deleted_at IS NULL';
    case 'deactivate':
      return 't.active';
    case 'delete':
      return 'true';
  }
}

/** `NOT EXISTS` a staged row with the key of `t`. */
function absentFromStage(spec: TableSpec, stage: string): string {
  const match = spec.key.map((k) => `s.${q(k)} = t.${q(k)}`).join(' AND ');
  return `NOT EXISTS (SELECT 1 FROM ${q(stage)} s WHERE ${match})`;
}

/** Counts the live rows of the scope (the base of the mass-removal guard). */
export function buildLiveCount(schema: string, spec: TableSpec, scope: LoadScope): BuiltQuery {
  if (!spec.missing) throw new Error(`${spec.table}: no reconciliation declared`);
  const { param, values } = builder();
  const text = `SELECT count(*)::int AS live FROM ${target(schema, spec)} t WHERE (${spec.missing.where(param, scope, (name) => `${q(schema)}.${q(name)}`)}) AND ${liveCondition(spec)}`;
  return { text, values };
}

/** Whether the scope holds any row at all, live or not (a load into an empty scope copies straight in). */
export function buildScopeHasRows(schema: string, spec: TableSpec, scope: LoadScope): BuiltQuery {
  if (!spec.missing) throw new Error(`${spec.table}: no reconciliation declared`);
  const { param, values } = builder();
  const text = `SELECT EXISTS (SELECT 1 FROM ${target(schema, spec)} t WHERE ${spec.missing.where(param, scope, (name) => `${q(schema)}.${q(name)}`)}) AS any`;
  return { text, values };
}

/** The predicate that keeps the rows of rejected records out of reconciliation (see Protection). */
function protectedRows(spec: TableSpec, scope: LoadScope, param: Param): string {
  const p = scope.protect;
  if (!p) return '';
  if (p.all) return ' AND false';
  let out = '';
  if (p.cpfs.length > 0 && 'cpf' in spec.columns) out += ` AND NOT (t.cpf = ANY(${param(p.cpfs)}::text[]))`;
  for (const [column, ids] of Object.entries(p.ids)) {
    if (ids.length > 0 && spec.key.includes(column)) out += ` AND NOT (t.${q(column)} = ANY(${param(ids)}::int8[]))`;
  }
  return out;
}

/** Soft-deletes, deletes or deactivates the live rows of the scope that the stage lacks; returns `removed` and the `digest` of their keys. */
export function buildReconcile(schema: string, spec: TableSpec, stage: string, scope: LoadScope): BuiltQuery {
  if (!spec.missing) throw new Error(`${spec.table}: no reconciliation declared`);
  const { param, values } = builder();
  const table = target(schema, spec);
  const where = `(${spec.missing.where(param, scope, (name) => `${q(schema)}.${q(name)}`)}) AND ${liveCondition(spec)} AND ${absentFromStage(spec, stage)}${protectedRows(spec, scope, param)}`;
  // The removed rows' natural keys, one text each, for the digest of what was removed.
  const key = `concat_ws(E'\\x1f', ${spec.key.map((k) => `t.${q(k)}::text`).join(', ')}) AS k`;
  let body: string;
  switch (spec.missing.mode) {
    case 'soft-delete':
      body = `UPDATE ${table} AS t SET deleted_at = now(), synced_at = now() WHERE ${where} RETURNING ${key}`;
      break;
    case 'deactivate':
      body = `UPDATE ${table} AS t SET active = false, synced_at = now() WHERE ${where} RETURNING ${key}`;
      break;
    case 'delete':
      body = `DELETE FROM ${table} AS t WHERE ${where} RETURNING ${key}`;
      break;
  }
  return {
    text: `WITH gone AS (${body}) SELECT count(*)::int AS removed, md5(coalesce(string_agg(k, E'\\x1e' ORDER BY k), '')) AS digest FROM gone`,
    values,
  };
}

/**
 * Upserts the staged rows by natural key; returns `inserted` and `updated` (rows whose
 * values changed, or that came back from deleted/inactive). With `dedupe`, a key staged
 * twice keeps its last row (one statement cannot touch a row twice); without it such an
 * answer fails with a cardinality violation, which the caller retries with `dedupe`.
 */
export function buildUpsert(schema: string, spec: TableSpec, stage: string, options: { dedupe?: boolean } = {}): BuiltQuery {
  const names = columnNames(spec);
  const fixed = Object.entries(spec.fixed ?? {});
  const insertCols = [...names, ...fixed.map(([n]) => n), 'synced_at'].map(q);
  const insertVals = [...names.map((n) => `s.${q(n)}`), ...fixed.map(([, expr]) => expr), 'now()'];
  const source = options.dedupe
    ? `(SELECT DISTINCT ON (${spec.key.map(q).join(', ')}) * FROM ${q(stage)} ORDER BY ${spec.key.map(q).join(', ')}, ctid DESC) s`
    : `${q(stage)} s`;

  const valueCols = names.filter((n) => !spec.key.includes(n));
  const loaded = (n: string) => (spec.keepOnNull?.includes(n) ? `coalesce(excluded.${q(n)}, t.${q(n)})` : `excluded.${q(n)}`);
  const oldRow = [...valueCols.map((n) => `t.${q(n)}`), ...fixed.map(([n]) => `t.${q(n)}`), ...(spec.softDelete ? ['t.deleted_at'] : [])];
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
  return { text: `SELECT count(*)::int AS n FROM (SELECT DISTINCT ${spec.key.map(q).join(', ')} FROM ${q(stage)}) d`, values: [] };
}
