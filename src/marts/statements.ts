/**
 * The statements that keep the marts current (pure builders; docs/warehouse.md "Marts"):
 * employment records from the collaborator list and the period data, the day grain
 * (`employee_daily`) of the days a window covers, and absences expanded to days (the
 * monthly headcount is a mart module: monthly-headcount.ts). Each rewrites exactly the rows its inputs
 * decide, so running it twice changes nothing.
 */
import { quoteIdent } from '../warehouse/db.js';
import type { BuiltQuery } from '../warehouse/merge-statement.js';
import { MART_INPUTS } from './inputs.js';

/** Collaborator records, as parallel arrays (CPFs and their `collaborator_record`). */
export interface RecordKeys {
  readonly cpfs: readonly string[];
  readonly records: readonly string[];
}

/** The days the warehouse holds a company's period data for: the windows of this table loaded whole. */
const COVERAGE_TABLE = MART_INPUTS.day;

/** A shift that names clock times is a work day (as daily_attendance.is_scheduled). */
const SCHEDULED = `~ '[0-9]:[0-5][0-9]'`;

const T = (schema: string, table: string) => `${quoteIdent(schema)}.${quoteIdent(table)}`;

/** The company's local date of an instant column, with the zone in `$2`. */
const localDate = (expr: string) => `(${expr} AT TIME ZONE $2)::date`;

/**
 * Gives every collaborator record of company `$1` its employment row (zone `$2`), and
 * the admission and registration its collaborators row holds now.
 */
export function buildRegisterRecords(schema: string, company: string, zone: string): BuiltQuery {
  return {
    text: `INSERT INTO ${T(schema, 'employments')} AS e (company_cnpj, cpf, collaborator_record, admission_date, registration_number, employed_from,
  employed_from_source, first_seen_at)
SELECT c.company_cnpj, c.cpf, c.collaborator_record, c.admission_date, c.registration_number,
       coalesce(c.admission_date, ${localDate('c.first_seen_at')}),
       CASE WHEN c.admission_date IS NOT NULL THEN 'admission' ELSE 'first_seen' END, c.first_seen_at
  FROM ${T(schema, MART_INPUTS.person)} c WHERE c.company_cnpj = $1
ON CONFLICT (company_cnpj, cpf, collaborator_record) DO UPDATE
   SET admission_date = excluded.admission_date, registration_number = excluded.registration_number,
       employed_from = CASE WHEN excluded.admission_date IS NOT NULL THEN excluded.admission_date ELSE least(e.employed_from, e.first_data_on) END,
       employed_from_source = excluded.employed_from_source, synced_at = now()
 WHERE (e.admission_date, e.registration_number) IS DISTINCT FROM (excluded.admission_date, excluded.registration_number)
RETURNING e.cpf, e.collaborator_record`,
    values: [company, zone],
  };
}

/**
 * The records of company `$1` active in its collaborator list are listed (as of `$3`, when
 * the list was loaded); the others are not, and their collaborators row takes the day they
 * were last listed as `attributes_as_of` (zone `$2`), so only newer period data changes it.
 */
export function buildListing(schema: string, company: string, zone: string, listedAt: Date): BuiltQuery {
  const listed = `EXISTS (SELECT 1 FROM ${T(schema, MART_INPUTS.person)} s WHERE s.company_cnpj = $1 AND s.cpf = e.cpf AND s.collaborator_record = e.collaborator_record AND s.active)`;
  return {
    text: `WITH listed AS (
  UPDATE ${T(schema, 'employments')} e
     SET is_listed = true, first_listed_at = coalesce(e.first_listed_at, $3), last_listed_at = $3, synced_at = now()
   WHERE e.company_cnpj = $1 AND ${listed}
  RETURNING 1
), unlisted AS (
  UPDATE ${T(schema, 'employments')} e SET is_listed = false, synced_at = now()
   WHERE e.company_cnpj = $1 AND e.is_listed AND NOT ${listed}
  RETURNING e.cpf, e.collaborator_record, ${localDate('e.last_listed_at')} AS last_listed_on
), stamped AS (
  UPDATE ${T(schema, MART_INPUTS.person)} c SET attributes_as_of = u.last_listed_on
    FROM unlisted u WHERE c.company_cnpj = $1 AND c.cpf = u.cpf AND c.collaborator_record = u.collaborator_record
     AND NOT c.active AND c.attributes_as_of IS NULL
  RETURNING 1
)
SELECT (SELECT count(*) FROM listed)::int AS listed, (SELECT count(*) FROM unlisted)::int AS unlisted, (SELECT count(*) FROM stamped)::int AS stamped`,
    values: [company, zone, listedAt],
  };
}

/** The records of company `$1` no longer listed whose collaborators row a load wrote at or after `$2`. */
export function buildTouchedRecords(schema: string, company: string, since: Date): BuiltQuery {
  return {
    text: `SELECT cpf, collaborator_record FROM ${T(schema, MART_INPUTS.person)} WHERE company_cnpj = $1 AND synced_at >= $2 AND NOT active`,
    values: [company, since],
  };
}

/**
 * Widens the first and last day of period data of company `$1`'s records by the days of
 * `work_days` in `$2`..`$3`; returns the records whose employment may now start earlier
 * (those without an admission date start at their first day of data: the window's).
 */
export function buildDataDays(schema: string, company: string, from: string, to: string): BuiltQuery {
  return {
    text: `WITH widened AS (
UPDATE ${T(schema, 'employments')} e
   SET first_data_on = least(e.first_data_on, d.first_day), last_data_on = greatest(e.last_data_on, d.last_day),
       employed_from = CASE WHEN e.admission_date IS NULL THEN least(e.employed_from, d.first_day) ELSE e.employed_from END,
       synced_at = now()
  FROM (SELECT cpf, collaborator_record, min(work_date) AS first_day, max(work_date) AS last_day
          FROM ${T(schema, COVERAGE_TABLE)}
         WHERE company_cnpj = $1 AND work_date BETWEEN $2::date AND $3::date AND deleted_at IS NULL
         GROUP BY cpf, collaborator_record) d
 WHERE e.company_cnpj = $1 AND e.cpf = d.cpf AND e.collaborator_record = d.collaborator_record
   AND (e.first_data_on IS DISTINCT FROM least(e.first_data_on, d.first_day) OR e.last_data_on IS DISTINCT FROM greatest(e.last_data_on, d.last_day))
RETURNING e.cpf, e.collaborator_record, e.admission_date IS NULL AND e.employed_from = d.first_day AS earlier
) SELECT cpf, collaborator_record FROM widened WHERE earlier`,
    values: [company, from, to],
  };
}

/**
 * Sets `left_on` of company `$1`'s records (zone `$2`): null while listed; else the
 * dismissal punchline pushed for the record, else the last day of its period data, else
 * the day it was last listed. Nothing is inferred for a company whose list was never
 * synced (nobody can be known to have left). Returns the records whose `left_on` changed.
 */
export function buildLeaving(schema: string, company: string, zone: string): BuiltQuery {
  const e = T(schema, 'employments');
  return {
    text: `WITH listed_once AS (
  SELECT EXISTS (SELECT 1 FROM ${e} WHERE company_cnpj = $1 AND first_listed_at IS NOT NULL) AS yes
), pushed AS (
  -- A dismissal acts on the record of its CPF (or registration number) admitted last on or before its date.
  SELECT DISTINCT ON (p.id) p.id, r.cpf, r.collaborator_record, p.dismissal_date
    FROM ${T(schema, 'pushed_dismissals')} p
    JOIN ${e} r ON r.company_cnpj = p.company_cnpj
     AND (p.cpf = r.cpf OR (p.cpf IS NULL AND p.registration_number = r.registration_number))
     AND (p.registration_number IS NULL OR p.cpf IS NULL OR p.registration_number IS NOT DISTINCT FROM r.registration_number)
     AND coalesce(r.admission_date, '-infinity'::date) <= p.dismissal_date
   WHERE p.company_cnpj = $1
   ORDER BY p.id, r.admission_date DESC NULLS LAST
), dismissal AS (
  SELECT DISTINCT ON (cpf, collaborator_record) cpf, collaborator_record, dismissal_date
    FROM pushed ORDER BY cpf, collaborator_record, dismissal_date DESC
), decided AS (
  SELECT r.cpf, r.collaborator_record,
         CASE WHEN r.is_listed OR NOT l.yes THEN NULL
              ELSE coalesce(d.dismissal_date, r.last_data_on, ${localDate('r.last_listed_at')}, ${localDate('r.first_seen_at')}) END AS left_on,
         CASE WHEN r.is_listed OR NOT l.yes THEN NULL WHEN d.dismissal_date IS NOT NULL THEN 'dismissal' ELSE 'inferred' END AS source
    FROM ${e} r CROSS JOIN listed_once l
    LEFT JOIN dismissal d ON d.cpf = r.cpf AND d.collaborator_record = r.collaborator_record
   WHERE r.company_cnpj = $1
)
UPDATE ${e} r SET left_on = d.left_on, left_on_source = d.source, synced_at = now()
  FROM decided d
 WHERE r.company_cnpj = $1 AND r.cpf = d.cpf AND r.collaborator_record = d.collaborator_record
   AND (r.left_on, r.left_on_source) IS DISTINCT FROM (d.left_on, d.source)
RETURNING r.cpf, r.collaborator_record`,
    values: [company, zone],
  };
}

/** The records of company `$1` whose history a load opened or closed a version of at or after `$2`. */
export function buildHistoryChanged(schema: string, company: string, since: Date): BuiltQuery {
  return {
    text: `SELECT DISTINCT cpf, collaborator_record FROM ${T(schema, MART_INPUTS.history)}
 WHERE company_cnpj = $1 AND (valid_from >= $2 OR valid_to >= $2)`,
    values: [company, since],
  };
}

/** First and last day of company `$1`'s coverage (null when none). */
export function buildCoverageBounds(schema: string, company: string): BuiltQuery {
  return {
    text: `SELECT min(window_start)::text AS first_day, max(window_end)::text AS last_day FROM ${T(schema, 'window_loads')}
 WHERE company_cnpj = $1 AND table_name = $2`,
    values: [company, COVERAGE_TABLE],
  };
}

/** What a rewrite of the day grain covers. */
export interface DailyScope {
  readonly company: string;
  /** IANA zone of the company: how its instants fall on days. */
  readonly zone: string;
  /** The company's today by the sync's clock: days before it are over, days after it are not employed yet. */
  readonly today: string;
  readonly from: string;
  readonly to: string;
  /** Only these records (default: every record of the company). */
  readonly only?: RecordKeys;
}

/** `AND (alias.cpf, alias.collaborator_record)` among the records of `$first`/`$first+1`, when the scope names them. */
function onlyRecords(scope: DailyScope, alias: string, first = 5): string {
  return scope.only
    ? ` AND (${alias}.cpf, ${alias}.collaborator_record) IN (SELECT * FROM unnest($${first}::text[], $${first + 1}::text[]))`
    : '';
}

function dailyValues(scope: DailyScope): unknown[] {
  const base = [scope.company, scope.zone, scope.from, scope.to];
  return [...base, ...(scope.only ? [scope.only.cpfs, scope.only.records] : []), scope.today];
}

/** The parameter of the scope's today in {@link dailyValues}: after the records, when there are any. */
const todayParam = (scope: DailyScope) => `$${scope.only ? 7 : 5}::date`;

/**
 * Rewrites `employee_daily` of the scope: one row per record and covered day it was
 * employed (employed_from ≤ day ≤ left_on, and not after today), attributes as of the
 * day and the day's measures. Rows whose values did not change are left as they are.
 * Two statements: the upsert, and the delete of rows outside their record's employment,
 * which only a change of an employment's span leaves.
 */
export function buildDailyRefresh(
  schema: string,
  scope: DailyScope,
): { upsert: BuiltQuery; prune: BuiltQuery } {
  const t = (name: string) => T(schema, name);
  const grid = `today AS (SELECT ${todayParam(scope)} AS d),
cov AS (
  SELECT DISTINCT g::date AS day
    FROM ${t('window_loads')} w CROSS JOIN today
   CROSS JOIN LATERAL generate_series(greatest(w.window_start, $3::date), least(w.window_end, $4::date, today.d), interval '1 day') g
   WHERE w.company_cnpj = $1 AND w.table_name = '${COVERAGE_TABLE}' AND w.window_start <= $4::date AND w.window_end >= $3::date
),
grid AS (
  SELECT e.cpf, e.collaborator_record, c.day
    FROM ${t('employments')} e JOIN cov c ON c.day >= e.employed_from AND (e.left_on IS NULL OR c.day <= e.left_on)
   WHERE e.company_cnpj = $1${onlyRecords(scope, 'e')}
)`;
  const upsert = `WITH ${grid},
punch_counts AS (
  SELECT cpf, collaborator_record, work_date, count(*)::int AS n FROM ${t(MART_INPUTS.punch)}
   WHERE company_cnpj = $1 AND work_date BETWEEN $3::date AND $4::date AND deleted_at IS NULL
   GROUP BY cpf, collaborator_record, work_date
),
absent AS (
  SELECT cpf, collaborator_record, absence_date, array_agg(absence_type ORDER BY absence_id) AS types FROM ${t('absence_days')}
   WHERE company_cnpj = $1 AND absence_date BETWEEN $3::date AND $4::date
   GROUP BY cpf, collaborator_record, absence_date
),
versions AS (
  SELECT cpf, collaborator_record, ${localDate('valid_from')} AS from_day,
         coalesce(${localDate('valid_to')}, 'infinity'::date) AS to_day,
         valid_from = min(valid_from) OVER (PARTITION BY cpf, collaborator_record) AS earliest,
         department, occupation, team, business_unit
    FROM ${t(MART_INPUTS.history)} WHERE company_cnpj = $1
)
INSERT INTO ${t('employee_daily')} AS x (company_cnpj, cpf, collaborator_record, work_date, department, occupation, team, business_unit,
  attributes_basis, is_scheduled, worked_seconds, punch_count, late_seconds, is_late, on_leave, absence_types, is_absent, overtime_seconds,
  bank_balance_seconds, is_day_over)
SELECT $1, g.cpf, g.collaborator_record, g.day,
       coalesce(v.department, c.department), coalesce(v.occupation, c.occupation),
       CASE WHEN v.cpf IS NULL THEN c.team ELSE v.team END, coalesce(v.business_unit, c.business_unit),
       CASE WHEN v.cpf IS NULL THEN 'period_data' WHEN g.day < v.from_day THEN 'before_history' ELSE 'history' END,
       wd.shift ${SCHEDULED}, wd.worked_seconds, coalesce(pc.n, 0), coalesce(td.late_seconds, 0), td.cpf IS NOT NULL,
       ab.types IS NOT NULL, ab.types,
       CASE WHEN g.day < today.d THEN wd.shift ${SCHEDULED} AND coalesce(pc.n, 0) = 0 AND ab.types IS NULL END,
       hb.total_overtime_seconds, hb.accumulated_balance_seconds, g.day < today.d
  FROM grid g CROSS JOIN today
  LEFT JOIN ${t(MART_INPUTS.day)} wd ON wd.company_cnpj = $1 AND wd.work_date = g.day AND wd.cpf = g.cpf
        AND wd.collaborator_record = g.collaborator_record AND wd.deleted_at IS NULL AND wd.work_date BETWEEN $3::date AND $4::date
  LEFT JOIN punch_counts pc ON pc.work_date = g.day AND pc.cpf = g.cpf AND pc.collaborator_record = g.collaborator_record
  LEFT JOIN ${t(MART_INPUTS.lateness)} td ON td.company_cnpj = $1 AND td.work_date = g.day AND td.cpf = g.cpf AND td.collaborator_record = g.collaborator_record
        AND td.work_date BETWEEN $3::date AND $4::date
  LEFT JOIN ${t(MART_INPUTS.balance)} hb ON hb.company_cnpj = $1 AND hb.balance_date = g.day AND hb.cpf = g.cpf
        AND hb.collaborator_record = g.collaborator_record AND hb.deleted_at IS NULL AND hb.balance_date BETWEEN $3::date AND $4::date
  LEFT JOIN absent ab ON ab.absence_date = g.day AND ab.cpf = g.cpf AND ab.collaborator_record = g.collaborator_record
  LEFT JOIN versions v ON v.cpf = g.cpf AND v.collaborator_record = g.collaborator_record AND g.day < v.to_day AND (g.day >= v.from_day OR v.earliest)
  LEFT JOIN ${t(MART_INPUTS.person)} c ON v.cpf IS NULL AND c.company_cnpj = $1 AND c.cpf = g.cpf AND c.collaborator_record = g.collaborator_record
ON CONFLICT (company_cnpj, work_date, cpf, collaborator_record) DO UPDATE
   SET department = excluded.department, occupation = excluded.occupation, team = excluded.team, business_unit = excluded.business_unit,
       attributes_basis = excluded.attributes_basis, is_scheduled = excluded.is_scheduled, worked_seconds = excluded.worked_seconds,
       punch_count = excluded.punch_count, late_seconds = excluded.late_seconds, is_late = excluded.is_late, on_leave = excluded.on_leave,
       absence_types = excluded.absence_types, is_absent = excluded.is_absent, overtime_seconds = excluded.overtime_seconds,
       bank_balance_seconds = excluded.bank_balance_seconds, is_day_over = excluded.is_day_over, synced_at = now()
 WHERE (x.department, x.occupation, x.team, x.business_unit, x.attributes_basis, x.is_scheduled, x.worked_seconds, x.punch_count,
        x.late_seconds, x.is_late, x.on_leave, x.absence_types, x.is_absent, x.overtime_seconds, x.bank_balance_seconds, x.is_day_over)
       IS DISTINCT FROM
       (excluded.department, excluded.occupation, excluded.team, excluded.business_unit, excluded.attributes_basis, excluded.is_scheduled,
        excluded.worked_seconds, excluded.punch_count, excluded.late_seconds, excluded.is_late, excluded.on_leave, excluded.absence_types,
        excluded.is_absent, excluded.overtime_seconds, excluded.bank_balance_seconds, excluded.is_day_over)
RETURNING x.work_date`;
  // What the grid no longer holds: a day outside its record's employment, or after today.
  // (A covered day stays covered: window_loads only grow.) Rows of a record that has no
  // employment any more are not kept either.
  // Its own parameters (those of scopeRows, then today): it has no use for the zone.
  const prune = `DELETE FROM ${t('employee_daily')} x
 WHERE ${scopeRows(scope, 'x')}
   AND (x.work_date > $${scope.only ? 6 : 4}::date OR NOT EXISTS (
        SELECT 1 FROM ${t('employments')} e
         WHERE e.company_cnpj = $1 AND e.cpf = x.cpf AND e.collaborator_record = x.collaborator_record
           AND x.work_date >= e.employed_from AND (e.left_on IS NULL OR x.work_date <= e.left_on)))
RETURNING x.work_date`;
  const values = dailyValues(scope);
  return {
    upsert: {
      text: `WITH written AS (\n${upsert}\n) SELECT count(*)::int AS n, min(work_date)::text AS first_day, max(work_date)::text AS last_day FROM written`,
      values,
    },
    prune: {
      text: `WITH gone AS (\n${prune}\n) SELECT count(*)::int AS n, min(work_date)::text AS first_day, max(work_date)::text AS last_day FROM gone`,
      values: [...scopeValues(scope), scope.today],
    },
  };
}

/** A measure of the day grain one resource's windows hold, rewritten alone when they change. */
export type DayMeasure = 'lateness' | 'overtime' | 'leave';

/** The company's `employee_daily` rows of the scope (alias `d`; `$1` company, `$2`..`$3` days, `$4`/`$5` records). */
function scopeRows(scope: DailyScope, alias: string): string {
  return `${alias}.company_cnpj = $1 AND ${alias}.work_date BETWEEN $2::date AND $3::date${onlyRecords(scope, alias, 4)}`;
}

/**
 * Rewrites one measure of the `employee_daily` rows of the scope from its table, leaving
 * the rest of each row as it is: a window of tardiness, of hour-bank balances or of
 * absences changes only its own columns, and only in the rows whose value changed.
 * Rows are made by the full rewrite ({@link buildDailyRefresh}); days without rows are
 * not covered yet and left to it.
 */
export function buildMeasureRefresh(schema: string, measure: DayMeasure, scope: DailyScope): BuiltQuery {
  const t = (name: string) => T(schema, name);
  const same = (a: string, b: string) =>
    `${a}.cpf = ${b}.cpf AND ${a}.collaborator_record = ${b}.collaborator_record`;
  let set: string;
  let source: string;
  switch (measure) {
    case 'lateness':
      // Sparse: the days with a tardiness now, and those that had one.
      source = `SELECT d.cpf, d.collaborator_record, d.work_date, coalesce(td.late_seconds, 0) AS late_seconds, td.cpf IS NOT NULL AS is_late
      FROM ${t('employee_daily')} d
      LEFT JOIN ${t(MART_INPUTS.lateness)} td ON td.company_cnpj = $1 AND td.work_date = d.work_date AND ${same('td', 'd')} AND td.work_date BETWEEN $2::date AND $3::date
     WHERE ${scopeRows(scope, 'd')} AND (d.is_late OR td.cpf IS NOT NULL)`;
      set = 'late_seconds = s.late_seconds, is_late = s.is_late';
      break;
    case 'overtime':
      source = `SELECT d.cpf, d.collaborator_record, d.work_date, hb.total_overtime_seconds AS overtime_seconds,
             hb.accumulated_balance_seconds AS bank_balance_seconds
      FROM ${t('employee_daily')} d
      LEFT JOIN ${t(MART_INPUTS.balance)} hb ON hb.company_cnpj = $1 AND hb.balance_date = d.work_date AND ${same('hb', 'd')}
           AND hb.deleted_at IS NULL AND hb.balance_date BETWEEN $2::date AND $3::date
     WHERE ${scopeRows(scope, 'd')}`;
      set = 'overtime_seconds = s.overtime_seconds, bank_balance_seconds = s.bank_balance_seconds';
      break;
    case 'leave':
      source = `SELECT d.cpf, d.collaborator_record, d.work_date, a.types IS NOT NULL AS on_leave, a.types AS absence_types,
             CASE WHEN d.is_day_over THEN d.is_scheduled AND d.punch_count = 0 AND a.types IS NULL END AS is_absent
      FROM ${t('employee_daily')} d
      LEFT JOIN (SELECT cpf, collaborator_record, absence_date, array_agg(absence_type ORDER BY absence_id) AS types FROM ${t('absence_days')}
                  WHERE company_cnpj = $1 AND absence_date BETWEEN $2::date AND $3::date GROUP BY cpf, collaborator_record, absence_date) a
        ON a.absence_date = d.work_date AND ${same('a', 'd')}
     WHERE ${scopeRows(scope, 'd')}`;
      set = 'on_leave = s.on_leave, absence_types = s.absence_types, is_absent = s.is_absent';
      break;
  }
  const columns = set.split(', ').map((c) => c.split(' = ')[0]!);
  return {
    text: `WITH written AS (
  UPDATE ${t('employee_daily')} x SET ${set}, synced_at = now()
    FROM (${source}) s
   WHERE x.company_cnpj = $1 AND x.work_date = s.work_date AND ${same('x', 's')}
     AND (${columns.map((c) => `x.${c}`).join(', ')}) IS DISTINCT FROM (${columns.map((c) => `s.${c}`).join(', ')})
  RETURNING x.work_date
) SELECT count(*)::int AS n, min(work_date)::text AS first_day, max(work_date)::text AS last_day FROM written`,
    values: scopeValues(scope),
  };
}

/** The values of {@link scopeRows}: company, first and last day, and the records when the scope names them. */
function scopeValues(scope: DailyScope): unknown[] {
  return [scope.company, scope.from, scope.to, ...(scope.only ? [scope.only.cpfs, scope.only.records] : [])];
}

/** The first day of the month of `day` (`YYYY-MM-DD`). */
export function monthOf(day: string): string {
  return `${day.slice(0, 7)}-01`;
}

/**
 * Rewrites `absence_days` and `absence_hours` of company `$1`'s absences that overlap
 * `$2`..`$3` (live or just deleted): deletes their rows, then expands the live ones. A
 * full-day absence takes whole days through the calendar, from the local date of its
 * start to that of its end (an end at 00:00 ends the day before: it adds no day); a
 * partial-day one counts no day, only its seconds of each day it touches.
 * Each statement returns the records and the first and last day of whole days it touched.
 */
export function buildAbsenceDaysRefresh(
  schema: string,
  company: string,
  from: string,
  to: string,
): { delete: BuiltQuery; insert: BuiltQuery; span: BuiltQuery } {
  const t = (name: string) => T(schema, name);
  const overlapping = `a.company_cnpj = $1 AND a.begins_at_local < ($3::date + 1) AND a.ends_at_local >= $2::date`;
  /** The last whole day of a full-day absence. */
  const lastDay = `(CASE WHEN a.ends_at_local::time = '00:00' AND a.ends_at_local > a.begins_at_local THEN a.ends_at_local::date - 1 ELSE a.ends_at_local::date END)`;
  const touched = `SELECT count(*)::int AS n, min(absence_date)::text AS first_day, max(absence_date)::text AS last_day,
       coalesce(array_agg(DISTINCT cpf || E'\\x1f' || collaborator_record), '{}') AS records`;
  const values = [company, from, to];
  return {
    span: {
      text: `SELECT min(a.begins_at_local)::date::text AS first_day, max(a.ends_at_local)::date::text AS last_day FROM ${t(MART_INPUTS.absence)} a WHERE ${overlapping} AND a.deleted_at IS NULL`,
      values,
    },
    delete: {
      text: `WITH hours AS (
  DELETE FROM ${t('absence_hours')} d WHERE d.company_cnpj = $1
     AND d.absence_id IN (SELECT a.absence_id FROM ${t(MART_INPUTS.absence)} a WHERE ${overlapping})
  RETURNING 1
), gone AS (
  DELETE FROM ${t('absence_days')} d WHERE d.company_cnpj = $1
     AND d.absence_id IN (SELECT a.absence_id FROM ${t(MART_INPUTS.absence)} a WHERE ${overlapping})
  RETURNING d.absence_date, d.cpf, d.collaborator_record
) ${touched} FROM gone`,
      values,
    },
    insert: {
      text: `WITH hours AS (
  INSERT INTO ${t('absence_hours')} (absence_id, company_cnpj, cpf, collaborator_record, absence_date, absence_type_id, absence_type,
    paid_leave, absent_seconds)
  SELECT a.absence_id, m.company_cnpj, m.cpf, m.collaborator_record, g.day, a.absence_type_id, a.absence_type, a.paid_leave,
         extract(epoch FROM least(a.ends_at_local, g.day + 1) - greatest(a.begins_at_local, g.day::timestamp))::int
    FROM ${t('absences')} a
    JOIN ${t('absence_collaborators')} m ON m.absence_id = a.absence_id AND m.deleted_at IS NULL
   CROSS JOIN LATERAL (SELECT d::date AS day FROM generate_series(a.begins_at_local::date, a.ends_at_local::date, interval '1 day') d) g
   WHERE ${overlapping} AND a.deleted_at IS NULL AND NOT a.full_day AND least(a.ends_at_local, g.day + 1) > greatest(a.begins_at_local, g.day::timestamp)
  ON CONFLICT DO NOTHING
  RETURNING 1
), made AS (
  INSERT INTO ${t('absence_days')} (absence_id, company_cnpj, cpf, collaborator_record, absence_date, absence_type_id, absence_type,
    paid_leave, full_day, is_weekend, is_holiday, is_business_day)
  SELECT a.absence_id, m.company_cnpj, m.cpf, m.collaborator_record, k.calendar_date, a.absence_type_id, a.absence_type,
         a.paid_leave, a.full_day, k.is_weekend, k.is_holiday, k.is_business_day
    FROM ${t(MART_INPUTS.absence)} a
    JOIN ${t(MART_INPUTS.absenceMember)} m ON m.absence_id = a.absence_id AND m.deleted_at IS NULL
    JOIN ${t('calendar')} k ON k.calendar_date BETWEEN a.begins_at_local::date AND ${lastDay}
   WHERE ${overlapping} AND a.deleted_at IS NULL AND a.full_day
  ON CONFLICT DO NOTHING
  RETURNING absence_date, cpf, collaborator_record
) ${touched} FROM made`,
      values,
    },
  };
}
