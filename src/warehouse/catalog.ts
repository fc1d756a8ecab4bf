/**
 * The live shape of a warehouse schema, read from the Postgres catalog: its tables and
 * views, their columns and the unique indexes of the tables. What the analyst views and
 * the erasure functions are generated from, so that they follow whatever the migrations
 * created.
 */

/** A column of a relation. */
export interface CatalogColumn {
  readonly name: string;
  /** `udt_name` notation: `text`, `int4`, `_text` for text[]... */
  readonly type: string;
  readonly notNull: boolean;
  /** COMMENT ON COLUMN, or null. */
  readonly comment: string | null;
}

/** A unique index (primary key included) of a table. */
export interface CatalogUniqueIndex {
  readonly name: string;
  /** Key columns, in index order; empty when the index has expressions. */
  readonly columns: readonly string[];
  /** True when some key is an expression (not a plain column). */
  readonly hasExpressions: boolean;
  /** The WHERE of a partial index (unqualified column names), or null. */
  readonly predicate: string | null;
}

/** A table or view. */
export interface CatalogRelation {
  readonly name: string;
  readonly kind: 'table' | 'view';
  /** COMMENT ON TABLE/VIEW, or null. */
  readonly comment: string | null;
  /** Columns in table order. */
  readonly columns: readonly CatalogColumn[];
  /** Unique indexes (tables only). */
  readonly uniqueIndexes: readonly CatalogUniqueIndex[];
}

/** The relations of one schema, by name order. */
export type Catalog = readonly CatalogRelation[];

/** The part of a pg client or pool the privacy modules need (a sync job passes its pool). */
export interface SqlQueryable {
  query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
}

/** Runs `text` and returns its rows as `R` (the caller knows the columns it selects). */
export async function rowsOf<R>(db: SqlQueryable, text: string, values: unknown[] = []): Promise<R[]> {
  return (await db.query(text, values)).rows as R[];
}

const RELATIONS = `
SELECT c.oid::int AS oid, c.relname AS name,
       CASE WHEN c.relkind IN ('r', 'p') THEN 'table' ELSE 'view' END AS kind,
       obj_description(c.oid, 'pg_class') AS comment
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm') AND NOT c.relispartition
 ORDER BY c.relname`;

const COLUMNS = `
SELECT a.attrelid::int AS oid, a.attname AS name, t.typname AS type, a.attnotnull AS not_null,
       col_description(a.attrelid, a.attnum) AS comment
  FROM pg_attribute a
  JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
  JOIN pg_type t ON t.oid = a.atttypid
 WHERE n.nspname = $1 AND a.attnum > 0 AND NOT a.attisdropped
 ORDER BY a.attrelid, a.attnum`;

const UNIQUE_INDEXES = `
SELECT i.indrelid::int AS oid, ic.relname AS name,
       array(SELECT a.attname::text FROM unnest(i.indkey::int2[]) WITH ORDINALITY k(attnum, ord)
               JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
              ORDER BY k.ord) AS columns,
       (0 = ANY (i.indkey::int2[])) AS has_expressions,
       pg_get_expr(i.indpred, i.indrelid) AS predicate
  FROM pg_index i
  JOIN pg_class ic ON ic.oid = i.indexrelid
  JOIN pg_class c ON c.oid = i.indrelid JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = $1 AND i.indisunique
 ORDER BY ic.relname`;

/** Reads the tables and views of `schema` with their columns and unique indexes. */
export async function readCatalog(db: SqlQueryable, schema: string): Promise<Catalog> {
  // One after the other: `db` may be a single client, which runs one query at a time.
  const rels = await rowsOf<{ oid: number; name: string; kind: 'table' | 'view'; comment: string | null }>(db, RELATIONS, [
    schema,
  ]);
  const cols = await rowsOf<{ oid: number; name: string; type: string; not_null: boolean; comment: string | null }>(
    db,
    COLUMNS,
    [schema],
  );
  const idx = await rowsOf<{ oid: number; name: string; columns: string[]; has_expressions: boolean; predicate: string | null }>(
    db,
    UNIQUE_INDEXES,
    [schema],
  );
  return rels.map((r) => ({
    name: r.name,
    kind: r.kind,
    comment: r.comment,
    columns: cols
      .filter((c) => c.oid === r.oid)
      .map((c) => ({ name: c.name, type: c.type, notNull: c.not_null, comment: c.comment })),
    uniqueIndexes: idx
      .filter((i) => i.oid === r.oid)
      .map((i) => ({
        name: i.name,
        columns: i.has_expressions ? [] : i.columns,
        hasExpressions: i.has_expressions,
        predicate: i.predicate,
      })),
  }));
}

/** The relation called `name`, if the catalog has it. */
export function relationOf(catalog: Catalog, name: string): CatalogRelation | undefined {
  return catalog.find((r) => r.name === name);
}
