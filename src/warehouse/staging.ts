/**
 * Staging of one load: a temporary table per warehouse table (created when first needed,
 * dropped at commit), filled by `COPY ... FROM STDIN` in bounded batches while the answer
 * is read, so memory holds two batches whatever the answer's size; merge-statement.ts
 * then moves the staged rows into the warehouse.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { cell, type CellValue, type Cleaning } from './copy-text.js';
import { quoteIdent } from './db.js';
import { columnNames, type SqlType, type TableSpec } from './table-spec.js';

/** Bytes of COPY text built before a batch is sent. */
export const DEFAULT_BATCH_BYTES = 512 * 1024;

const CHUNK_BYTES = 64 * 1024;

/** Where a staged table stood, to drop the rows added since (see {@link StagedTable.rollback}). */
export type StagingMark = ReturnType<StagedTable['mark']>;

/** A staged row: a value for every column of the table's spec. */
export type StagedRow = Readonly<Record<string, CellValue>>;

/** The part of a pg client staging needs: queries and COPY streams. */
export type StagingClient = Pick<pg.PoolClient, 'query'>;

/** One staged table: rows encoded as they come, sent in batches to the stage (or the table: copyInto). */
export class StagedTable {
  #direct: string | undefined;
  rows = 0;
  readonly #names: string[];
  readonly #types: SqlType[];
  /** Filled chunks of the batch being built, then the chunk being filled. */
  #chunks: Buffer[] = [];
  #chunk: Buffer = Buffer.allocUnsafe(0);
  #used = 0;
  #bytes = 0;
  /** Values stored without a NUL character (copy-text.ts), in all and per column. */
  readonly #cleaning: Cleaning = { removed: 0 };
  readonly #cleanedColumns = new Map<string, number>();

  /** `stage` names the temporary table (unqualified: temporary tables live in pg_temp). */
  constructor(
    readonly spec: TableSpec,
    readonly stage: string,
  ) {
    this.#names = columnNames(spec);
    this.#types = this.#names.map((n) => spec.columns[n]!);
  }

  /** The qualified warehouse table rows are copied into instead of the stage, if any. */
  get direct(): string | undefined {
    return this.#direct;
  }

  /** Copies rows straight into `table` (qualified), for a scope with no row yet; call before any is sent. */
  copyInto(table: string): void {
    if (this.rows > 0) throw new Error(`staging: ${this.spec.table} already has rows staged`);
    this.#direct = table;
  }

  get pendingBytes(): number {
    return this.#bytes;
  }

  /** Columns whose values were stored without a NUL character, with how many values each. */
  cleaned(): { column: string; values: number }[] {
    return [...this.#cleanedColumns].map(([column, values]) => ({ column, values }));
  }

  /** Encodes one row (a CellError names the column whose value does not fit). */
  add(row: StagedRow): void {
    let line = '';
    const cleaning = this.#cleaning;
    for (let i = 0; i < this.#names.length; i++) {
      const name = this.#names[i]!;
      let text: string;
      const removed = cleaning.removed;
      try {
        text = cell(this.#types[i]!, row[name], cleaning);
      } catch (err) {
        (err as Error).message = `${this.spec.table}.${name}: ${(err as Error).message}`;
        throw err;
      }
      if (cleaning.removed !== removed)
        this.#cleanedColumns.set(name, (this.#cleanedColumns.get(name) ?? 0) + 1);
      line += i === 0 ? text : `\t${text}`;
    }
    line += '\n';
    // Written straight into the batch's memory: no list of strings to join and copy again.
    // A UTF-16 unit never takes more than three bytes of UTF-8.
    if (this.#chunk.length - this.#used < line.length * 3) {
      if (this.#used > 0) this.#chunks.push(this.#chunk.subarray(0, this.#used));
      this.#chunk = Buffer.allocUnsafe(Math.max(CHUNK_BYTES, line.length * 3));
      this.#used = 0;
    }
    const written = this.#chunk.write(line, this.#used, 'utf8');
    this.#used += written;
    this.#bytes += written;
    this.rows++;
  }

  /** A point to return to with {@link StagedTable.rollback} (rows staged so far). */
  mark() {
    return {
      rows: this.rows,
      chunks: this.#chunks.length,
      chunk: this.#chunk,
      used: this.#used,
      bytes: this.#bytes,
    };
  }

  /** Drops the rows added since `mark` (nothing is sent between a mark and its rollback). */
  rollback(mark: StagingMark): void {
    this.#chunks.length = mark.chunks;
    this.#chunk = mark.chunk;
    this.#used = mark.used;
    this.#bytes = mark.bytes;
    this.rows = mark.rows;
  }

  /** Takes the built batch, as the chunks of bytes to send (none when nothing is pending). */
  take(): Buffer[] {
    const batch = this.#chunks;
    if (this.#used > 0) batch.push(this.#chunk.subarray(0, this.#used));
    this.#chunks = [];
    // The rest of the chunk now belongs to the batch on the wire; start a fresh one.
    this.#chunk = Buffer.allocUnsafe(0);
    this.#used = 0;
    this.#bytes = 0;
    return batch;
  }

  /** `CREATE TEMP TABLE` of the stage, with the spec's columns and types. */
  createStatement(): string {
    const cols = this.#names.map((n, i) => `${quoteIdent(n)} ${this.#types[i]}`).join(', ');
    return `CREATE TEMP TABLE ${quoteIdent(this.stage)} (${cols}) ON COMMIT DROP`;
  }

  /** `COPY` into the stage, or into the warehouse table of a direct load. */
  copyStatement(): string {
    return `COPY ${this.#direct ?? quoteIdent(this.stage)} (${this.#names.map(quoteIdent).join(', ')}) FROM STDIN`;
  }
}

/** Options of {@link openStaging}. */
export interface StagingOptions {
  /** Bytes of COPY text built per table before a batch is sent. */
  readonly batchBytes?: number;
  /** Told when a batch starts and ends being sent (timing for the benchmark). */
  readonly onBatch?: (table: string, bytes: number, done: Promise<void>) => void;
  /** Stages merged only when rows were sent to them: {@link Staging.finish} does not create them empty. */
  readonly mergedOnlyWithRows?: readonly string[];
}

/** The staged tables of one load, on one client, inside its transaction. */
export class Staging {
  readonly #client: StagingClient;
  readonly #tables = new Map<string, StagedTable>();
  readonly #batchBytes: number;
  readonly #onBatch: StagingOptions['onBatch'];
  #inFlight: Promise<void> = Promise.resolve();
  #failure: { err: unknown } | undefined;
  readonly #created = new Set<StagedTable>();
  readonly #mergedOnlyWithRows: ReadonlySet<string>;

  constructor(client: StagingClient, tables: readonly StagedTable[], options: StagingOptions = {}) {
    this.#client = client;
    for (const t of tables) this.#tables.set(t.stage, t);
    this.#batchBytes = options.batchBytes ?? DEFAULT_BATCH_BYTES;
    this.#onBatch = options.onBatch;
    this.#mergedOnlyWithRows = new Set(options.mergedOnlyWithRows);
  }

  /** The (first) staged table of a warehouse table. */
  table(name: string): StagedTable {
    for (const t of this.#tables.values()) if (t.spec.table === name) return t;
    throw new Error(`staging: no staged table for ${name}`);
  }

  tables(): StagedTable[] {
    return [...this.#tables.values()];
  }

  /** True when a batch is full and {@link Staging.flushFull} would send it. */
  get full(): boolean {
    for (const t of this.#tables.values()) if (t.pendingBytes >= this.#batchBytes) return true;
    return false;
  }

  /** Sends the full batches, one on the wire at a time: a slow database slows the reading of the answer. */
  async flushFull(): Promise<void> {
    for (const t of this.#tables.values()) if (t.pendingBytes >= this.#batchBytes) await this.#send(t);
  }

  /** Sends every pending batch and waits; every stage then exists, but empty ones of `mergedOnlyWithRows`. */
  async finish(): Promise<void> {
    for (const t of this.#tables.values()) await this.#send(t);
    await this.#inFlight;
    if (this.#failure) throw this.#failure.err;
    for (const t of this.#tables.values())
      if (t.rows > 0 || !this.#mergedOnlyWithRows.has(t.stage)) await this.#create(t);
  }

  /**
   * Creates the stage of `t` before its first rows are sent. A table copied straight in
   * needs none: a temporary table writes the catalog, a cost worth sparing in a backfill.
   */
  async #create(t: StagedTable): Promise<void> {
    if (t.direct !== undefined || this.#created.has(t)) return;
    this.#created.add(t);
    await this.#client.query(t.createStatement());
  }

  async #send(t: StagedTable): Promise<void> {
    // One batch on the wire at a time bounds memory; concurrent readers of one load may
    // each queue one more, which pg runs in order on the load's connection.
    await this.#inFlight;
    if (this.#failure) throw this.#failure.err;
    if (t.pendingBytes === 0) return;
    await this.#create(t);
    const bytes = t.pendingBytes;
    const done = pipeline(Readable.from(t.take()), this.#client.query(copyFrom(t.copyStatement())));
    this.#onBatch?.(t.spec.table, bytes, done);
    // The first failure is kept and rethrown by the next send or by finish().
    this.#inFlight = done.catch((err: unknown) => {
      this.#failure ??= { err };
    });
  }
}

/** The name of a table's stage in a load (a temporary table, so unqualified). */
export function stageName(table: string): string {
  return `stage_${table}`;
}

/** The staging of `specs`, each staged as {@link stageName} of its table or as `stages` names it. */
export function openStaging(
  client: StagingClient,
  specs: readonly TableSpec[],
  options: StagingOptions & { stages?: readonly string[] } = {},
): Staging {
  const tables = specs.map((spec, i) => new StagedTable(spec, options.stages?.[i] ?? stageName(spec.table)));
  return new Staging(client, tables, options);
}
