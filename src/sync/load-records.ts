/**
 * What a load writes about itself, in its own transaction: the records it rejected
 * (`rejected_records`, resolving those a later answer no longer rejects), what the
 * window's answer held per table (`window_loads`, for the completeness check), and the
 * schema drift seen (`schema_drift`).
 */
import type { DriftEvent } from '../api/drift.js';
import { quoteIdent } from '../warehouse/db.js';
import type { MergeClient, TableStats } from '../warehouse/merge.js';

/** A record an answer held that could not be stored. */
export interface Rejection {
  /** Endpoint that answered it. */
  readonly endpoint: string;
  /** Position of its element in `data`. */
  readonly index: number;
  /** Where it sat, e.g. `data[12].days[3].points[1]`. */
  readonly path: string;
  /** The field and the problem. */
  readonly reason: string;
  /** The record as sent. */
  readonly record: unknown;
}

/** Which load the records belong to. */
export interface LoadKey {
  readonly connection: string;
  readonly resource: string;
  readonly company: string;
  /** Absent for lists without a window. */
  readonly from?: string;
  readonly to?: string;
  /** The sync_runs row of the run, when there is one. */
  readonly runId?: number;
}

/**
 * Records this load's rejections and resolves the window's earlier ones that it did not
 * reject again (the API fixed the record, or no longer sends it).
 */
export async function recordRejections(client: MergeClient, schema: string, key: LoadKey, rejections: readonly Rejection[]): Promise<void> {
  const table = `${quoteIdent(schema)}.rejected_records`;
  const same = `connection = $1 AND resource = $2 AND company_cnpj = $3 AND window_start IS NOT DISTINCT FROM $4::date AND window_end IS NOT DISTINCT FROM $5::date AND resolved_at IS NULL`;
  const base = [key.connection, key.resource, key.company, key.from ?? null, key.to ?? null];
  await client.query(`UPDATE ${table} SET resolved_at = now() WHERE ${same} AND NOT (json_path = ANY($6::text[]))`, [
    ...base,
    rejections.map((r) => r.path),
  ]);
  for (const r of rejections) {
    await client.query(
      `WITH again AS (
         UPDATE ${table} SET last_rejected_at = now(), reason = $9, record = $10, element_index = $7, run_id = $11
          WHERE ${same} AND json_path = $8 RETURNING 1)
       INSERT INTO ${table} (connection, resource, company_cnpj, window_start, window_end, endpoint, element_index, json_path, reason, record, run_id)
       SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11 WHERE NOT EXISTS (SELECT 1 FROM again)`,
      [...base, r.endpoint, r.index, r.path, r.reason, JSON.stringify(r.record ?? null), key.runId ?? null],
    );
  }
}

/** Records what a complete load of a window held per table (replacing the previous load's figures). */
export async function recordWindowLoad(
  client: MergeClient,
  schema: string,
  key: LoadKey & { from: string; to: string },
  tables: Readonly<Record<string, TableStats>>,
  rejected: number,
): Promise<void> {
  const names = Object.keys(tables);
  await client.query(
    `INSERT INTO ${quoteIdent(schema)}.window_loads (connection, company_cnpj, resource, window_start, window_end, table_name, received, rejected, run_id, loaded_at)
     SELECT $1, $2, $3, $4, $5, t.name, t.received, $8, $9, now() FROM unnest($6::text[], $7::int[]) AS t(name, received)
     ON CONFLICT (connection, company_cnpj, resource, window_start, window_end, table_name)
     DO UPDATE SET received = excluded.received, rejected = excluded.rejected, run_id = excluded.run_id, loaded_at = excluded.loaded_at`,
    [key.connection, key.company, key.resource, key.from, key.to, names, names.map((n) => tables[n]!.received), rejected, key.runId ?? null],
  );
}

/** Records schema drift events (a repeat refreshes `last_seen_at`). */
export async function recordDrift(client: MergeClient, schema: string, events: readonly DriftEvent[]): Promise<void> {
  for (const e of events) {
    await client.query(
      `INSERT INTO ${quoteIdent(schema)}.schema_drift (kind, endpoint, field, value) VALUES ($1, $2, $3, $4)
       ON CONFLICT (kind, endpoint, field, value) DO UPDATE SET last_seen_at = now()`,
      [e.kind, e.kind === 'unknown_field' ? e.endpoint : '', e.field, e.kind === 'new_value' ? e.value : ''],
    );
  }
}
