/**
 * How one warehouse table is loaded: natural key, the columns a load sends with their
 * types, and what a row of the scope missing from a complete answer means. Resource
 * declarations (src/resources/) name these; staging and the merge statements read them.
 */

/** Column types a load sends (Postgres type names; `[]` for arrays). */
export type SqlType =
  | 'int4'
  | 'int8'
  | 'float8'
  | 'text'
  | 'bool'
  | 'date'
  | 'timestamp'
  | 'timestamptz'
  | 'time'
  | 'bytea'
  | 'text[]'
  | 'time[]';

/** What happens to a row of the load's scope that the answer no longer holds. */
export type MissingMode = 'soft-delete' | 'delete' | 'deactivate';

/** Registers a query parameter and returns its placeholder (`$n`). */
export type Param = (value: unknown) => string;

/** The company and window a load covers; reconciliation never reaches outside it. */
export interface LoadScope {
  /** CNPJ of the company loaded (absent for group-level loads). */
  readonly company?: string;
  /** First and last day (inclusive) of the window, `YYYY-MM-DD` (windowed loads). */
  readonly from?: string;
  readonly to?: string;
  /** The items asked for, for loads of items (attachments of these absences). */
  readonly items?: readonly number[];
  /** Rows reconciliation must leave alone: those of records the load rejected. */
  readonly protect?: Protection;
}

/**
 * What a load's rejected records stand for, so their rows are never taken for deleted: their
 * CPFs, key values (the declaration's `recordId`, e.g. `point_id`), or all when they told neither.
 */
export interface Protection {
  /** Skip reconciliation altogether. */
  readonly all: boolean;
  /** CPFs whose rows stay as they are (tables with a `cpf` column). */
  readonly cpfs: readonly string[];
  /** Key values whose rows stay, by key column (tables whose key has that column). */
  readonly ids: Readonly<Record<string, readonly number[]>>;
}

/** What to do with rows of the scope that the loaded set lacks. */
export interface MissingRule {
  /** Soft-delete (`deleted_at`), delete, or deactivate (`active = false`). */
  readonly mode: MissingMode;
  /** The rows of the scope: an SQL predicate on table `t`; `table` qualifies another table it reads. */
  readonly where: (param: Param, scope: LoadScope, table: (name: string) => string) => string;
  /**
   * The rows one window holds when `where` reads more (the stages): what the completeness
   * check counts (docs/warehouse.md "Reconciliation checks"); default `where`. A load with
   * such a rule is always merged, never copied straight in.
   */
  readonly windowRows?: (param: Param, scope: LoadScope, table: (name: string) => string) => string;
}

/** How one table is loaded. */
export interface TableSpec {
  readonly table: string;
  /** Natural key: the primary key or a unique constraint, the conflict target. */
  readonly key: readonly string[];
  /** Columns a load sends, key included, in the order rows are written; with their types. */
  readonly columns: Readonly<Record<string, SqlType>>;
  /** Columns set to an SQL expression on insert and update, e.g. `{ active: 'true' }`. */
  readonly fixed?: Readonly<Record<string, string>>;
  /** The table has `deleted_at`: an upserted row loses it (it came back). */
  readonly softDelete?: boolean;
  /** `nothing` never changes an existing row (insert-only). Default `update`. */
  readonly onConflict?: 'update' | 'nothing';
  /** With `update`: an SQL condition on `t` and `excluded` that must also hold for a row to be rewritten. */
  readonly updateWhen?: string;
  /** Reconciliation of a complete answer; absent when missing rows are kept. */
  readonly missing?: MissingRule;
  /** Columns whose stored value a null does not replace (a load that cannot know them). */
  readonly keepOnNull?: readonly string[];
  /** How other tables name a row (docs/warehouse.md ER diagram): columns standing for the key's first. */
  readonly referredBy?: readonly (readonly string[])[];
}

/** Column names of a spec, in order. */
export const columnNames = (spec: TableSpec): string[] => Object.keys(spec.columns);

/** The rows of the company's window, on a date column: `company_cnpj` and `column` between `from` and `to`. */
export function inWindow(column: string): MissingRule['where'] {
  return (p, s) =>
    `t.company_cnpj = ${p(s.company)} AND t.${column} BETWEEN ${p(s.from)}::date AND ${p(s.to)}::date`;
}

/** The rows of the company whose period `[start, end]` overlaps the window. */
export function overlapping(start: string, end: string): MissingRule['where'] {
  return (p, s) =>
    `t.company_cnpj = ${p(s.company)} AND t.${start} <= ${p(s.to)}::date AND t.${end} >= ${p(s.from)}::date`;
}

/** Every row of the company (lists without a window: collaborators, lookups). */
export const wholeCompany: MissingRule['where'] = (p, s) => `t.company_cnpj = ${p(s.company)}`;
