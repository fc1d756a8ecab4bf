import type { QualityCheck } from '../resources/declaration.js';

export { QUALITY_CHECKS, type QualityCheck } from '../resources/declaration.js';

/** Outcomes of a check, from best to worst. */
export const QUALITY_STATUSES = ['ok', 'warn', 'fail'] as const;
/** One of {@link QUALITY_STATUSES}. */
export type QualityStatus = (typeof QUALITY_STATUSES)[number];

/** The worse of two outcomes. */
export function worse(a: QualityStatus, b: QualityStatus): QualityStatus {
  return QUALITY_STATUSES.indexOf(a) >= QUALITY_STATUSES.indexOf(b) ? a : b;
}

/** What one run of the checks covers; every field narrows it. */
export interface QualityScope {
  /** First and last day checked (`YYYY-MM-DD`, inclusive); parts overlapping the range are checked whole. */
  readonly from?: string;
  readonly to?: string;
  /** Only this company (CNPJ). */
  readonly company?: string;
  /** Only these resources (completeness, coverage and the unknown-collaborator tables they write); default all. */
  readonly resources?: readonly string[];
  readonly checks?: readonly QualityCheck[];
}

/** Settings that do not narrow a run but shape its verdicts. */
export interface QualitySettings {
  /** IANA zone of a company's calendar day (COMPANY_TIMEZONES), by CNPJ; others use `defaultTimeZone`. */
  readonly timeZones?: Readonly<Record<string, string>>;
  /** Zone of companies `timeZones` does not name (API_TIMEZONE). Default America/Sao_Paulo. */
  readonly defaultTimeZone?: string;
  /** SYNC_LOOKBACK_DAYS: periods reaching into the horizon are not compared across endpoints. Default 35. */
  readonly lookbackDays?: number;
  /** The sync run the checks follow (`quality_checks.run_id`). */
  readonly runId?: number;
  /** Clock of the horizon and of "today" (tests). */
  readonly now?: Date;
}

/**
 * One row a run wrote to `quality_checks`: the outcome of a check
 * (docs/warehouse.md "Reconciliation checks") for one scope of one part. Each check is one set-based
 * statement (the builders next to this file) that never changes data; a resource's declaration
 * (src/resources/declaration.ts) names those following its windows.
 */
export interface QualityFinding {
  readonly check: QualityCheck;
  readonly company: string;
  /** The part of the warehouse the run examined as a whole, and what the row is about within it. */
  readonly part: string;
  readonly scope: string;
  /** CPF of the collaborator the scope is about, when it is one. */
  readonly cpf: string | null;
  /** Unit of the figures: rows, seconds, days or findings. */
  readonly measure: string;
  readonly expected: number | null;
  readonly actual: number | null;
  /** actual − expected. */
  readonly difference: number | null;
  readonly tolerance: number;
  readonly status: QualityStatus;
  readonly detail: string | null;
}

/** Most rows about single collaborators, days or gaps one run writes per part (the part's `all` row counts them all). */
export const DETAIL_ROWS_PER_PART = 1000;
