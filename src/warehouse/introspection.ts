/**
 * The warehouse as Postgres describes it: every table and view of a schema with its
 * comment, columns (type, nullability, comment), unique indexes and foreign keys, read
 * from pg_catalog. docs/warehouse.md is generated from it, and so are the analyst views
 * and the erasure functions (src/privacy/privacy-objects.ts): all follow what the migrations created.
 */

/** The part of a pg client or pool the schema readers need. */
export interface SqlQueryable {
  query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
}

/** Runs `text` and returns its rows as `R` (the caller knows the columns it selects). */
export async function rowsOf<R>(db: SqlQueryable, text: string, values: unknown[] = []): Promise<R[]> {
  return (await db.query(text, values)).rows as R[];
}

/** One column of a table or view. */
export interface ColumnInfo {
  /** Column name. */
  readonly name: string;
  /** SQL type as Postgres formats it, e.g. `timestamp with time zone`, `text[]`. */
  readonly type: string;
  /** The type's internal name (`udt_name`): `text`, `int4`, `_text` for text[]... */
  readonly udt: string;
  /** Whether NULL is allowed (always true for view columns). */
  readonly nullable: boolean;
  /** How an insert may leave it out: `default` (a DEFAULT or serial), `generated` (GENERATED ALWAYS, never written), or null. */
  readonly filled: 'default' | 'generated' | null;
  /** Its COMMENT, or null. */
  readonly comment: string | null;
}

/** A primary key or unique index. */
export interface KeyInfo {
  /** Index name. */
  readonly name: string;
  /** `primary key` or `unique`. */
  readonly kind: 'primary key' | 'unique';
  /** Key columns in index order; empty when the index has expressions. */
  readonly columns: readonly string[];
  /** True when some key is an expression (not a plain column). */
  readonly hasExpressions: boolean;
  /** The predicate of a partial unique index, e.g. `(valid_to IS NULL)`, or null. */
  readonly where: string | null;
}

/** A declared foreign key. */
export interface ForeignKeyInfo {
  /** Referencing columns. */
  readonly columns: readonly string[];
  /** Referenced table. */
  readonly parent: string;
  /** Referenced columns. */
  readonly parentColumns: readonly string[];
}

/** A table or view. */
export interface RelationInfo {
  /** Name (without schema). */
  readonly name: string;
  /** Table or view. */
  readonly kind: 'table' | 'view';
  /** Its COMMENT, or null. */
  readonly comment: string | null;
  /** Columns in table order. */
  readonly columns: readonly ColumnInfo[];
  /** Primary key first, then unique indexes by name. */
  readonly keys: readonly KeyInfo[];
  /** Declared foreign keys. */
  readonly foreignKeys: readonly ForeignKeyInfo[];
}

/** The relations of one schema: tables first, each group by name. */
export type SchemaInfo = readonly RelationInfo[];

/** Every table and view of `schema`. Queries run one after the other: `db` may be a single client. */
export async function introspectSchema(db: SqlQueryable, schema: string): Promise<RelationInfo[]> {
  const relations = await rowsOf<{ oid: number; name: string; table: boolean; comment: string | null }>(
    db,
    `SELECT c.oid::int AS oid, c.relname AS name, c.relkind IN ('r', 'p') AS table, obj_description(c.oid, 'pg_class') AS comment
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm') AND NOT c.relispartition
      ORDER BY c.relkind IN ('r', 'p') DESC, c.relname COLLATE "C"`,
    [schema],
  );
  const columns = await rowsOf<{ oid: number; name: string; type: string; udt: string; not_null: boolean; filled: ColumnInfo['filled']; comment: string | null }>(
    db,
    `SELECT a.attrelid::int AS oid, a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type, t.typname AS udt,
            a.attnotnull AS not_null, col_description(a.attrelid, a.attnum) AS comment,
            CASE WHEN a.attgenerated <> '' THEN 'generated' WHEN a.atthasdef OR a.attidentity <> '' THEN 'default' END AS filled
       FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
       JOIN pg_type t ON t.oid = a.atttypid
      WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm') AND a.attnum > 0 AND NOT a.attisdropped
      ORDER BY a.attrelid, a.attnum`,
    [schema],
  );
  const keys = await rowsOf<{ oid: number; name: string; primary: boolean; columns: string[]; has_expressions: boolean; predicate: string | null }>(
    db,
    `SELECT i.indrelid::int AS oid, ic.relname AS name, i.indisprimary AS primary,
            array(SELECT a.attname::text FROM unnest(i.indkey::int2[]) WITH ORDINALITY k(attnum, pos)
                    JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum ORDER BY k.pos) AS columns,
            (0 = ANY (i.indkey::int2[])) AS has_expressions,
            pg_get_expr(i.indpred, i.indrelid) AS predicate
       FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_class ic ON ic.oid = i.indexrelid
       JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND i.indisunique
      ORDER BY i.indrelid, NOT i.indisprimary, ic.relname COLLATE "C"`,
    [schema],
  );
  const foreign = await rowsOf<{ oid: number; columns: string[]; parent: string; parent_columns: string[] }>(
    db,
    `SELECT con.conrelid::int AS oid, p.relname AS parent,
            array(SELECT a.attname::text FROM unnest(con.conkey) WITH ORDINALITY k(attnum, pos)
                    JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.attnum ORDER BY k.pos) AS columns,
            array(SELECT a.attname::text FROM unnest(con.confkey) WITH ORDINALITY k(attnum, pos)
                    JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.attnum ORDER BY k.pos) AS parent_columns
       FROM pg_constraint con JOIN pg_class p ON p.oid = con.confrelid JOIN pg_namespace n ON n.oid = con.connamespace
      WHERE n.nspname = $1 AND con.contype = 'f'
      ORDER BY con.conrelid, con.conname COLLATE "C"`,
    [schema],
  );
  return relations.map((r) => ({
    name: r.name,
    kind: r.table ? 'table' : 'view',
    comment: r.comment,
    columns: columns
      .filter((c) => c.oid === r.oid)
      .map((c) => ({ name: c.name, type: c.type, udt: c.udt, nullable: !c.not_null, filled: c.filled, comment: c.comment })),
    keys: keys
      .filter((k) => k.oid === r.oid)
      .map((k) => ({
        name: k.name,
        kind: k.primary ? 'primary key' : 'unique',
        columns: k.has_expressions ? [] : k.columns,
        hasExpressions: k.has_expressions,
        where: k.predicate,
      })),
    foreignKeys: foreign
      .filter((f) => f.oid === r.oid)
      .map((f) => ({ columns: f.columns, parent: f.parent, parentColumns: f.parent_columns })),
  }));
}
