/**
 * The warehouse as pg_catalog describes it: every table and view of a schema with its
 * comment, columns, unique indexes and foreign keys. docs/warehouse.md, the analyst views
 * and the erasure functions are generated from it, so all follow what migrations created.
 */
import type { SqlRunner } from './db.js';

/** Runs `text` and returns its rows as `R` (the caller knows the columns it selects). */
export async function rowsOf<R>(db: SqlRunner, text: string, values: unknown[] = []): Promise<R[]> {
  return (await db.query(text, values)).rows as R[];
}

/** One column of a table or view, with its COMMENT. */
export interface ColumnInfo {
  readonly name: string;
  /** SQL type as Postgres formats it, e.g. `timestamp with time zone`, `text[]`. */
  readonly type: string;
  /** The type's internal name (`udt_name`): `text`, `int4`, `_text` for text[]... */
  readonly udt: string;
  /** Whether NULL is allowed (always true for view columns). */
  readonly nullable: boolean;
  /** How an insert may omit it: `default` (DEFAULT or serial), `generated` (GENERATED ALWAYS), or null. */
  readonly filled: 'default' | 'generated' | null;
  readonly comment: string | null;
}

/** A primary key or unique index. */
export interface KeyInfo {
  readonly name: string;
  readonly kind: 'primary key' | 'unique';
  /** Key columns in index order; empty when the index has expressions. */
  readonly columns: readonly string[];
  readonly hasExpressions: boolean;
  /** The predicate of a partial unique index, e.g. `(valid_to IS NULL)`, or null. */
  readonly where: string | null;
}

/** A way one table refers to another (`parent`) by shared key columns: a foreign key, or as specs declare. */
export interface ForeignKeyInfo {
  readonly columns: readonly string[];
  readonly parent: string;
  readonly parentColumns: readonly string[];
}

/** A table or view (named without schema), with its COMMENT. */
export interface RelationInfo {
  readonly name: string;
  readonly kind: 'table' | 'view';
  readonly comment: string | null;
  /** Columns in table order. */
  readonly columns: readonly ColumnInfo[];
  /** Primary key first, then unique indexes by name. */
  readonly keys: readonly KeyInfo[];
  readonly foreignKeys: readonly ForeignKeyInfo[];
}

/** The relations of one schema: tables first, each group by name. */
export type SchemaInfo = readonly RelationInfo[];

/** The names of the columns numbered `keys` (an int2 array) of relation `rel`, in key order. */
const attnames = (rel: string, keys: string) =>
  `array(SELECT a.attname::text FROM unnest(${keys}::int2[]) WITH ORDINALITY k(attnum, pos)
     JOIN pg_attribute a ON a.attrelid = ${rel} AND a.attnum = k.attnum ORDER BY k.pos)`;

/** Every table and view of `schema`, in one query: Postgres builds each relation's JSON. */
export async function introspectSchema(db: SqlRunner, schema: string): Promise<RelationInfo[]> {
  return rowsOf<RelationInfo>(
    db,
    `SELECT c.relname AS name, CASE WHEN c.relkind IN ('r', 'p') THEN 'table' ELSE 'view' END AS kind,
       obj_description(c.oid, 'pg_class') AS comment,
       (SELECT coalesce(json_agg(json_build_object(
           'name', a.attname, 'type', format_type(a.atttypid, a.atttypmod), 'udt', t.typname,
           'nullable', NOT a.attnotnull, 'comment', col_description(a.attrelid, a.attnum),
           'filled', CASE WHEN a.attgenerated <> '' THEN 'generated'
                          WHEN a.atthasdef OR a.attidentity <> '' THEN 'default' END
         ) ORDER BY a.attnum), '[]')
          FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
         WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped) AS columns,
       (SELECT coalesce(json_agg(json_build_object(
           'name', ic.relname, 'kind', CASE WHEN i.indisprimary THEN 'primary key' ELSE 'unique' END,
           'columns', CASE WHEN x.expr THEN '{}' ELSE ${attnames('i.indrelid', 'i.indkey')} END,
           'hasExpressions', x.expr, 'where', pg_get_expr(i.indpred, i.indrelid)
         ) ORDER BY NOT i.indisprimary, ic.relname COLLATE "C"), '[]')
          FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid,
               LATERAL (SELECT 0 = ANY (i.indkey::int2[]) AS expr) x
         WHERE i.indrelid = c.oid AND i.indisunique) AS keys,
       (SELECT coalesce(json_agg(json_build_object(
           'columns', ${attnames('con.conrelid', 'con.conkey')}, 'parent', p.relname,
           'parentColumns', ${attnames('con.confrelid', 'con.confkey')}
         ) ORDER BY con.conname COLLATE "C"), '[]')
          FROM pg_constraint con JOIN pg_class p ON p.oid = con.confrelid
         WHERE con.conrelid = c.oid AND con.contype = 'f') AS "foreignKeys"
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm') AND NOT c.relispartition
      ORDER BY c.relkind IN ('r', 'p') DESC, c.relname COLLATE "C"`,
    [schema],
  );
}
