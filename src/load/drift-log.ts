/**
 * Schema drift seen by a runtime's clients (src/api/drift.ts), waiting to be written: each
 * load writes what is pending in its transaction, so `status` shows it, and counts it in the
 * metrics. Drift of a load that fails stays pending for the next one.
 */
import { DriftWatch, type DriftEvent } from '../api/drift.js';
import { recordSchemaDrift } from '../telemetry/metrics.js';
import type { MergeClient } from '../warehouse/merge.js';
import { recordDrift } from './load-records.js';

const valueOf = (e: DriftEvent) => (e.kind === 'new_value' ? e.value : '');

/** The drift of one runtime: heard by `watch` (given to its API clients), written by {@link DriftLog.flush}. */
export class DriftLog {
  #pending: DriftEvent[] = [];
  /** The watch the runtime's API clients report to. */
  readonly watch = new DriftWatch((e) => {
    this.#pending.push(e);
    recordSchemaDrift({ kind: e.kind, field: e.field, value: valueOf(e) });
  });

  /** Drift heard and not yet written. */
  get pending(): readonly DriftEvent[] {
    return this.#pending;
  }

  /** Writes the drift heard since the last flush, in the caller's transaction. */
  async flush(client: MergeClient, schema: string): Promise<void> {
    if (this.#pending.length === 0) return;
    const events = this.#pending;
    this.#pending = [];
    try {
      const rows = events.map((e) => {
        const endpoint = e.kind === 'unknown_field' ? e.endpoint : '';
        return { kind: e.kind, endpoint, field: e.field, value: valueOf(e) };
      });
      await recordDrift(client, schema, rows);
    } catch (err) {
      this.#pending = [...events, ...this.#pending];
      throw err;
    }
  }
}
