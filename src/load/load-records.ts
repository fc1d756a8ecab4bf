/**
 * What a load writes about itself, in its own transaction: the records it rejected
 * (`rejected_records`, resolving those a later answer no longer rejects), what the window's
 * answer held per table (`window_loads`, for the completeness check), the schema drift seen
 * and the columns whose values were stored without a NUL character (`schema_drift`).
 */
import { isCalendarDate } from '../util/time.js';
import { sql } from 'kysely';
import { storableJson, storableText } from '../util/storable-text.js';
import { warehouseDb } from '../warehouse/db.js';
import type { MergeClient, TableStats } from '../warehouse/merge.js';

/** A record an answer held that could not be stored. */
export interface Rejection {
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

/** Which load the records belong to: no window for lists, no `runId` without a sync_runs row. */
interface LoadKey {
  readonly connection: string;
  readonly resource: string;
  readonly company: string;
  readonly from?: string;
  readonly to?: string;
  readonly runId?: number;
}

/** A window as stored on a rejection: both days, or neither for lists without a window. */
type StoredWindow = { readonly from: string | null; readonly to: string | null };

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
 * Records this load's rejections and resolves the earlier ones it shows fixed. The schedules
 * read windows that shift every day, so a rejection follows its record, not the window it was
 * first read in: an open rejection of the same endpoint and record in an overlapping window is
 * the same one (kept as one row, narrowed to the days both windows share); one this load did
 * not meet again is resolved when this window covers the days its record stands for
 * ({@link rejectionSpan}) — a record outside what was read stays open.
 */
export async function recordRejections(
  client: MergeClient,
  schema: string,
  key: LoadKey,
  rejections: readonly Rejection[],
): Promise<void> {
  const db = warehouseDb(client, schema);
  const current: StoredWindow = { from: key.from ?? null, to: key.to ?? null };
  const windowed = current.from !== null && current.to !== null;
  const base = { connection: key.connection, resource: key.resource, company_cnpj: key.company };
  const open = await db
    .selectFrom('rejected_records')
    .select((eb) => [
      'id',
      'endpoint',
      'record',
      eb.cast<string>('record', 'text').as('text'),
      eb.cast<string | null>('window_start', 'text').as('from'),
      eb.cast<string | null>('window_end', 'text').as('to'),
    ])
    .where((eb) => eb.and({ ...base, resolved_at: null }))
    .where((eb) =>
      windowed
        ? eb.and([eb('window_start', '<=', current.to!), eb('window_end', '>=', current.from!)])
        : eb('window_start', 'is', null),
    )
    .execute();
  // Records as jsonb text, so that they compare with the stored ones whatever their key order;
  // cleaned first, since jsonb refuses a NUL (or a lone surrogate) and the record must be stored.
  const texts =
    rejections.length === 0
      ? []
      : (
          await sql<{
            text: string;
          }>`SELECT r::jsonb::text AS text FROM unnest(${rejections.map((r) => JSON.stringify(storableJson(r.record ?? null)))}::text[]) WITH ORDINALITY AS x(r, i) ORDER BY i`.execute(
            db,
          )
        ).rows.map((r) => r.text);

  // A record of a per-day read is told apart by its day too: its window is that day.
  const identityOf = (r: { endpoint: string; text: string; day?: string | null }) =>
    `${r.endpoint}\u0000${r.day ?? ''}\u0000${r.text}`;
  const perDay = new Set(rejections.filter((r) => r.date).map((r) => r.endpoint));
  const storedIdentity = (r: (typeof open)[number]) =>
    identityOf({ ...r, day: perDay.has(r.endpoint) ? r.from : null });
  // The first open row of each identity (a second one is resolved below).
  const stored = new Map(open.toReversed().map((r) => [storedIdentity(r), r]));
  const seen = new Set<string>();
  const seenRows = new Set<(typeof open)[number]>();
  for (const [i, r] of rejections.entries()) {
    const identity = identityOf({ endpoint: r.endpoint, text: texts[i]!, day: r.date ?? null });
    if (seen.has(identity)) continue; // the same record twice in one load is one rejection
    seen.add(identity);
    const earlier = stored.get(identity);
    if (earlier) seenRows.add(earlier);
    const values = {
      element_index: r.index,
      json_path: storableText(r.path),
      reason: storableText(r.reason),
      record: texts[i]!,
      run_id: key.runId ?? null,
      cpf: r.cpf ?? null,
    };
    const mine: StoredWindow = r.date ? { from: r.date, to: r.date } : current;
    if (earlier) {
      // Seen again: the record lies in both windows.
      const from = windowed && earlier.from !== null && earlier.from > mine.from! ? earlier.from : mine.from;
      const to = windowed && earlier.to !== null && earlier.to < mine.to! ? earlier.to : mine.to;
      await db
        .updateTable('rejected_records')
        .set({ last_rejected_at: sql`now()`, ...values, window_start: from, window_end: to })
        .where('id', '=', earlier.id)
        .execute();
    } else {
      await db
        .insertInto('rejected_records')
        .values({ ...base, window_start: mine.from, window_end: mine.to, endpoint: r.endpoint, ...values })
        .execute();
    }
  }

  const covers = (w: StoredWindow) =>
    !windowed || (w.from !== null && w.to !== null && w.from >= current.from! && w.to <= current.to!);
  // Fixed, or a second row of a record that keeps one (the first is the one updated).
  const fixed = open.filter(
    (r) => !seenRows.has(r) && (seen.has(storedIdentity(r)) || covers(rejectionSpan(r.record, r))),
  );
  if (fixed.length > 0) {
    await db
      .updateTable('rejected_records')
      .set({ resolved_at: sql`now()` })
      .where('id', '=', (eb) => eb.fn.any(eb.val(fixed.map((r) => r.id))))
      .execute();
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
  const rows = Object.entries(tables).map(([table_name, t]) => ({
    connection: key.connection,
    company_cnpj: key.company,
    resource: key.resource,
    window_start: key.from,
    window_end: key.to,
    table_name,
    received: t.received,
    rejected,
    run_id: key.runId ?? null,
    loaded_at: sql<Date>`now()`,
  }));
  if (rows.length === 0) return;
  await warehouseDb(client, schema)
    .insertInto('window_loads')
    .values(rows)
    .onConflict((oc) =>
      oc
        .columns(['connection', 'company_cnpj', 'resource', 'window_start', 'window_end', 'table_name'])
        .doUpdateSet(({ ref }) => ({
          received: ref('excluded.received'),
          rejected: ref('excluded.rejected'),
          run_id: ref('excluded.run_id'),
          loaded_at: ref('excluded.loaded_at'),
        })),
    )
    .execute();
}

/** A `schema_drift` row; `endpoint` and `value` default to ''. */
export type DriftRow = { kind: string; endpoint?: string; field: string; value?: string };

/**
 * Most rows of one group in `schema_drift` (the values of one field, the unknown fields of one
 * endpoint), whatever number of processes report; past it the group gets one `too_many` row.
 */
export const MAX_DRIFT_ROWS_PER_GROUP = 100;
/** Most rows of `schema_drift` besides the `too_many` ones (each process stops at its own bound too). */
export const MAX_DRIFT_ROWS = 1000;

/**
 * Records drift: a repeat of the same kind, endpoint, field and value refreshes `last_seen_at`;
 * a new row is added only while its group and the table are under their bounds, else its
 * group's `too_many` row is (the table, and `status` that lists it, stay bounded).
 */
export async function recordDrift(client: MergeClient, schema: string, rows: DriftRow[]): Promise<void> {
  const db = warehouseDb(client, schema);
  for (const row of rows) {
    const r = { kind: row.kind, endpoint: row.endpoint ?? '', field: row.field, value: row.value ?? '' };
    // A field's values are one group (new_value), an endpoint's unknown fields another.
    const group =
      r.kind === 'unknown_field' ? { endpoint: r.endpoint, field: '' } : { endpoint: '', field: r.field };
    const refresh = sql`ON CONFLICT (kind, endpoint, field, value) DO UPDATE SET last_seen_at = now()`;
    const t = sql`${sql.id(schema)}.schema_drift`;
    const kept = await sql`
      INSERT INTO ${t} (kind, endpoint, field, value)
      SELECT ${r.kind}, ${r.endpoint}, ${r.field}, ${r.value}
      WHERE ${r.kind} = 'too_many'
         OR EXISTS (SELECT FROM ${t} WHERE (kind, endpoint, field, value) = (${r.kind}, ${r.endpoint}, ${r.field}, ${r.value}))
         OR ((SELECT count(*) FROM ${t} WHERE kind = ${r.kind}
               AND (${r.kind} = 'unknown_field' AND endpoint = ${r.endpoint}
                    OR ${r.kind} <> 'unknown_field' AND field = ${r.field})) < ${MAX_DRIFT_ROWS_PER_GROUP}
             AND (SELECT count(*) FROM ${t} WHERE kind <> 'too_many') < ${MAX_DRIFT_ROWS})
      ${refresh}`.execute(db);
    if (kept.numAffectedRows === 0n)
      await sql`
        INSERT INTO ${t} (kind, endpoint, field, value)
        VALUES ('too_many', ${group.endpoint}, ${group.field}, '')
        ${refresh}`.execute(db);
  }
}
