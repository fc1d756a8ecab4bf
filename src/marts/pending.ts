/**
 * What a load owes the marts, written in its transaction and taken in afterwards
 * (docs/warehouse.md "Marts"): a load records one row of `pending_changes` (cheap: no
 * mart is touched), and the company's follow-up claims every pending row at once and
 * coalesces them into one {@link ChangeSet}, so a month loaded by five resources in ten
 * windows is rewritten once.
 */
import { quoteIdent } from '../warehouse/db.js';
import type { MergeClient, TableStats } from '../warehouse/merge.js';

/** What a resource's loads feed into the marts (all optional; most resources feed nothing). */
export interface MartUpkeep {
  /** The load is the list of active collaborators: listing, and attributes through the history. */
  readonly directory?: boolean;
  /**
   * Its windows load the coverage table: the days of the day grain (rewritten whole when
   * they change) and each record's first and last day of period data.
   */
  readonly coverage?: boolean;
  /** The measure of the day grain its windows hold, rewritten alone when they change. */
  readonly measure?: 'lateness' | 'overtime';
  /** It loads absences: they are expanded to their days, and the days' leave rewritten. */
  readonly absences?: boolean;
}

/** Which inputs of the marts a load changed (`pending_changes.changes`). */
export type Change =
  'directory' | 'seen' | 'coverage' | 'days' | 'lateness' | 'overtime' | 'leave' | 'rebuild';

/** One load, as the marts see it. */
export interface LoadChange {
  readonly connection: string;
  readonly company: string;
  readonly resource: string;
  readonly window?: { readonly from: string; readonly to: string };
  /** What the load wrote, per table; `seen` is what the records only seen in period data changed. */
  readonly tables: Readonly<Record<string, TableStats>>;
  readonly seen?: TableStats;
  /** A forced sync: rewrite what the window decides even if it changed nothing (a mart changed by hand is put right). */
  readonly rebuild?: boolean;
  readonly runId?: number;
}

const changed = (s: TableStats | undefined) => s !== undefined && s.inserted + s.updated + s.deleted > 0;

/** The inputs of the marts `load` changed, by what its resource feeds (pure). */
export function changesOf(load: LoadChange, upkeep: MartUpkeep = {}): Change[] {
  const inputs = load.rebuild === true || Object.values(load.tables).some(changed);
  const out: Change[] = [];
  if (upkeep.directory) out.push('directory');
  if (changed(load.seen)) out.push('seen');
  if (load.window) {
    // Unchanged days may still have ended since they were written (is_day_over): the follow-up looks.
    if (upkeep.coverage) out.push(inputs ? 'coverage' : 'days');
    if (upkeep.measure && inputs) out.push(upkeep.measure);
    if (upkeep.absences && inputs) out.push('leave');
    if (load.rebuild) out.push('rebuild');
  }
  return out;
}

/**
 * Records what `load` changed, in its transaction: one row, even when it changed no input
 * of the marts (the checks after the load run in the follow-up too).
 */
export async function recordPendingChange(
  client: MergeClient,
  schema: string,
  load: LoadChange,
  upkeep: MartUpkeep | undefined,
): Promise<void> {
  await client.query(
    `INSERT INTO ${quoteIdent(schema)}.pending_changes (connection, company_cnpj, resource, first_day, last_day, changes, run_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [
      load.connection,
      load.company,
      load.resource,
      load.window?.from ?? null,
      load.window?.to ?? null,
      changesOf(load, upkeep),
      load.runId ?? null,
    ],
  );
}

/** A span of days (`YYYY-MM-DD`, inclusive). */
export interface DaySpan {
  readonly from: string;
  readonly to: string;
}

/** The first and last day of a growing set of spans. */
export class Span {
  first: string | undefined;
  last: string | undefined;
  add(first: string | null | undefined, last: string | null | undefined): void {
    if (first && (this.first === undefined || first < this.first)) this.first = first;
    if (last && (this.last === undefined || last > this.last)) this.last = last;
  }
  get days(): DaySpan | undefined {
    return this.first && this.last ? { from: this.first, to: this.last } : undefined;
  }
}

/** One row of `pending_changes`, as claimed. */
export interface PendingRow {
  readonly resource: string;
  readonly first_day: string | null;
  readonly last_day: string | null;
  readonly changes: Change[];
  readonly run_id: number | null;
  readonly recorded_at: Date;
}

/** Every pending load of one company, coalesced: for each input, the union of the windows that changed it. */
export interface ChangeSet {
  /** Loads taken in. */
  readonly loads: number;
  /** When the oldest and newest of them committed. */
  readonly since: Date;
  readonly until: Date;
  readonly directory: boolean;
  readonly seen: boolean;
  /** Per input of the day grain, the union of the windows that changed it. */
  readonly spans: Readonly<Partial<Record<Exclude<Change, 'directory' | 'seen'>, DaySpan>>>;
  /** The union of every window. */
  readonly window?: DaySpan;
  /** Each resource and window loaded (none for loads without one), with its last run: the checks after them. */
  readonly runs: readonly { resource: string; window?: DaySpan; runId?: number }[];
}

/** Coalesces claimed rows (pure); undefined when there are none. */
export function coalesce(rows: readonly PendingRow[]): ChangeSet | undefined {
  if (rows.length === 0) return undefined;
  const spans = new Map<Change, Span>();
  const window = new Span();
  const runs = new Map<string, { resource: string; window?: DaySpan; runId?: number }>();
  let directory = false;
  let seen = false;
  for (const row of rows) {
    window.add(row.first_day, row.last_day);
    const key = `${row.resource} ${row.first_day ?? ''} ${row.last_day ?? ''}`;
    const run = runs.get(key) ?? {
      resource: row.resource,
      ...(row.first_day && row.last_day ? { window: { from: row.first_day, to: row.last_day } } : {}),
    };
    if (row.run_id !== null) run.runId = Math.max(run.runId ?? 0, row.run_id);
    runs.set(key, run);
    for (const change of row.changes) {
      if (change === 'directory') directory = true;
      else if (change === 'seen') seen = true;
      else {
        const span = spans.get(change) ?? new Span();
        span.add(row.first_day, row.last_day);
        spans.set(change, span);
      }
    }
  }
  const times = rows.map((r) => r.recorded_at.getTime());
  const union = window.days;
  return {
    loads: rows.length,
    since: new Date(Math.min(...times)),
    until: new Date(Math.max(...times)),
    directory,
    seen,
    spans: Object.fromEntries([...spans].flatMap(([k, s]) => (s.days ? [[k, s.days]] : []))),
    ...(union ? { window: union } : {}),
    runs: [...runs.values()],
  };
}

/** Takes (deletes) every pending row of `company`, in the caller's transaction; they come back if it rolls back. */
export async function claimPendingChanges(
  client: MergeClient,
  schema: string,
  company: string,
): Promise<ChangeSet | undefined> {
  const { rows } = await client.query<PendingRow>(
    `DELETE FROM ${quoteIdent(schema)}.pending_changes WHERE company_cnpj = $1
     RETURNING resource, first_day::text, last_day::text, changes, run_id::int8 AS run_id, recorded_at`,
    [company],
  );
  return coalesce(rows.map((r) => ({ ...r, run_id: r.run_id === null ? null : Number(r.run_id) })));
}
