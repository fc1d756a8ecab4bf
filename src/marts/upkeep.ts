/**
 * src/marts/ — the analyst model derived from the loaded tables, kept current inside each
 * load's transaction.
 *
 * Keeps the analyst marts current after a load, inside the load's transaction
 * (docs/warehouse.md "Marts"): a window that changed an input rewrites the marts of the
 * days and records it decides, never the whole mart. What a resource feeds is declared
 * with it (`marts` of its declaration); the loads of one company take a lock of their
 * own here, so two windows of the company never rewrite the same rows at once.
 */
import type pg from 'pg';
import { quoteIdent } from '../warehouse/db.js';
import type { MergeClient, TableStats } from '../warehouse/merge.js';
import { extendCalendar } from './calendar.js';
import {
  buildAbsenceDaysRefresh,
  buildCoverageBounds,
  buildDailyRefresh,
  buildDataDays,
  buildHistoryChanged,
  buildLeaving,
  buildListing,
  buildMeasureRefresh,
  buildRegisterRecords,
  type DayMeasure,
  type RecordKeys,
} from './statements.js';
import { MART_MODULES } from './modules.js';
import { publishMartSpan } from './timing.js';

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
  readonly measure?: Exclude<DayMeasure, 'leave'>;
  /** It loads absences: they are expanded to their days, and the days' leave rewritten. */
  readonly absences?: boolean;
}

/** One load, as the marts see it. */
export interface MartLoad {
  readonly schema: string;
  readonly company: string;
  /** IANA zone of the company (spec 1.2): how its instants fall on days. */
  readonly zone: string;
  /** The company's today (`YYYY-MM-DD`) by the sync's clock: days before it are over. */
  readonly today: string;
  readonly window?: { readonly from: string; readonly to: string };
  /** What the load wrote, per table; `seen` is what the records only seen in period data changed. */
  readonly tables: Readonly<Record<string, TableStats>>;
  readonly seen?: TableStats;
  /** The load's staging table of a warehouse table. */
  stage(table: string): string;
  /** Rewrite what the window decides even if it changed nothing (a forced sync: a mart changed by hand is put right). */
  readonly rebuild?: boolean;
}

/** Rows the upkeep wrote. */
export interface MartStats {
  /** `employee_daily` rows written or deleted. */
  readonly days: number;
  /** Records whose employment changed. */
  readonly records: number;
}

/** First key of the marts' advisory lock ("mart"); the second is the schema and company. */
const LOCK_CLASS = 0x6d617274;

const changed = (s: TableStats | undefined) => s !== undefined && s.inserted + s.updated + s.deleted > 0;

/** A set of collaborator records. */
class Records {
  readonly #keys = new Map<string, [string, string]>();
  add(rows: readonly { cpf: string; collaborator_record: string }[]): void {
    for (const r of rows)
      this.#keys.set(`${r.cpf}\u001f${r.collaborator_record}`, [r.cpf, r.collaborator_record]);
  }
  get size(): number {
    return this.#keys.size;
  }
  keys(): RecordKeys {
    const all = [...this.#keys.values()];
    return { cpfs: all.map((k) => k[0]), records: all.map((k) => k[1]) };
  }
}

/** The first and last day a set of statements touched. */
class Span {
  first: string | undefined;
  last: string | undefined;
  add(first: string | null | undefined, last: string | null | undefined): void {
    if (first && (this.first === undefined || first < this.first)) this.first = first;
    if (last && (this.last === undefined || last > this.last)) this.last = last;
  }
}

/**
 * Brings the marts up to date with what `load` changed; does nothing when it changed
 * nothing they derive from. Runs in the load's transaction, after its merges.
 */
export async function keepMartsCurrent(
  client: MergeClient,
  load: MartLoad,
  upkeep: MartUpkeep = {},
): Promise<MartStats | undefined> {
  const inputs = load.rebuild === true || Object.values(load.tables).some(changed);
  const seen = changed(load.seen);
  const { schema, company, zone, today, window } = load;
  const q = <T extends pg.QueryResultRow>(query: { text: string; values: unknown[] }, mart: string) =>
    publishMartSpan(mart, client, client.query<T>(query.text, query.values));

  let dueDays: string | undefined;
  if (upkeep.coverage && window && !inputs)
    dueDays =
      (await q<{ day: string | null }>(buildDayOverDue(load), 'employee_daily:due')).rows[0]?.day ??
      undefined;
  const work =
    upkeep.directory ||
    seen ||
    (window !== undefined &&
      (inputs || dueDays !== undefined) &&
      (upkeep.coverage || upkeep.measure || upkeep.absences));
  if (!work) return undefined;

  await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [LOCK_CLASS, `${schema}:${company}`]);
  await q(
    {
      text: `UPDATE ${quoteIdent(schema)}.companies SET time_zone = $2 WHERE cnpj = $1 AND time_zone IS DISTINCT FROM $2`,
      values: [company, zone],
    },
    'companies',
  );
  if (window)
    await publishMartSpan('calendar', client, extendCalendar(client, schema, window.from, window.to));

  const records = new Records();
  type Key = { cpf: string; collaborator_record: string };
  if (upkeep.directory || seen) {
    records.add((await q<Key>(buildRegisterRecords(schema, company, zone), 'employments:register')).rows);
    records.add(
      (
        await q<Key>(
          {
            text: `SELECT cpf, collaborator_record FROM ${quoteIdent(schema)}.collaborators WHERE company_cnpj = $1 AND synced_at = now() AND NOT active`,
            values: [company],
          },
          'employments:touched',
        )
      ).rows,
    );
  }
  if (upkeep.directory) {
    await q(buildListing(schema, company, zone, load.stage('collaborators')), 'employments:listing');
    records.add((await q<Key>(buildHistoryChanged(schema, company), 'employments:history')).rows);
  }
  if (upkeep.coverage && window && inputs)
    records.add(
      (await q<Key>(buildDataDays(schema, company, window.from, window.to), 'employments:data-days')).rows,
    );
  if (upkeep.directory || seen || (upkeep.coverage && inputs))
    records.add((await q<Key>(buildLeaving(schema, company, zone), 'employments:leaving')).rows);

  const months = new Span();
  let days = 0;
  type Written = { n: number; first_day: string | null; last_day: string | null };
  const rewrite = async (from: string, to: string, only?: RecordKeys) => {
    const r = buildDailyRefresh(schema, { company, zone, today, from, to, ...(only ? { only } : {}) });
    // Only an employment that changed its span can leave rows outside it (coverage never shrinks).
    const steps = only
      ? ([
          [r.upsert, 'records'],
          [r.prune, 'prune'],
        ] as const)
      : ([[r.upsert, 'days']] as const);
    for (const [statement, step] of steps) {
      const [w] = (await q<Written>(statement, `employee_daily:${step}`)).rows;
      days += w!.n;
      months.add(w!.first_day, w!.last_day);
    }
  };
  // A measure changes no row's membership nor department: the headcount stays as it is.
  const measure = async (which: DayMeasure, from: string, to: string, only?: RecordKeys) => {
    const [w] = (
      await q<Written>(
        buildMeasureRefresh(schema, which, { company, zone, today, from, to, ...(only ? { only } : {}) }),
        `employee_daily:${which}`,
      )
    ).rows;
    days += w!.n;
  };

  if (upkeep.absences && window && inputs) {
    const a = buildAbsenceDaysRefresh(schema, company, window.from, window.to);
    const [span] = (await q<{ first_day: string | null; last_day: string | null }>(a.span, 'absence_days'))
      .rows;
    if (span!.first_day && span!.last_day)
      await publishMartSpan(
        'calendar',
        client,
        extendCalendar(client, schema, span!.first_day, span!.last_day),
      );
    const touched = new Span();
    const members = new Set<string>();
    for (const statement of [a.delete, a.insert]) {
      const [t] = (
        await q<{ first_day: string | null; last_day: string | null; records: string[] }>(
          statement,
          'absence_days',
        )
      ).rows;
      touched.add(t!.first_day, t!.last_day);
      for (const k of t!.records) members.add(k);
    }
    if (touched.first && touched.last && members.size > 0) {
      const keys = [...members].map((k) => k.split('\u001f') as [string, string]);
      await measure('leave', touched.first, touched.last, {
        cpfs: keys.map((k) => k[0]),
        records: keys.map((k) => k[1]),
      });
    }
  }
  if (upkeep.coverage && window && (inputs || dueDays))
    await rewrite(inputs ? window.from : dueDays!, window.to);
  if (upkeep.measure && window && inputs) await measure(upkeep.measure, window.from, window.to);
  if (records.size > 0) {
    // An employment that starts or ends elsewhere: its days, and the hires and leavers of every month, may change.
    const [bounds] = (
      await q<{ first_day: string | null; last_day: string | null }>(
        buildCoverageBounds(schema, company),
        'employee_daily:coverage',
      )
    ).rows;
    if (bounds!.first_day && bounds!.last_day) {
      await rewrite(bounds!.first_day, bounds!.last_day, records.keys());
      months.add(bounds!.first_day, bounds!.last_day);
    }
  }
  // The mart modules, over every day this load may have changed.
  const span = new Span();
  span.add(window?.from, window?.to);
  span.add(months.first, months.last);
  if (span.first && span.last)
    for (const mart of MART_MODULES)
      days += await publishMartSpan(
        mart.name,
        client,
        mart.refresh(client, { schema, company, zone, today, from: span.first, to: span.last }),
      );
  return { days, records: records.size };
}

/** The first day of the window whose row was written before the day ended and has ended since (null when none). */
function buildDayOverDue(load: MartLoad): { text: string; values: unknown[] } {
  return {
    text: `SELECT min(work_date)::text AS day FROM ${quoteIdent(load.schema)}.employee_daily
      WHERE company_cnpj = $1 AND work_date BETWEEN $2::date AND $3::date AND NOT is_day_over
        AND work_date < $4::date`,
    values: [load.company, load.window!.from, load.window!.to, load.today],
  };
}
