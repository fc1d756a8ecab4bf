/**
 * src/warehouse/ — the Postgres warehouse and the machinery every load goes through:
 * connection, COPY staging, merge and reconciliation, SCD2 history, retention,
 * introspection, the dictionary.
 *
 * The warehouse connection: a pg pool working in the warehouse schema, returning `date`
 * and local `timestamp` as Postgres prints them (no time-zone guessing) and `bigint` as
 * number. Code uses it through kysely ({@link warehouseDb}, types of database.ts), but for
 * the bulk load (COPY and merge) and the set-based statements of the marts and checks.
 */
import { Kysely, PostgresDialect, type PostgresPool, type PostgresPoolClient } from 'kysely';
import pg from 'pg';
import type { Database } from './database.js';

/** An open warehouse: a pool whose connections have search_path set to the schema (WAREHOUSE_SCHEMA). */
export interface Warehouse {
  pool: pg.Pool;
  schema: string;
  close(): Promise<void>;
}

const OID = { int8: 20, date: 1082, timestamp: 1114 } as const;
const asText = (value: string): string => value;

/** Type parsers of the warehouse pool: see the module comment. */
const warehouseTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => {
    if (oid === OID.date || oid === OID.timestamp) return asText;
    if (oid === OID.int8) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  }) as pg.CustomTypesConfig['getTypeParser'],
};

/** Quotes an SQL identifier (schema, table or column name): pg's `escapeIdentifier`, by the name the SQL builders use. */
export const quoteIdent: (name: string) => string = pg.escapeIdentifier;

/** An SQL string literal: pg's `escapeLiteral` (an `E'…'` literal when the text has a backslash). */
export const quoteLiteral: (text: string) => string = pg.escapeLiteral;

/** What a query runs on: a pg pool (each statement on a connection of its own) or one client (a transaction, a session). */
export interface SqlRunner {
  query(
    text: string,
    values?: unknown[],
  ): Promise<{ rows: Record<string, unknown>[]; rowCount: number | null; command: string }>;
}

/** The typed query builder of the warehouse. */
export type WarehouseDb = Kysely<Database>;

/**
 * The kysely builder of the warehouse in `schema` over `runner` (the one place one is made):
 * statements go through `runner.query`, so on a client they join its transaction.
 */
export function warehouseDb(runner: SqlRunner, schema?: string): WarehouseDb {
  const client = {
    query: (text: string, values: readonly unknown[]) => runner.query(text, [...values]),
    release: () => undefined,
  };
  const pool: PostgresPool = {
    connect: async () => client as PostgresPoolClient,
    end: async () => undefined,
    // kysely 0.29 reads a pool's connection options to open a control client that cancels a
    // query; this pool wraps a runner and has none, so no control client (and no `Client`).
    options: {},
  };
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return schema === undefined ? db : db.withSchema(schema);
}

/** Options of {@link createWarehouse}. */
interface WarehouseOptions {
  /** Most pool connections (default 10). */
  max?: number;
  /** Name shown in pg_stat_activity. */
  applicationName?: string;
  /** Settings every session of the pool starts with (`-c name=value`; values without spaces). */
  settings?: Readonly<Record<string, string>>;
}

/** The part of a pg pool {@link listenForConnectionErrors} needs. */
export interface ErrorEmittingPool {
  on(event: 'error', listener: (err: Error) => void): unknown;
  on(
    event: 'connect',
    listener: (client: { on(event: 'error', listener: (err: Error) => void): unknown }) => void,
  ): unknown;
}

/**
 * Keeps a lost connection from crashing the process: after a server restart pg emits
 * 'error' on each client (the pool re-emits it for idle ones), and an unheard 'error'
 * kills Node. The pool replaces idle clients; a checked-out one fails its queries, so the
 * failure reaches the query's caller (the sync waits for the warehouse: warehouse-gate.ts).
 */
export function listenForConnectionErrors(
  pool: ErrorEmittingPool,
  onError: (err: Error) => void = () => undefined,
): void {
  pool.on('error', onError);
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
  });
}

/** Opens a pool on `databaseUrl` working in `schema`. */
export function createWarehouse(
  databaseUrl: string,
  schema: string,
  options: WarehouseOptions = {},
): Warehouse {
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: options.max ?? 10,
    types: warehouseTypes,
    application_name: options.applicationName ?? 'punchline',
    // Statements may use unqualified names (views, declarations' predicates).
    options: [
      `-c search_path=${quoteIdent(schema)},public`,
      ...Object.entries(options.settings ?? {}).map(([name, value]) => `-c ${name}=${value}`),
    ].join(' '),
  });
  listenForConnectionErrors(pool);
  return {
    pool,
    schema,
    async close() {
      if (!pool.ended && !pool.ending) await pool.end();
    },
  };
}
