/**
 * Loads rows built in memory (the group walk's companies: a few rows from two small
 * answers) through the same staging and merge as streamed answers, in one transaction.
 */
import type { TableStats } from '../warehouse/merge.js';
import { mergeStaged } from '../warehouse/merge.js';
import { openStaging, type StagedRow } from '../warehouse/staging.js';
import type { TableSpec } from '../warehouse/table-spec.js';
import { withTransaction } from '../warehouse/transaction.js';
import type { EngineContext } from './context.js';

/** Stages and merges each set of rows with its spec (no reconciliation scope); counts per table, summed. */
export async function loadRows(ctx: Pick<EngineContext, 'pool' | 'schema'>, sets: readonly { spec: TableSpec; rows: readonly StagedRow[] }[]): Promise<Record<string, TableStats>> {
  return withTransaction(ctx.pool, async (client) => {
    const staging = openStaging(
      client,
      sets.map((s) => s.spec),
      { stages: sets.map((_s, i) => `stage_rows_${i}`) },
    );
    const staged = staging.tables();
    sets.forEach((set, i) => set.rows.forEach((row) => staged[i]!.add(row)));
    await staging.finish();
    const out: Record<string, TableStats> = {};
    for (const t of staged) {
      const s = await mergeStaged(client, ctx.schema, t, {});
      const sum = (out[t.spec.table] ??= { received: 0, inserted: 0, updated: 0, deleted: 0, unchanged: 0 });
      for (const k of ['received', 'inserted', 'updated', 'deleted', 'unchanged'] as const) sum[k] += s[k];
    }
    return out;
  });
}
