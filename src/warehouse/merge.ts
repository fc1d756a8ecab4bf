/**
 * Moves a staged table into its warehouse table inside the load's transaction:
 * reconciliation (with the mass-removal guard), then the upsert, with honest counts.
 */
import type pg from 'pg';
import { PunchlineError } from '../util/errors.js';
import {
  buildDistinctCount,
  buildLiveCount,
  buildReconcile,
  buildScopeHasRows,
  buildUpsert,
  type BuiltQuery,
} from './merge-statement.js';
import type { StagedTable } from './staging.js';
import type { LoadScope, TableSpec } from './table-spec.js';

/** Rows one load wrote to one table. */
export interface TableStats {
  /** Distinct rows (by natural key) the answer held for the table. */
  received: number;
  inserted: number;
  /** Rows whose values changed, or that came back after deleted_at / inactive. */
  updated: number;
  /** Rows soft-deleted, deactivated or deleted because the answer no longer holds them. */
  deleted: number;
  /** Rows received that were already as loaded (not rewritten). */
  unchanged: number;
}

/** A removal reconciliation would apply: of `table`, `removing` of `live` rows, whose natural keys hash to `digest`. */
export interface PendingRemoval {
  readonly table: string;
  readonly live: number;
  readonly removing: number;
  /** MD5 of the removed rows' natural keys, sorted: two answers that remove the same rows give the same digest. */
  readonly digest: string;
}

/** Decides whether a removal may be applied without a second look. */
export type RemovalGuard = (removal: PendingRemoval) => boolean;

/**
 * A load would remove too large a share of a window's live rows to believe one answer (a
 * glitching source's empty answer looks like everything deleted); the table is unchanged.
 */
export class MassRemovalError extends PunchlineError<'mass_removal'> {
  override readonly name = 'MassRemovalError';
  constructor(readonly removal: PendingRemoval) {
    super(
      'mass_removal',
      `${removal.table}: the answer would remove ${removal.removing} of the window's ${removal.live} live rows`,
    );
  }
}

/** The part of a pg client a merge needs. */
export type MergeClient = Pick<pg.PoolClient, 'query'>;

async function one<T extends pg.QueryResultRow>(client: MergeClient, query: BuiltQuery): Promise<T> {
  const { rows } = await client.query<T>(query.text, query.values);
  return rows[0]!;
}

/** Whether the load's scope of `spec` holds any row yet (soft-deleted and inactive ones too). */
export async function scopeHasRows(
  client: MergeClient,
  schema: string,
  spec: TableSpec,
  scope: LoadScope,
): Promise<boolean> {
  return (await one<{ any: boolean }>(client, buildScopeHasRows(schema, spec, scope))).any;
}

/**
 * Merges one staged table: reconciles the scope (with a missing rule), asking `guard`
 * before a removal (a refusal throws {@link MassRemovalError}), then upserts the rows.
 */
export async function mergeStaged(
  client: MergeClient,
  schema: string,
  staged: StagedTable,
  scope: LoadScope,
  guard?: RemovalGuard,
): Promise<TableStats> {
  const { spec, stage } = staged;
  // Copied straight into a scope that held no row: every row is new, nothing to remove.
  if (staged.direct)
    return { received: staged.rows, inserted: staged.rows, updated: 0, deleted: 0, unchanged: 0 };
  let deleted = 0;
  if (spec.missing) {
    const { live } = await one<{ live: number }>(client, buildLiveCount(schema, spec, scope));
    if (live > 0) {
      await client.query('SAVEPOINT reconcile');
      const { removed, digest } = await one<{ removed: number; digest: string }>(
        client,
        buildReconcile(schema, spec, stage, scope),
      );
      deleted = removed;
      const removal: PendingRemoval = { table: spec.table, live, removing: removed, digest };
      if (guard && removed > 0 && !guard(removal)) {
        await client.query('ROLLBACK TO SAVEPOINT reconcile');
        throw new MassRemovalError(removal);
      }
      await client.query('RELEASE SAVEPOINT reconcile');
    }
  }
  let counts: { inserted: number; updated: number };
  let deduped = false;
  if (spec.onConflict === 'nothing') {
    counts = await one(client, buildUpsert(schema, spec, stage));
  } else {
    await client.query('SAVEPOINT upsert');
    try {
      counts = await one(client, buildUpsert(schema, spec, stage));
      await client.query('RELEASE SAVEPOINT upsert');
    } catch (err) {
      // 21000: the answer holds one key twice; keep the last, as the API listed it.
      if ((err as { code?: string }).code !== '21000') throw err;
      await client.query('ROLLBACK TO SAVEPOINT upsert');
      counts = await one(client, buildUpsert(schema, spec, stage, { dedupe: true }));
      deduped = true;
    }
  }
  const received = deduped
    ? await one<{ n: number }>(client, buildDistinctCount(spec, stage)).then((r) => r.n)
    : staged.rows;
  return {
    received,
    inserted: counts.inserted,
    updated: counts.updated,
    deleted,
    unchanged: received - counts.inserted - counts.updated,
  };
}
