/**
 * src/marts/ — the analyst model derived from the loaded tables, kept current after the
 * loads by a follow-up per company.
 *
 * Brings one company's marts up to date with what its pending loads changed
 * (docs/warehouse.md "Marts"): the days and records the changes decide are rewritten,
 * never the whole mart, once for the union of the loads' windows. Runs in the follow-up's
 * transaction, which holds the company's marts lock, so two refreshes of a company never
 * rewrite the same rows at once.
 */
import type pg from 'pg';
import { quoteIdent } from '../warehouse/db.js';
import type { MergeClient } from '../warehouse/merge.js';
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
  buildTouchedRecords,
  type DayMeasure,
  type RecordKeys,
} from './statements.js';
import { MART_MODULES } from './modules.js';
import type { MartScope } from './module.js';
import { Span, type ChangeSet, type DaySpan } from './pending.js';
import { publishMartSpan } from './timing.js';
import { MART_INPUTS } from './inputs.js';

export type { MartUpkeep } from './pending.js';

/** The company a refresh is for, and its today. */
export type CompanyScope = Omit<MartScope, 'from' | 'to'>;

/** Rows the refresh wrote. */
export interface MartStats {
  /** `employee_daily` rows (and module rows) written or deleted. */
  readonly days: number;
  /** Records whose employment changed. */
  readonly records: number;
  /** The days the refresh rewrote (its loads' windows and the employments they changed). */
  readonly span?: DaySpan;
}

/** First key of the marts' advisory lock ("mart"); the second is the schema and company. */
const LOCK_CLASS = 0x6d617274;

/** Takes the company's marts lock until the end of the caller's transaction. */
export async function lockCompanyMarts(client: MergeClient, schema: string, company: string): Promise<void> {
  await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [LOCK_CLASS, `${schema}:${company}`]);
}

type Written = { n: number; first_day: string | null; last_day: string | null };
type Key = { cpf: string; collaborator_record: string };

/** A set of collaborator records. */
class Records {
  readonly #keys = new Map<string, [string, string]>();
  add(rows: readonly Key[]): void {
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

/** One refresh: its client, scope and what it has written so far. */
class Refresh {
  days = 0;
  readonly months = new Span();
  readonly records = new Records();
  constructor(
    readonly client: MergeClient,
    readonly scope: CompanyScope,
    readonly changes: ChangeSet,
  ) {}

  /** Runs a statement as a span of `mart` (bench/ reads what each mart costs). */
  q<T extends pg.QueryResultRow>(query: { text: string; values: unknown[] }, mart: string) {
    return publishMartSpan(mart, this.client, this.client.query<T>(query.text, query.values));
  }

  async calendar(from: string, to: string): Promise<void> {
    await publishMartSpan('calendar', this.client, extendCalendar(this.client, this.scope.schema, from, to));
  }

  /** Rewrites the day grain of `from`..`to` (of `only` records: then also the rows outside their employment). */
  async rewrite(from: string, to: string, only?: RecordKeys): Promise<void> {
    const { company, zone, today, schema } = this.scope;
    const r = buildDailyRefresh(schema, { company, zone, today, from, to, ...(only ? { only } : {}) });
    // Only an employment that changed its span can leave rows outside it (coverage never shrinks).
    const steps = only
      ? ([
          [r.upsert, 'records'],
          [r.prune, 'prune'],
        ] as const)
      : ([[r.upsert, 'days']] as const);
    for (const [statement, step] of steps) {
      const [w] = (await this.q<Written>(statement, `employee_daily:${step}`)).rows;
      this.days += w!.n;
      this.months.add(w!.first_day, w!.last_day);
    }
  }

  /** Rewrites one measure of the day grain; a measure changes no row's membership nor department. */
  async measure(which: DayMeasure, from: string, to: string, only?: RecordKeys): Promise<void> {
    const { company, zone, today, schema } = this.scope;
    const query = buildMeasureRefresh(schema, which, {
      company,
      zone,
      today,
      from,
      to,
      ...(only ? { only } : {}),
    });
    this.days += (await this.q<Written>(query, `employee_daily:${which}`)).rows[0]!.n;
  }
}

/**
 * Brings the company's marts up to date with `changes`; runs in the caller's transaction,
 * which holds the company's marts lock ({@link lockCompanyMarts}).
 */
export async function refreshMarts(
  client: MergeClient,
  scope: CompanyScope,
  changes: ChangeSet,
): Promise<MartStats> {
  const r = new Refresh(client, scope, changes);
  await r.q(
    {
      text: `UPDATE ${quoteIdent(scope.schema)}.${quoteIdent(MART_INPUTS.company)} SET time_zone = $2 WHERE cnpj = $1 AND time_zone IS DISTINCT FROM $2`,
      values: [scope.company, scope.zone],
    },
    'time_zone',
  );
  if (changes.window) await r.calendar(changes.window.from, changes.window.to);
  await updateEmployments(r);
  await refreshAbsences(r);
  await refreshDays(r);
  await refreshRecords(r);
  // A rebuild (a forced window, punchline marts rebuild) rewrites its months whatever changed.
  r.months.add(changes.spans.rebuild?.from, changes.spans.rebuild?.to);
  const span = new Span();
  span.add(changes.window?.from, changes.window?.to);
  span.add(r.months.first, r.months.last);
  await refreshModules(r, span.days);
  return { days: r.days, records: r.records.size, ...(span.days ? { span: span.days } : {}) };
}

/** Employment records: registered, listed, widened by new period data, and when they ended. */
async function updateEmployments(r: Refresh): Promise<void> {
  const { schema, company, zone } = r.scope;
  const { directory, seen, spans } = r.changes;
  // History versions and listing times carry their load's transaction time, at or after `since`.
  const since = r.changes.since;
  if (directory || seen) {
    r.records.add((await r.q<Key>(buildRegisterRecords(schema, company, zone), 'employments:register')).rows);
    r.records.add((await r.q<Key>(buildTouchedRecords(schema, company, since), 'employments:touched')).rows);
  }
  if (directory) {
    await r.q(buildListing(schema, company, zone, r.changes.until), 'employments:listing');
    r.records.add((await r.q<Key>(buildHistoryChanged(schema, company, since), 'employments:history')).rows);
  }
  const coverage = spans.coverage ?? spans.rebuild;
  if (coverage)
    r.records.add(
      (await r.q<Key>(buildDataDays(schema, company, coverage.from, coverage.to), 'employments:data-days'))
        .rows,
    );
  if (directory || seen || coverage)
    r.records.add((await r.q<Key>(buildLeaving(schema, company, zone), 'employments:leaving')).rows);
}

/** Absences expanded to their days, and the leave of the days they touched. */
async function refreshAbsences(r: Refresh): Promise<void> {
  const span = r.changes.spans.leave;
  if (!span) return;
  const { schema, company } = r.scope;
  const a = buildAbsenceDaysRefresh(schema, company, span.from, span.to);
  type Touched = { first_day: string | null; last_day: string | null; records: string[] };
  const [reach] = (await r.q<Omit<Touched, 'records'>>(a.span, 'absence_days')).rows;
  if (reach!.first_day && reach!.last_day) await r.calendar(reach!.first_day, reach!.last_day);
  const touched = new Span();
  const members = new Set<string>();
  for (const statement of [a.delete, a.insert]) {
    const [t] = (await r.q<Touched>(statement, 'absence_days')).rows;
    touched.add(t!.first_day, t!.last_day);
    for (const k of t!.records) members.add(k);
  }
  if (touched.first && touched.last && members.size > 0) {
    const keys = [...members].map((k) => k.split('\u001f') as [string, string]);
    await r.measure('leave', touched.first, touched.last, {
      cpfs: keys.map((k) => k[0]),
      records: keys.map((k) => k[1]),
    });
  }
}

/** The day grain of the windows whose coverage changed (or whose days have ended since), and their measures. */
async function refreshDays(r: Refresh): Promise<void> {
  const { spans } = r.changes;
  const changed = new Span();
  changed.add(spans.coverage?.from, spans.coverage?.to);
  changed.add(spans.rebuild?.from, spans.rebuild?.to);
  const due = spans.days ? await firstDayOverDue(r, spans.days) : undefined;
  changed.add(due, due && spans.days!.to);
  if (changed.days) await r.rewrite(changed.days.from, changed.days.to);
  for (const measure of ['lateness', 'overtime'] as const) {
    const span = spans[measure];
    if (span) await r.measure(measure, span.from, span.to);
  }
}

/** An employment that starts or ends elsewhere: its days, and the hires and leavers of every month, may change. */
async function refreshRecords(r: Refresh): Promise<void> {
  if (r.records.size === 0) return;
  const [bounds] = (
    await r.q<Written>(buildCoverageBounds(r.scope.schema, r.scope.company), 'employee_daily:coverage')
  ).rows;
  if (bounds!.first_day && bounds!.last_day) {
    await r.rewrite(bounds!.first_day, bounds!.last_day, r.records.keys());
    r.months.add(bounds!.first_day, bounds!.last_day);
  }
}

/** The mart modules (src/marts/modules.ts), over every day this refresh may have changed. */
async function refreshModules(r: Refresh, span: DaySpan | undefined): Promise<void> {
  if (!span) return;
  for (const mart of MART_MODULES)
    r.days += await publishMartSpan(mart.name, r.client, mart.refresh(r.client, { ...r.scope, ...span }));
}

/** The first day of `span` whose row was written before the day ended and has ended since (undefined when none). */
async function firstDayOverDue(r: Refresh, span: DaySpan): Promise<string | undefined> {
  const { rows } = await r.q<{ day: string | null }>(
    {
      text: `SELECT min(work_date)::text AS day FROM ${quoteIdent(r.scope.schema)}.employee_daily
      WHERE company_cnpj = $1 AND work_date BETWEEN $2::date AND $3::date AND NOT is_day_over
        AND work_date < $4::date`,
      values: [r.scope.company, span.from, span.to, r.scope.today],
    },
    'employee_daily:due',
  );
  return rows[0]?.day ?? undefined;
}
