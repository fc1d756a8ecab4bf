/**
 * The `clt_daily` mart (docs/warehouse.md "Labour-law marts"): per collaborator record and work day
 * with punches, what Brazil's labour law asks of the day — rest before it (CLT art. 66), breaks
 * (art. 71, art. 74 §2), overtime and the 10-hour cap (art. 59, tolerance of art. 58 §1), night work
 * (art. 73), days in a row (Lei 605/1949) and holiday work. One set-based upsert and one prune per
 * company and span (pure builders here, run by the module).
 */
import { addDays } from '../util/time.js';
import { quoteIdent } from '../warehouse/db.js';
import type { BuiltQuery } from '../warehouse/merge-statement.js';
import type { MartModule, MartScope } from './module.js';
import { MART_INPUTS } from './inputs.js';

/** How many days before a day the rest before it and its run of days look back (the run counts up to one more). */
export const CLT_LOOKBACK_DAYS = 14;

const H = 3600;
/** CLT art. 66: rest between two days. */
const MIN_REST = 11 * H;
/** CLT art. 71: the break of a day above 6 hours, and of a day above 4. */
const LONG_DAY = 6 * H;
const LONG_BREAK = H;
const SHORT_DAY = 4 * H;
const SHORT_BREAK = 15 * 60;
/** CLT art. 59: overtime a day; §2: the day's cap. */
const OVERTIME_LIMIT = 2 * H;
const DAY_CAP = 10 * H;
/** CLT art. 58 §1: a day's variation of up to 10 minutes is no overtime; a mark's of up to 5 breaks no limit. */
const DAY_TOLERANCE = 10 * 60;
const MARK_TOLERANCE = 5 * 60;
/** Lei 605/1949, TST OJ 410: the seventh day in a row. */
const SEVENTH_DAY = 7;

const T = (schema: string, table: string) => `${quoteIdent(schema)}.${quoteIdent(table)}`;

/**
 * The holidays the marts judge work against: `(day, name)` of the company in `$1`. The national
 * calendar today; a company calendar replaces it here, and only here.
 */
export function cltHolidays(schema: string): string {
  return `SELECT c.calendar_date AS day, c.holiday_name AS name FROM ${T(schema, 'calendar')} c WHERE c.is_holiday`;
}

/**
 * The days a refresh of `scope` may rewrite (`from`..`to`), the first day it reads, and the last day of
 * the span itself (`last`): past it, only a record's days whose rest or run of days reach into the span.
 */
export function cltSpan(scope: Pick<MartScope, 'from' | 'to'>): {
  read: string;
  from: string;
  to: string;
  last: string;
} {
  // A day's rest and run of days look back CLT_LOOKBACK_DAYS + 1 days: later days change with the span's.
  return {
    read: addDays(scope.from, -(CLT_LOOKBACK_DAYS + 1)),
    from: scope.from,
    to: addDays(scope.to, CLT_LOOKBACK_DAYS + 1),
    last: scope.to,
  };
}

/** Scheduled seconds of a shift text: the sum of the `HH:MM-HH:MM` intervals it names (across midnight too). */
const scheduled = (shift: string) =>
  `(SELECT coalesce(sum(((m[3]::int * 60 + m[4]::int) - (m[1]::int * 60 + m[2]::int) + 1440) % 1440), 0)::int * 60
      FROM regexp_matches(${shift}, '([0-9]{1,2}):([0-5][0-9]) *- *([0-9]{1,2}):([0-5][0-9])', 'g') AS m)`;

/** Night seconds (22:00 to 05:00, CLT art. 73 §2) from 2000-01-01 to the local time `t`: 7 hours a whole day, and the day's own. */
const nightsTo = (t: string) => {
  const sod = `extract(epoch FROM ${t}::time)`;
  return `((${t}::date - date '2000-01-01') * ${7 * H} + least(${sod}, ${5 * H}) + greatest(${sod} - ${22 * H}, 0))`;
};

/**
 * Seconds of the local interval [a, b) between 22:00 and 05:00 of any night (CLT art. 73 §2), in closed
 * form: no subquery, so the statement's cost stays small (and Postgres does not compile it).
 */
const nightOf = (a: string, b: string) => `(${nightsTo(b)} - ${nightsTo(a)})`;

/**
 * The rows of `clt_daily` for company `$1` that may change with the days `$3`..`$5`: those days, and the
 * days up to `$4` whose rest or run reaches into them; from the punches of `$2`..`$4` (pure).
 */
function computed(schema: string): string {
  return `WITH p AS (
  SELECT p.cpf, p.collaborator_record, p.work_date, p.punched_at_local AS t, p.punched_at AS at, p.origin, p.is_adjusted,
         row_number() OVER w AS n, lead(p.punched_at_local) OVER w AS t1, lead(p.punched_at_local, 2) OVER w AS t2
    FROM ${T(schema, MART_INPUTS.punch)} p
   WHERE p.company_cnpj = $1 AND p.work_date BETWEEN $2::date AND $4::date AND p.deleted_at IS NULL
  WINDOW w AS (PARTITION BY p.cpf, p.collaborator_record, p.work_date ORDER BY p.punched_at_local, p.point_id)
), pairs AS (
  SELECT p.*, CASE WHEN n % 2 = 1 AND t1 IS NOT NULL THEN ${nightOf('t', 't1')} END AS night FROM p
), days AS (
  SELECT cpf, collaborator_record, work_date,
         min(t) AS first_local, max(t) AS last_local, min(at) AS first_at, max(at) AS last_at, count(*)::int AS punch_count,
         coalesce(sum(extract(epoch FROM t1 - t)) FILTER (WHERE n % 2 = 1 AND t1 IS NOT NULL), 0)::int AS worked,
         coalesce(max(extract(epoch FROM t1 - t)) FILTER (WHERE n % 2 = 0 AND t2 IS NOT NULL), 0)::int AS longest_break,
         coalesce(sum(night), 0)::int AS night,
         count(*) FILTER (WHERE origin = 'Manual')::int AS manual, count(*) FILTER (WHERE is_adjusted)::int AS adjusted
    FROM pairs GROUP BY cpf, collaborator_record, work_date
), runs AS (
  SELECT d.*, lag(d.work_date) OVER r AS prev_date, lag(d.last_at) OVER r AS prev_last_at,
         d.work_date - (row_number() OVER r)::int AS island
    FROM days d
  WINDOW r AS (PARTITION BY d.cpf, d.collaborator_record ORDER BY d.work_date)
), changed AS (
  -- Past the span's last day $5, a day changes with the span only through its rest (the first day after
  -- it: the day before is in the span, or gone) or its run of days (a run that reaches the day after $5);
  -- the others are neither judged nor compared.
  SELECT q.* FROM (
    SELECT r.*, min(r.work_date) OVER (PARTITION BY r.cpf, r.collaborator_record, r.island) AS island_from FROM runs r) q
   WHERE q.work_date BETWEEN $3::date AND $5::date
      OR (q.work_date BETWEEN $5::date + 1 AND $4::date AND (coalesce(q.prev_date <= $5::date, true) OR q.island_from <= $5::date + 1))
), shifts AS MATERIALIZED (
  -- A company has few distinct shift texts: each is parsed once (materialized: never again per row).
  SELECT x.shift, ${scheduled('x.shift')} AS scheduled
    FROM (SELECT DISTINCT w.shift FROM ${T(schema, MART_INPUTS.day)} w
           WHERE w.company_cnpj = $1 AND w.work_date BETWEEN $3::date AND $4::date AND w.shift IS NOT NULL) x
), judged AS (
  SELECT r.*, w.shift, s.scheduled, h.name AS holiday_name,
         coalesce(e.department, c.department, '') AS department,
         CASE WHEN r.prev_date >= r.work_date - ${CLT_LOOKBACK_DAYS + 1} THEN extract(epoch FROM r.first_at - r.prev_last_at)::int END AS rest,
         CASE WHEN r.worked > ${LONG_DAY} THEN ${LONG_BREAK} WHEN r.worked > ${SHORT_DAY} THEN ${SHORT_BREAK} ELSE 0 END AS required,
         CASE WHEN s.scheduled IS NULL THEN NULL WHEN r.worked - s.scheduled > ${DAY_TOLERANCE} THEN r.worked - s.scheduled ELSE 0 END AS overtime,
         r.work_date - greatest(r.island_from, r.work_date - ${CLT_LOOKBACK_DAYS}) + 1 AS run
    FROM changed r
    LEFT JOIN ${T(schema, MART_INPUTS.day)} w
      ON w.company_cnpj = $1 AND w.work_date = r.work_date AND w.cpf = r.cpf AND w.collaborator_record = r.collaborator_record AND w.deleted_at IS NULL
    LEFT JOIN ${T(schema, 'employee_daily')} e
      ON e.company_cnpj = $1 AND e.work_date = r.work_date AND e.cpf = r.cpf AND e.collaborator_record = r.collaborator_record
    LEFT JOIN ${T(schema, MART_INPUTS.person)} c
      ON c.company_cnpj = $1 AND c.cpf = r.cpf AND c.collaborator_record = r.collaborator_record
    LEFT JOIN (${cltHolidays(schema)}) h ON h.day = r.work_date
    LEFT JOIN shifts s ON s.shift = w.shift
)
SELECT $1::text AS company_cnpj, j.cpf, j.collaborator_record, j.work_date, j.department, j.shift,
       j.first_local AS first_punch_local, j.last_local AS last_punch_local, j.first_at AS first_punch_at, j.last_at AS last_punch_at,
       j.punch_count, j.worked AS worked_seconds, j.scheduled AS scheduled_seconds,
       j.rest AS rest_before_seconds, f.short_rest,
       j.longest_break AS longest_break_seconds, j.required AS break_required_seconds, f.short_break, f.break_not_punched,
       j.overtime AS overtime_seconds, f.overtime_over_2h, f.day_over_10h,
       j.night AS night_seconds, round(j.night * 8 / 7.0)::int AS night_reduced_seconds,
       j.run AS consecutive_days_worked, f.seventh_day_worked, f.worked_on_holiday, j.holiday_name,
       j.manual AS manual_punches, j.adjusted AS adjusted_punches,
       (f.short_rest::int + f.short_break::int + f.overtime_over_2h::int + f.day_over_10h::int + f.seventh_day_worked::int + f.worked_on_holiday::int) AS findings
  FROM judged j
 CROSS JOIN LATERAL (SELECT
       coalesce(j.rest < ${MIN_REST}, false) AS short_rest,
       j.required > 0 AND j.longest_break > 0 AND j.longest_break < j.required AS short_break,
       j.required > 0 AND j.longest_break = 0 AS break_not_punched,
       coalesce(j.scheduled > 0 AND j.overtime > ${OVERTIME_LIMIT + MARK_TOLERANCE}, false) AS overtime_over_2h,
       j.worked > ${DAY_CAP + MARK_TOLERANCE} AS day_over_10h,
       j.run >= ${SEVENTH_DAY} AS seventh_day_worked,
       j.holiday_name IS NOT NULL AS worked_on_holiday) f
`;
}

/** The columns of `clt_daily` a refresh writes, in order. */
const COLUMNS = [
  'company_cnpj',
  'cpf',
  'collaborator_record',
  'work_date',
  'department',
  'shift',
  'first_punch_local',
  'last_punch_local',
  'first_punch_at',
  'last_punch_at',
  'punch_count',
  'worked_seconds',
  'scheduled_seconds',
  'rest_before_seconds',
  'short_rest',
  'longest_break_seconds',
  'break_required_seconds',
  'short_break',
  'break_not_punched',
  'overtime_seconds',
  'overtime_over_2h',
  'day_over_10h',
  'night_seconds',
  'night_reduced_seconds',
  'consecutive_days_worked',
  'seventh_day_worked',
  'worked_on_holiday',
  'holiday_name',
  'manual_punches',
  'adjusted_punches',
  'findings',
] as const;
const KEY = ['company_cnpj', 'work_date', 'cpf', 'collaborator_record'];

/**
 * Rewrites company `company`'s `clt_daily` rows of the days `span.from`..`span.last`, and of the later
 * days up to `span.to` whose rest or run reaches into them (pure builder): one statement upserts the
 * days with punches (a row that did not change keeps its `synced_at`) and removes the rows of span days
 * that no longer have any (a later day's punches are not the span's); returns how many rows it wrote or
 * removed.
 */
export function buildCltDailyRefresh(
  schema: string,
  company: string,
  span: { read: string; from: string; to: string; last: string },
): BuiltQuery {
  const table = T(schema, 'clt_daily');
  const values = COLUMNS.filter((c) => !KEY.includes(c));
  return {
    text: `WITH fresh AS (
${computed(schema)}
), written AS (
  INSERT INTO ${table} AS x (${COLUMNS.join(', ')})
  SELECT ${COLUMNS.join(', ')} FROM fresh
  ON CONFLICT (${KEY.join(', ')}) DO UPDATE
     SET ${values.map((c) => `${c} = excluded.${c}`).join(', ')}, synced_at = now()
   WHERE (${values.map((c) => `x.${c}`).join(', ')}) IS DISTINCT FROM (${values.map((c) => `excluded.${c}`).join(', ')})
  RETURNING 1
), pruned AS (
  DELETE FROM ${table} x
   WHERE x.company_cnpj = $1 AND x.work_date BETWEEN $3::date AND $5::date
     AND NOT EXISTS (SELECT 1 FROM fresh f WHERE f.work_date = x.work_date AND f.cpf = x.cpf AND f.collaborator_record = x.collaborator_record)
  RETURNING 1
)
SELECT ((SELECT count(*) FROM written) + (SELECT count(*) FROM pruned))::int AS n`,
    values: [company, span.read, span.from, span.to, span.last],
  };
}

/** `clt_daily`: the labour-law findings of each record day with punches. */
export const cltDailyModule: MartModule = {
  name: 'clt_daily',
  reads: [MART_INPUTS.punch, MART_INPUTS.day, 'employee_daily', MART_INPUTS.person, 'calendar'],
  writes: ['clt_daily'],
  async refresh(client, scope) {
    const q = buildCltDailyRefresh(scope.schema, scope.company, cltSpan(scope));
    const { rows } = await client.query<{ n: number }>(q.text, q.values);
    return rows[0]?.n ?? 0;
  },
};
