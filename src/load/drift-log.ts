/**
 * Schema drift seen by this process (src/api/drift.ts), waiting to be written: each load
 * writes what is pending in its transaction, so `status` shows it, and counts it in the
 * metrics. Drift of a load that fails stays pending for the next one.
 */
import { onDrift, type DriftEvent } from '../api/drift.js';
import { recordSchemaDrift } from '../telemetry/metrics.js';
import type { MergeClient } from '../warehouse/merge.js';
import { recordDrift } from './load-records.js';

let pending: DriftEvent[] = [];

const valueOf = (e: DriftEvent) => (e.kind === 'new_value' ? e.value : '');

onDrift((e) => {
  pending.push(e);
  recordSchemaDrift({ kind: e.kind, field: e.field, value: valueOf(e) });
});

/** Writes the drift seen since the last flush, in the caller's transaction. */
export async function flushDrift(client: MergeClient, schema: string): Promise<void> {
  if (pending.length === 0) return;
  const events = pending;
  pending = [];
  try {
    const rows = events.map((e) => {
      const endpoint = e.kind === 'unknown_field' ? e.endpoint : '';
      return { kind: e.kind, endpoint, field: e.field, value: valueOf(e) };
    });
    await recordDrift(client, schema, rows);
  } catch (err) {
    pending = [...events, ...pending];
    throw err;
  }
}
