/**
 * What a load writes about itself, in its own transaction: the records it rejected
 * (`rejected_records`, resolving those a later answer no longer rejects), what the
 * window's answer held per table (`window_loads`, for the completeness check), the
 * schema drift seen and the columns whose values were stored without a NUL character
 * (`schema_drift`).
 */
import type { DriftEvent } from '../api/drift.js';
import { isCalendarDate } from '../util/time.js';
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
  /** The day asked, for a read of one day per call (an hour-bank balance names no day of its own). */
  readonly date?: string;
  /** The CPF (11 digits) of the element the record was taken from, when it named one (so forget finds it). */
  readonly cpf?: string;
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

/** A window as stored on a rejection: both days, or neither for lists without a window. */
interface StoredWindow {
  readonly from: string | null;
  readonly to: string | null;
}

/** Keys whose values date a record of spec 2 (a day, a punch, an absence's first and last day). */
const DATING_KEYS: ReadonlySet<string> = new Set(['date', 'datetime', 'begin_date', 'end_date']);

/** The calendar days `record` names under {@link DATING_KEYS}, anywhere in it (a date-time counts by its day). */
function datesIn(record: unknown, out: string[] = []): string[] {
  if (Array.isArray(record)) {
    for (const item of record) datesIn(item, out);
  } else if (record !== null && typeof record === 'object') {
    for (const [k, v] of Object.entries(record)) {
      if (typeof v === 'string' && DATING_KEYS.has(k)) {
        const day = v.slice(0, 10);
        if (isCalendarDate(day)) out.push(day);
      } else if (typeof v === 'object') {
        datesIn(v, out);
      }
    }
  }
  return out;
}

/**
 * The days a rejected record stands for: from the first to the last day it names, within
 * the window it was read in; the whole window when it names none (an hour-bank balance,
 * read one day per call) or only days outside it.
 */
export function rejectionSpan(record: unknown, window: StoredWindow): StoredWindow {
  if (window.from === null || window.to === null) return window;
  const days = datesIn(record).sort();
  if (days.length === 0) return window;
  const from = days[0]! > window.from ? days[0]! : window.from;
  const to = days[days.length - 1]! < window.to ? days[days.length - 1]! : window.to;
  return from <= to ? { from, to } : window;
}

/**
 * Records this load's rejections and resolves the earlier ones it shows fixed.
 *
 * The schedules read windows that shift every day (the last 7 days of punches, the
 * lookback horizon), so a rejection is followed by its record, not by the window it was
 * first read in: an open rejection of the same endpoint and record, in a window that
 * overlaps this one, is the same rejection (seen again, it keeps one row, narrowed to the
 * days both windows share); and an open rejection this load did not meet again is
 * resolved when this load's window covers the days its record stands for
 * ({@link rejectionSpan}) — a record outside what was read stays open.
 */
export async function recordRejections(client: MergeClient, schema: string, key: LoadKey, rejections: readonly Rejection[]): Promise<void> {
  const table = `${quoteIdent(schema)}.rejected_records`;
  const current: StoredWindow = { from: key.from ?? null, to: key.to ?? null };
  const windowed = current.from !== null && current.to !== null;
  const base = [key.connection, key.resource, key.company];
  const overlapping = windowed ? 'window_start <= $5::date AND window_end >= $4::date' : 'window_start IS NULL';
  const open = await client.query<{ id: string; endpoint: string; record: unknown; from: string | null; to: string | null; text: string }>(
    `SELECT id::text, endpoint, record, record::text AS text, window_start::text AS from, window_end::text AS to FROM ${table}
      WHERE connection = $1 AND resource = $2 AND company_cnpj = $3 AND resolved_at IS NULL AND ${overlapping}`,
    windowed ? [...base, current.from, current.to] : base,
  );
  // Records as jsonb text, so that they compare with the stored ones whatever their key order.
  const texts = rejections.length === 0 ? [] : (
    await client.query<{ text: string }>(`SELECT r::jsonb::text AS text FROM unnest($1::text[]) WITH ORDINALITY AS x(r, i) ORDER BY i`, [
      rejections.map((r) => JSON.stringify(r.record ?? null)),
    ])
  ).rows.map((r) => r.text);

  // A record of a per-day read is told apart by its day too: its window is that day.
  const identityOf = (r: { endpoint: string; text: string; day?: string | null }) => `${r.endpoint}\u0000${r.day ?? ''}\u0000${r.text}`;
  const perDay = new Set(rejections.filter((r) => r.date).map((r) => r.endpoint));
  const storedIdentity = (r: (typeof open.rows)[number]) => identityOf({ ...r, day: perDay.has(r.endpoint) ? r.from : null });
  const stored = new Map<string, (typeof open.rows)[number]>();
  for (const r of open.rows) {
    const identity = storedIdentity(r);
    if (!stored.has(identity)) stored.set(identity, r);
  }
  const seen = new Set<string>();
  const seenRows = new Set<(typeof open.rows)[number]>();
  for (const [i, r] of rejections.entries()) {
    const identity = identityOf({ endpoint: r.endpoint, text: texts[i]!, day: r.date ?? null });
    if (seen.has(identity)) continue; // the same record twice in one load is one rejection
    seen.add(identity);
    const earlier = stored.get(identity);
    if (earlier) seenRows.add(earlier);
    const values = [r.index, r.path, r.reason, texts[i], key.runId ?? null, r.cpf ?? null];
    const mine: StoredWindow = r.date ? { from: r.date, to: r.date } : current;
    if (earlier) {
      // Seen again: the record lies in both windows.
      const from = windowed && earlier.from !== null && earlier.from > mine.from! ? earlier.from : mine.from;
      const to = windowed && earlier.to !== null && earlier.to < mine.to! ? earlier.to : mine.to;
      await client.query(
        `UPDATE ${table} SET last_rejected_at = now(), element_index = $1, json_path = $2, reason = $3, record = $4::jsonb, run_id = $5, cpf = $6,
                window_start = $7::date, window_end = $8::date WHERE id = $9`,
        [...values, from, to, earlier.id],
      );
    } else {
      await client.query(
        `INSERT INTO ${table} (connection, resource, company_cnpj, window_start, window_end, endpoint, element_index, json_path, reason, record, run_id, cpf)
         VALUES ($1, $2, $3, $4::date, $5::date, $6, $7, $8, $9, $10::jsonb, $11, $12)`,
        [...base, mine.from, mine.to, r.endpoint, ...values],
      );
    }
  }

  const covers = (w: StoredWindow) => !windowed || (w.from !== null && w.to !== null && w.from >= current.from! && w.to <= current.to!);
  // Fixed, or a second row of a record that keeps one (the first is the one updated).
  const fixed = open.rows.filter((r) => !seenRows.has(r) && (seen.has(storedIdentity(r)) || covers(rejectionSpan(r.record, r))));
  if (fixed.length > 0) await client.query(`UPDATE ${table} SET resolved_at = now() WHERE id = ANY($1::bigint[])`, [fixed.map((r) => r.id)]);
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

/** Values of a warehouse column stored without a character Postgres cannot store (a NUL). */
export interface CleanedColumn {
  readonly table: string;
  readonly column: string;
  /** How many values of this load. */
  readonly values: number;
}

/** Records cleaned columns as schema drift of kind `cleaned_value`, field `table.column` (a repeat refreshes `last_seen_at`). */
export async function recordCleanedValues(client: MergeClient, schema: string, cleaned: readonly CleanedColumn[]): Promise<void> {
  for (const c of cleaned) {
    await client.query(
      `INSERT INTO ${quoteIdent(schema)}.schema_drift (kind, endpoint, field, value) VALUES ('cleaned_value', '', $1, '')
       ON CONFLICT (kind, endpoint, field, value) DO UPDATE SET last_seen_at = now()`,
      [`${c.table}.${c.column}`],
    );
  }
}
