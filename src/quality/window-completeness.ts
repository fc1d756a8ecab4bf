import { CATALOG, RESOURCES } from '../resources/index.js';
import type { MissingMode, TableSpec } from '../warehouse/table-spec.js';
import { checkName, type CheckBuilder, type CheckStatement } from './statement.js';

/** Rows that count as present, by what a missing row becomes. */
const LIVE: Readonly<Record<MissingMode, string>> = {
  'soft-delete': 't.deleted_at IS NULL',
  deactivate: 't.active',
  delete: 'true',
};

/** A table whose rows of one window a predicate can name. */
interface WindowTable {
  readonly resource: string;
  readonly spec: TableSpec & { readonly missing: NonNullable<TableSpec['missing']> };
}

/** Tables of the resources read per window (month or day) with a reconciliation rule; item reads have no window predicate. */
function windowTables(): WindowTable[] {
  return RESOURCES.flatMap((resource) => {
    const declaration = CATALOG[resource];
    if (declaration.read !== 'month' && declaration.read !== 'day') return [];
    return Object.values(declaration.tables)
      .filter((spec): spec is WindowTable['spec'] => spec.missing !== undefined)
      .map((spec) => ({ resource, spec }));
  });
}

/** The live rows of the window of `window_loads` row `w`, as a subquery: the rule given `w`'s columns. */
function liveRows(s: CheckStatement, { spec }: WindowTable): string {
  const rows = spec.missing.windowRows ?? spec.missing.where;
  const predicate = rows(
    (column) => String(column),
    { company: 'w.company_cnpj', from: 'w.window_start', to: 'w.window_end' },
    (name) => s.table(name),
  );
  return `(SELECT count(*) FROM ${s.table(spec.table)} t WHERE (${predicate}) AND ${LIVE[spec.missing.mode]})`;
}

/**
 * The completeness findings (pure builder), one row per completed window and table: the rows the answer
 * held (`window_loads.received`, records rejected as unstorable left out) against the live rows the
 * warehouse holds for that window now. A load records what it received in its own transaction, so right
 * after it the two agree; a row deleted, added or moved by anything but a load of that window shows as
 * a difference. "The rows of a window" is the predicate reconciliation applies (each table's missing
 * rule in src/resources/), so the check and the load never disagree on what a window holds. A window a
 * later load re-read in part is checked through that later load.
 */
export const windowCompleteness: CheckBuilder = (s) => {
  const tables = windowTables().filter((t) => s.includesResource(t.resource));
  if (tables.length === 0) return '';
  const counted = tables
    .map(
      (t) =>
        `SELECT w.*, CASE WHEN w.newer IS NULL THEN ${liveRows(s, t)} END AS live FROM latest w ` +
        `WHERE w.resource = ${s.text(t.resource)} AND w.table_name = ${s.text(t.spec.table)}`,
    )
    .join('\n    UNION ALL\n    ');
  const loads = s.table('window_loads');
  return `
  WITH latest AS (
    SELECT w.company_cnpj, w.resource, w.table_name, w.window_start, w.window_end, w.received, w.rejected, w.loaded_at,
           (SELECT n.window_start || '..' || n.window_end FROM ${loads} n
             WHERE n.company_cnpj = w.company_cnpj AND n.resource = w.resource AND n.table_name = w.table_name
               AND n.loaded_at > w.loaded_at AND n.window_start <= w.window_end AND n.window_end >= w.window_start
             ORDER BY n.loaded_at DESC LIMIT 1) AS newer
      FROM (SELECT DISTINCT ON (company_cnpj, resource, table_name, window_start, window_end) *
              FROM ${loads}
             WHERE ${s.company('company_cnpj')} AND ${s.resources('resource')} AND ${s.overlaps('window_start', 'window_end')}
             ORDER BY company_cnpj, resource, table_name, window_start, window_end, loaded_at DESC) w
  ), counted AS (
    ${counted}
  )
  SELECT ${checkName('window_completeness')}, company_cnpj, resource || ' ' || window_start || '..' || window_end, table_name, NULL::text, 'rows',
         received::bigint, live,  0::bigint,
         CASE WHEN newer IS NOT NULL OR live = received THEN 'ok' WHEN rejected > 0 THEN 'warn' ELSE 'fail' END,
         CASE
           WHEN newer IS NOT NULL THEN 'not compared: a later load (' || newer || ') re-read some of its days, and is checked instead'
           WHEN live = received THEN NULL
           WHEN rejected > 0 THEN rejected || ' record(s) of the answer were rejected (rejected_records): the rows of their collaborators are kept as they were'
           WHEN live < received THEN (received - live) || ' row(s) the answer held are no longer live: deleted or changed outside this window''s load (by hand, or by a later load of another window); re-read the window'
           ELSE (live - received) || ' live row(s) the answer did not hold: added or restored outside this window''s load; re-read the window'
         END
    FROM counted`;
};
