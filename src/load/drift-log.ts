/**
 * Schema drift seen by a runtime's clients (src/api/drift.ts), waiting to be written, and
 * counted in the metrics. Drift is written after a load, outside its transaction, one event per
 * statement: a piece of drift the warehouse will not take can never fail a load (nor every
 * later load of the runtime, as a shared pending list put back after a failed transaction
 * did). An event that cannot be written is dropped with a warning, never retried. The list
 * is bounded too ({@link MAX_PENDING_DRIFT}); drift.ts already bounds what one field sends.
 */
import { DriftWatch, type DriftEvent } from '../api/drift.js';
import type { Logger } from '../logger.js';
import { recordSchemaDrift } from '../telemetry/metrics.js';
import type { MergeClient } from '../warehouse/merge.js';
import { recordDrift, type DriftRow } from './load-records.js';

/** Most drift events waiting to be written; past it new ones are dropped (counted, with a warning). */
export const MAX_PENDING_DRIFT = 1000;

/** The `schema_drift` row of an event. */
function rowOf(e: DriftEvent): DriftRow {
  if (e.kind === 'new_value') return { kind: e.kind, field: e.field, value: e.value };
  return { kind: e.kind, endpoint: e.endpoint, field: e.field };
}

/** The drift of one runtime: heard by `watch` (given to its API clients), written by {@link DriftLog.flush}. */
export class DriftLog {
  #pending: DriftEvent[] = [];
  #dropped = 0;
  /** The watch the runtime's API clients report to. */
  readonly watch = new DriftWatch((e) => {
    recordSchemaDrift({ kind: e.kind, field: e.field });
    if (this.#pending.length < MAX_PENDING_DRIFT) this.#pending.push(e);
    else this.#dropped++;
  });

  /** Drift events waiting to be written (what `/status` will show next). */
  get pending(): readonly DriftEvent[] {
    return this.#pending;
  }

  /**
   * Writes the drift seen since the last flush, each event in its own statement outside any
   * load's transaction; never throws. A row the warehouse refuses, or a warehouse that does not
   * answer, drops the event with a warning naming its kind and field (never the value: it came
   * from the API and may name a person).
   */
  async flush(runner: MergeClient, schema: string, logger: Logger): Promise<void> {
    const events = this.#pending;
    this.#pending = [];
    if (this.#dropped > 0) {
      logger.warn(
        { dropped: this.#dropped },
        `schema drift dropped: more than ${MAX_PENDING_DRIFT} events waited to be written`,
      );
      this.#dropped = 0;
    }
    for (const [i, e] of events.entries()) {
      try {
        await recordDrift(runner, schema, [rowOf(e)]);
      } catch (err) {
        const code = (err as { code?: unknown }).code;
        if (typeof code === 'string' && code.length === 5) {
          logger.warn(
            { kind: e.kind, field: e.field, code },
            'schema drift not recorded (dropped, not retried)',
          );
          continue;
        }
        // No SQLSTATE: the warehouse did not answer; the rest would fail the same way.
        logger.warn(
          { dropped: events.length - i },
          'schema drift not recorded: the warehouse did not answer (dropped)',
        );
        return;
      }
    }
  }
}
