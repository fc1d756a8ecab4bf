/**
 * Every outcome an input row of `punchline push` may have, exactly one
 * (docs/push.md "Outcomes and exit codes"):
 * - `created`: written; `id` is the new id when the endpoint returns one;
 * - `would_create`: a plan (no `--apply`) would write it;
 * - `skipped`: it already exists (in the API, or earlier in the same file);
 * - `invalid`: refused before sending, with the reason (nothing was sent for it);
 * - `refused`: the API answered an error (spec §7 code and message);
 * - `failed`: no conclusive answer (connection lost, timeout, server error, interrupted): it may or
 *   may not have taken effect; a rerun settles it.
 */
export const OUTCOMES = ['created', 'would_create', 'skipped', 'invalid', 'refused', 'failed'] as const;
/** One outcome. */
export type Outcome = (typeof OUTCOMES)[number];

/** The outcome of one input row. */
export interface RowResult {
  /** Line of the input file (the last line of a multi-line CSV record). */
  readonly line: number;
  readonly outcome: Outcome;
  /** The entity's identity (CPF, CPF and date-time, description...), when the row could be read. */
  readonly key?: string;
  /** New id (created), or the existing one when the check saw it (skipped). */
  readonly id?: string;
  /** spec §7 error code (refused), or punchline's code (invalid, failed). */
  readonly code?: string;
  readonly message?: string;
}

/** Rows per outcome. */
export type OutcomeCounts = Record<Outcome, number>;

/** Counts `rows` per outcome. */
export function countOutcomes(rows: readonly RowResult[]): OutcomeCounts {
  const counts = Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as OutcomeCounts;
  for (const r of rows) counts[r.outcome] += 1;
  return counts;
}

/** True when every row was created or skipped (a plan: would be created or skipped): the push exits 0, else 1. */
export function allRowsDone(rows: readonly RowResult[]): boolean {
  const done = new Set<Outcome>(['created', 'would_create', 'skipped']);
  return rows.every((r) => done.has(r.outcome));
}
