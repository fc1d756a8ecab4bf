/**
 * The `clt_monthly` mart (docs/warehouse.md "Labour-law marts"): the findings of `clt_daily` per
 * company, department (as of each day) and month — for each kind, the days, the people affected and
 * the rate per 100 worked days. Rewritten whole months at a time, from `clt_daily` alone.
 */
import { quoteIdent } from '../warehouse/db.js';
import type { BuiltQuery } from '../warehouse/merge-statement.js';
import { cltSpan } from './clt-daily.js';
import type { MartModule } from './module.js';

/** The kinds of finding clt_monthly counts, with the `clt_daily` condition of each. */
export const CLT_FINDING_KINDS = [
  ['short_rest', 'short_rest'],
  ['short_break', 'short_break'],
  ['break_not_punched', 'break_not_punched'],
  ['overtime_over_2h', 'overtime_over_2h'],
  ['day_over_10h', 'day_over_10h'],
  ['night_work', 'night_seconds > 0'],
  ['seventh_day', 'seventh_day_worked'],
  ['holiday_work', 'worked_on_holiday'],
] as const;

const T = (schema: string, table: string) => `${quoteIdent(schema)}.${quoteIdent(table)}`;

/** Rewrites company `company`'s `clt_monthly` rows of the months from `from`'s to `to`'s (pure builder). */
export function buildCltMonthlyRefresh(
  schema: string,
  company: string,
  from: string,
  to: string,
): BuiltQuery {
  const measures = CLT_FINDING_KINDS.flatMap(([kind, condition]) => [
    [`${kind}_days`, `count(*) FILTER (WHERE ${condition})::int`],
    [`${kind}_people`, `count(DISTINCT (d.cpf, d.collaborator_record)) FILTER (WHERE ${condition})::int`],
    [`${kind}_rate`, `round(100.0 * count(*) FILTER (WHERE ${condition}) / count(*), 2)`],
  ]);
  const columns = ['worked_days', 'people', ...measures.map(([c]) => c)];
  const table = T(schema, 'clt_monthly');
  return {
    text: `WITH fresh AS (
  SELECT d.company_cnpj, d.department, date_trunc('month', d.work_date)::date AS month,
         count(*)::int AS worked_days, count(DISTINCT (d.cpf, d.collaborator_record))::int AS people,
         ${measures.map(([c, e]) => `${e} AS ${c}`).join(',\n         ')}
    FROM ${T(schema, 'clt_daily')} d
   WHERE d.company_cnpj = $1 AND d.work_date >= date_trunc('month', $2::date)::date
     AND d.work_date < (date_trunc('month', $3::date) + interval '1 month')::date
   GROUP BY d.company_cnpj, d.department, 3
), written AS (
  INSERT INTO ${table} AS x (company_cnpj, department, month, ${columns.join(', ')})
  SELECT company_cnpj, department, month, ${columns.join(', ')} FROM fresh
  ON CONFLICT (company_cnpj, department, month) DO UPDATE
     SET ${columns.map((c) => `${c} = excluded.${c}`).join(', ')}, synced_at = now()
   WHERE (${columns.map((c) => `x.${c}`).join(', ')}) IS DISTINCT FROM (${columns.map((c) => `excluded.${c}`).join(', ')})
  RETURNING 1
), pruned AS (
  DELETE FROM ${table} x
   WHERE x.company_cnpj = $1 AND x.month BETWEEN date_trunc('month', $2::date)::date AND date_trunc('month', $3::date)::date
     AND NOT EXISTS (SELECT 1 FROM fresh f WHERE f.department = x.department AND f.month = x.month)
  RETURNING 1
)
SELECT ((SELECT count(*) FROM written) + (SELECT count(*) FROM pruned))::int AS n`,
    values: [company, from, to],
  };
}

/** `clt_monthly`: the findings per company, department and month (after `clt_daily`). */
export const cltMonthlyModule: MartModule = {
  name: 'clt_monthly',
  reads: ['clt_daily'],
  writes: ['clt_monthly'],
  async refresh(client, scope) {
    // The months of every day clt_daily rewrote.
    const span = cltSpan(scope);
    const q = buildCltMonthlyRefresh(scope.schema, scope.company, span.from, span.to);
    const { rows } = await client.query<{ n: number }>(q.text, q.values);
    return rows[0]?.n ?? 0;
  },
};
