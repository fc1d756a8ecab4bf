/**
 * Marts defined as modules: a table (or set of tables) derived from the warehouse's own
 * tables, rebuilt for one company over a span of days. Each module names what it reads
 * and writes, so the runner can order them and know which loads make them due
 * (docs/warehouse.md "Marts").
 *
 * A module's `refresh` is idempotent: run twice over the same span it leaves the same
 * rows. It may read outside the span (the day before, the rest of a month) and may widen
 * what it rewrites to whole units of its own grain (a month), but it only writes rows of
 * `scope.company`.
 */
import type { MergeClient } from '../warehouse/merge.js';

/** What one refresh covers. */
export interface MartScope {
  /** Warehouse schema. */
  readonly schema: string;
  /** The company (`companies.cnpj`). */
  readonly company: string;
  /** IANA zone of the company (spec 1.2): how its instants fall on days. */
  readonly zone: string;
  /** The company's today (`YYYY-MM-DD`) by the sync's clock: days before it are over. */
  readonly today: string;
  /** First day whose inputs may have changed (`YYYY-MM-DD`, inclusive). */
  readonly from: string;
  /** Last day whose inputs may have changed (`YYYY-MM-DD`, inclusive). */
  readonly to: string;
}

/** One mart module. */
export interface MartModule {
  /** Name of the mart (its main table), for logs, timing spans and status. */
  readonly name: string;
  /** Tables and marts it reads. */
  readonly reads: readonly string[];
  /** Tables it writes. */
  readonly writes: readonly string[];
  /** Rewrites its rows of `scope` from the tables it reads; returns the rows written or deleted. */
  refresh(client: MergeClient, scope: MartScope): Promise<number>;
}
