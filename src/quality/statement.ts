import { quoteIdent } from '../warehouse/db.js';
import {
  DETAIL_ROWS_PER_PART,
  type QualityCheck,
  type QualityScope,
  type QualitySettings,
} from './checks.js';

/** The lookback horizon when none is configured (SYNC_LOOKBACK_DAYS, docs/configuration.md). */
const DEFAULT_LOOKBACK_DAYS = 35;
/** The zone of companies no setting names (API_TIMEZONE's default). */
const DEFAULT_TIME_ZONE = 'America/Sao_Paulo';

/** The conjunction of the predicates given (`true` without any). */
const and = (...predicates: (string | false)[]) => predicates.filter(Boolean).join(' AND ') || 'true';

/**
 * A check's statement under construction, with what every check shares (pure): its parameters, the
 * warehouse's qualified tables, the filters of a run's scope (company, date range widened to whole
 * months where parts are months, resources) and each company's calendar day in its own time zone
 * (spec 1.2; COMPANY_TIMEZONES).
 */
export class CheckStatement {
  /** Values of the `$n` placeholders, in order. */
  readonly values: unknown[] = [];
  readonly #memo = new Map<string, string>();

  constructor(
    private readonly schema: string,
    private readonly scope: QualityScope,
    private readonly settings: QualitySettings,
  ) {}

  /** A placeholder for `value`, cast to `type`; the same value and type share one placeholder. */
  param(value: unknown, type: string): string {
    const key = `${type}:${JSON.stringify(value)}`;
    let placeholder = this.#memo.get(key);
    if (!placeholder) {
      this.values.push(value);
      placeholder = `$${this.values.length}::${type}`;
      this.#memo.set(key, placeholder);
    }
    return placeholder;
  }

  /** A warehouse table or view, qualified with the schema. */
  table(name: string): string {
    return `${quoteIdent(this.schema)}.${quoteIdent(name)}`;
  }

  /** A text literal as a parameter. */
  text(value: string): string {
    return this.param(value, 'text');
  }

  /** The predicate "column is the scope's company" (true without one). */
  company(column: string): string {
    return this.scope.company === undefined ? 'true' : `${column} = ${this.text(this.scope.company)}`;
  }

  /** The predicate "column is one of the scope's resources" (true without a list). */
  resources(column: string): string {
    const r = this.scope.resources;
    return r === undefined ? 'true' : `${column} = ANY(${this.param(r, 'text[]')})`;
  }

  /** True when the scope names this resource, or names none. */
  includesResource(resource: string): boolean {
    return this.scope.resources === undefined || this.scope.resources.includes(resource);
  }

  /** The scope's first day, or null without one. */
  get from(): string | null {
    return this.scope.from === undefined ? null : this.param(this.scope.from, 'date');
  }

  /** The scope's last day, or null without one. */
  get to(): string | null {
    return this.scope.to === undefined ? null : this.param(this.scope.to, 'date');
  }

  /** The predicate "the period [start, end] overlaps the scope's range". */
  overlaps(start: string, end: string): string {
    return and(this.to !== null && `${start} <= ${this.to}`, this.from !== null && `${end} >= ${this.from}`);
  }

  /** The first day of the month of a date expression (on timestamp: without a time zone to look up, for every row). */
  month(date: string): string {
    return `date_trunc('month', ${date}::timestamp)::date`;
  }

  /** The predicate "the date column lies in the months the scope's range touches" (parts are whole months). */
  inMonths(column: string): string {
    return and(
      this.from !== null && `${column} >= ${this.month(this.from)}`,
      this.to !== null && `${column} < (${this.month(this.to)} + interval '1 month')::date`,
    );
  }

  /** The calendar day of the company in `column` today, in its own time zone. */
  today(column: string): string {
    const zones = this.param(JSON.stringify(this.settings.timeZones ?? {}), 'jsonb');
    const fallback = this.text(this.settings.defaultTimeZone ?? DEFAULT_TIME_ZONE);
    const now = this.param((this.settings.now ?? new Date()).toISOString(), 'timestamptz');
    return `(${now} AT TIME ZONE coalesce(${zones} ->> ${column}, ${fallback}))::date`;
  }

  /** The first day of the company in `column` that the source may still change (docs/architecture.md "The lookback horizon"). */
  horizon(column: string): string {
    return `(${this.today(column)} - ${this.param(this.settings.lookbackDays ?? DEFAULT_LOOKBACK_DAYS, 'int4')})`;
  }

  /** Most detail rows per part. */
  get detailLimit(): string {
    return this.param(DETAIL_ROWS_PER_PART, 'int4');
  }
}

/** The columns every check's SELECT returns, in order: what `quality_checks` takes. */
export const FINDING_COLUMNS = [
  'check_name',
  'company_cnpj',
  'part',
  'scope',
  'cpf',
  'measure',
  'expected',
  'actual',
  'tolerance',
  'status',
  'detail',
] as const;

/** The SELECT of the findings of `checks` (those of them the builder computes), built on a statement; empty when none. */
export type CheckBuilder = (s: CheckStatement, checks: readonly QualityCheck[]) => string;

/** `seconds` as `[-]H:MM:SS` in SQL, for details (hours may exceed 99, spec 1.2). */
export function hms(seconds: string): string {
  const a = `abs(${seconds})`;
  return (
    `(CASE WHEN ${seconds} < 0 THEN '-' ELSE '' END || (${a} / 3600)::text || ':' || ` +
    `lpad((${a} % 3600 / 60)::text, 2, '0') || ':' || lpad((${a} % 60)::text, 2, '0'))`
  );
}

/** The SQL name of a check, as a literal (check names are a closed set of plain words). */
export function checkName(check: QualityCheck): string {
  return `'${check}'::text`;
}
