/**
 * The warehouse as Postgres describes it: every table and view of a schema with its
 * comment, columns (type, nullability, comment), keys and foreign keys, read from
 * pg_catalog. This is what docs/warehouse.md is generated from, so the dictionary is
 * always the migrations' own word.
 */

/** The subset of a pg Pool or Client the catalog reader needs. */
export interface CatalogQueryable {
  query<R extends object>(sql: string, params?: unknown[]): Promise<{ rows: R[] }>;
}

/** One column of a table or view. */
export interface CatalogColumn {
  /** Column name. */
  readonly name: string;
  /** SQL type as Postgres formats it, e.g. `timestamp with time zone`, `numeric(10,2)`. */
  readonly type: string;
  /** Whether NULL is allowed (always true for view columns). */
  readonly nullable: boolean;
  /** Its COMMENT, or null. */
  readonly comment: string | null;
}

/** A primary key or unique index. */
export interface CatalogKey {
  /** `primary key` or `unique`. */
  readonly kind: 'primary key' | 'unique';
  /** Columns in index order. */
  readonly columns: readonly string[];
  /** The predicate of a partial unique index, e.g. `(valid_to IS NULL)`, or null. */
  readonly where: string | null;
}

/** A declared foreign key. */
export interface CatalogForeignKey {
  /** Referencing columns. */
  readonly columns: readonly string[];
  /** Referenced table. */
  readonly parent: string;
  /** Referenced columns. */
  readonly parentColumns: readonly string[];
}

/** A table or view. */
export interface CatalogRelation {
  /** Name (without schema). */
  readonly name: string;
  /** Table or view. */
  readonly kind: 'table' | 'view';
  /** Its COMMENT, or null. */
  readonly comment: string | null;
  /** Columns in table order. */
  readonly columns: readonly CatalogColumn[];
  /** Primary key first, then unique indexes by name. */
  readonly keys: readonly CatalogKey[];
  /** Declared foreign keys. */
  readonly foreignKeys: readonly CatalogForeignKey[];
}

/** Every table and view of `schema`, tables first, each group by name. */
export async function readCatalog(db: CatalogQueryable, schema: string): Promise<CatalogRelation[]> {
  const relations = await db.query<{ oid: number; name: string; kind: string; comment: string | null }>(
    `SELECT c.oid::int AS oid, c.relname AS name, c.relkind AS kind, obj_description(c.oid, 'pg_class') AS comment
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relkind IN ('r', 'v')
      ORDER BY c.relkind, c.relname COLLATE "C"`,
    [schema],
  );
  const columns = await db.query<{ oid: number; name: string; type: string; not_null: boolean; comment: string | null }>(
    `SELECT a.attrelid::int AS oid, a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type,
            a.attnotnull AS not_null, col_description(a.attrelid, a.attnum) AS comment
       FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relkind IN ('r', 'v') AND a.attnum > 0 AND NOT a.attisdropped
      ORDER BY a.attrelid, a.attnum`,
    [schema],
  );
  const keys = await db.query<{ oid: number; primary: boolean; columns: string[]; predicate: string | null }>(
    `SELECT i.indrelid::int AS oid, i.indisprimary AS primary,
            array(SELECT a.attname::text FROM unnest(i.indkey) WITH ORDINALITY k(attnum, pos)
                    JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum ORDER BY k.pos) AS columns,
            pg_get_expr(i.indpred, i.indrelid) AS predicate
       FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid JOIN pg_class ic ON ic.oid = i.indexrelid
       JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND i.indisunique
      ORDER BY i.indrelid, NOT i.indisprimary, ic.relname COLLATE "C"`,
    [schema],
  );
  const foreign = await db.query<{ oid: number; columns: string[]; parent: string; parent_columns: string[] }>(
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
  return relations.rows.map((r) => ({
    name: r.name,
    kind: r.kind === 'v' ? 'view' : 'table',
    comment: r.comment,
    columns: columns.rows
      .filter((c) => c.oid === r.oid)
      .map((c) => ({ name: c.name, type: c.type, nullable: !c.not_null, comment: c.comment })),
    keys: keys.rows
      .filter((k) => k.oid === r.oid)
      .map((k) => ({ kind: k.primary ? 'primary key' : 'unique', columns: k.columns, where: k.predicate })),
    foreignKeys: foreign.rows
      .filter((f) => f.oid === r.oid)
      .map((f) => ({ columns: f.columns, parent: f.parent, parentColumns: f.parent_columns })),
  }));
}
