/**
 * The sink floor: the rows the backfill wrote, sent again with `COPY ... FROM STDIN`
 * into unlogged staging tables without keys or indexes, one table after the other on
 * one connection. The rows are first read out of the warehouse with `COPY TO` (not
 * timed), so the floor writes exactly the same rows, byte for byte, as the loaders did.
 * The same bytes are then copied into logged tables with the warehouse's keys and
 * indexes: not a floor, but the cheapest keyed load of the same rows, which the loader
 * figure (Postgres CPU of the backfill) is compared with. Each COPY is timed on the wall
 * clock and in Postgres CPU (every `postgres` process, before and after it); the caller
 * runs nothing else meanwhile, and autovacuum is off on the copies so it never lands in
 * a later stage's figures.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { cpuSecondsByName } from './proc-stats.js';
import { MART_TABLES } from './scratch-space.js';

/** COPY of one table. */
export interface TableCopy {
  /** Rows copied. */
  readonly rows: number;
  /** Bytes of COPY text sent. */
  readonly bytes: number;
  /** Wall time of the COPY FROM into the unlogged table without keys, ms. */
  readonly ms: number;
  /** Postgres CPU of it, s. */
  readonly pgCpuS: number;
  /** Wall time of the same COPY into a logged table with the warehouse's keys and indexes, ms. */
  readonly indexedMs: number;
  /** Postgres CPU of it, s. */
  readonly indexedPgCpuS: number;
}

/** The sink floor of a warehouse schema. */
export interface SinkFloorResult {
  /** Sum of the COPY times, ms. */
  readonly ms: number;
  /** Postgres CPU of those COPYs, s. */
  readonly pgCpuS: number;
  /** Sum of the COPY times into logged tables with keys and indexes, ms (not the floor: what a COPY-based loader could reach). */
  readonly indexedMs: number;
  /** Postgres CPU of those COPYs, s. */
  readonly indexedPgCpuS: number;
  /** Rows in all. */
  readonly rows: number;
  /** Bytes in all. */
  readonly bytes: number;
  /** Per table. */
  readonly byTable: Record<string, TableCopy>;
}

/** Tables written by the sync's bookkeeping, the checks, privacy and the marts, not by the loaders. */
const BOOKKEEPING = [
  'schema_migrations',
  'sync_runs',
  'sync_windows',
  'window_loads',
  'rejected_records',
  'schema_drift',
  'quality_checks',
  'cpf_pseudonyms',
  'erasures',
  'push_receipts',
  ...MART_TABLES,
];

const ident = (s: string) => `"${s.replace(/"/g, '""')}"`;

/** Wall time (ms) and Postgres CPU (s, every `postgres` process) of `work`. */
async function timed(work: () => Promise<unknown>): Promise<{ ms: number; pgCpuS: number }> {
  const cpu0 = cpuSecondsByName('postgres');
  const t0 = performance.now();
  await work();
  const ms = performance.now() - t0;
  return { ms, pgCpuS: cpuSecondsByName('postgres') - cpu0 };
}

/** Reads a COPY TO into a few large buffers (COPY TO yields one small chunk per row). */
async function readOut(client: pg.PoolClient, sql: string): Promise<Buffer[]> {
  const stream = client.query(copyTo(sql));
  const out: Buffer[] = [];
  let pending: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    pending.push(chunk as Buffer);
    size += (chunk as Buffer).length;
    if (size >= 4 << 20) {
      out.push(Buffer.concat(pending));
      pending = [];
      size = 0;
    }
  }
  if (pending.length > 0) out.push(Buffer.concat(pending));
  return out;
}

/**
 * Copies every non-empty loader table of `schema` into unlogged tables of `stageSchema`
 * (created here) and times each COPY FROM.
 */
export async function copyFloor(
  pool: pg.Pool,
  schema: string,
  stageSchema: string,
  leaveOut: readonly string[] = [],
): Promise<SinkFloorResult> {
  const client = await pool.connect();
  try {
    const { rows: tables } = await client.query<{ table_name: string }>(
      `select table_name from information_schema.tables
        where table_schema = $1 and table_type = 'BASE TABLE' and table_name <> all($2)
        order by table_name`,
      [schema, [...BOOKKEEPING, ...leaveOut]],
    );
    await client.query(`create schema if not exists ${ident(stageSchema)}`);
    const byTable: Record<string, TableCopy> = {};
    for (const { table_name: t } of tables) {
      const data = await readOut(client, `COPY ${ident(schema)}.${ident(t)} TO STDOUT`);
      const bytes = data.reduce((a, b) => a + b.length, 0);
      if (bytes === 0) continue;
      const noVacuum = 'with (autovacuum_enabled = false)';
      await client.query(
        `create unlogged table ${ident(stageSchema)}.${ident(t)} (like ${ident(schema)}.${ident(t)}) ${noVacuum}`,
      );
      const sink = client.query(copyFrom(`COPY ${ident(stageSchema)}.${ident(t)} FROM STDIN`));
      const floor = await timed(() => pipeline(Readable.from(data), sink));
      // The same rows into what the loaders write to: logged, with the primary key, unique keys and indexes.
      const indexed = ident(`${t}_indexed`);
      await client.query(
        `create table ${ident(stageSchema)}.${indexed} (like ${ident(schema)}.${ident(t)} including all) ${noVacuum}`,
      );
      const keyed = await timed(() =>
        pipeline(
          Readable.from(data),
          client.query(copyFrom(`COPY ${ident(stageSchema)}.${indexed} FROM STDIN`)),
        ),
      );
      byTable[t] = {
        rows: sink.rowCount,
        bytes,
        ms: floor.ms,
        pgCpuS: floor.pgCpuS,
        indexedMs: keyed.ms,
        indexedPgCpuS: keyed.pgCpuS,
      };
    }
    const all = Object.values(byTable);
    return {
      ms: all.reduce((a, c) => a + c.ms, 0),
      pgCpuS: all.reduce((a, c) => a + c.pgCpuS, 0),
      indexedMs: all.reduce((a, c) => a + c.indexedMs, 0),
      indexedPgCpuS: all.reduce((a, c) => a + c.indexedPgCpuS, 0),
      rows: all.reduce((a, c) => a + c.rows, 0),
      bytes: all.reduce((a, c) => a + c.bytes, 0),
      byTable,
    };
  } finally {
    client.release();
  }
}
