import { ROLE_TABLES } from '../resources/index.js';
import { DETAIL_ROWS_PER_PART } from './checks.js';
import { checkName, hms, type CheckBuilder, type CheckStatement } from './statement.js';

/** Allowed difference per day, in seconds: a source that rounds a day to the minute. */
const DAY_TOLERANCE = 60;

/** What identifies a day of a collaborator record. */
const KEY = 'company_cnpj, cpf, collaborator_record, work_date';

/**
 * The pair sum of each day's punches. Sorting millions of punches by day and time costs five times
 * what hashing them does, so a day of up to four punches (nearly all) is paired from order-free
 * aggregates of its times t₁ ≤ … ≤ tₙ: two pair to t₂ − t₁; three to the middle one minus the first;
 * four to (t₄ − t₁) − (t₃ − t₂), where t₃ − t₂ = √(2(t₂² + t₃²) − (t₂ + t₃)²) and t₂ + t₃, t₂² + t₃²
 * are the sums less the extremes (seconds since the day began: integer sums, squares exact in double
 * precision, which sums faster than numeric). Only days of five or more are sorted, day by day.
 */
function pairedDays(s: CheckStatement): string {
  const punches = s.table(ROLE_TABLES.punch);
  const order = 'ORDER BY x.punched_at_local, x.point_id';
  return `
  paired AS (
    SELECT d.company_cnpj, d.cpf, d.collaborator_record, d.work_date, d.n, d.first_point,
           CASE WHEN d.n < 2 THEN 0 WHEN d.n = 2 THEN d.hi - d.lo WHEN d.n = 3 THEN d.total - d.hi - 2 * d.lo
                WHEN d.n = 4 THEN d.hi - d.lo - round(sqrt(2 * (d.squares - d.hi * d.hi - d.lo * d.lo) - (d.total - d.hi - d.lo) * (d.total - d.hi - d.lo)))::bigint
                ELSE (SELECT coalesce(sum(o.span) FILTER (WHERE o.k % 2 = 1), 0)::bigint
                        FROM (SELECT row_number() OVER (${order}) AS k, date_part('epoch', lead(x.punched_at_local) OVER (${order}) - x.punched_at_local) AS span
                                FROM ${punches} x
                               WHERE x.company_cnpj = d.company_cnpj AND x.work_date = d.work_date AND x.cpf = d.cpf
                                 AND x.collaborator_record = d.collaborator_record AND x.deleted_at IS NULL) o) END AS paired
      FROM (SELECT ${KEY}, count(*) AS n, min(t)::bigint AS lo, max(t)::bigint AS hi, sum(t) AS total, sum(t::float8 * t)::bigint AS squares,
                   min(point_id) AS first_point
              FROM (SELECT p.*, date_part('epoch', p.punched_at_local - p.work_date)::int AS t FROM ${punches} p
                     WHERE p.deleted_at IS NULL AND ${s.company('p.company_cnpj')} AND ${s.inMonths('p.work_date')}) p
             GROUP BY 1, 2, 3, 4) d
  )`;
}

/**
 * The findings of `day_vs_punches` and `punch_without_day` as `checks` asks (pure builder), in one pass
 * over both tables; parts are company months.
 * - `day_vs_punches`: a day lists its punches and states its worked time (spec 2.12), the time between
 *   an entry and the exit after it. Per record and day, the complete pairs of its live punches (first to
 *   second, third to fourth, …; an unpaired last one counts nothing) must sum to `worked_time`, to the
 *   minute. A difference only warns: a source may count an absence as worked (spec 4.2
 *   `sum_on_work_time`) or deduct a break nobody punched. Days in progress (today) are left out.
 * - `punch_without_day`: a live punch whose work day (company, CPF, record, date) is not live: the
 *   warehouse's fault, as the API sends every punch inside its day.
 */
export const punchesAgainstDays: CheckBuilder = (s, checks) => {
  const days = checks.includes('day_vs_punches');
  const orphans = checks.includes('punch_without_day');
  if (!days && !orphans) return '';
  const tolerance = s.param(DAY_TOLERANCE, 'int8');
  const selects = [
    days &&
      `
  SELECT ${checkName('day_vs_punches')}, r.company_cnpj, to_char(r.month, 'YYYY-MM'),
         'day ' || r.work_date || ' record ' || coalesce(nullif(r.collaborator_record, ''), '(no admission date)'), r.cpf,
         'seconds', r.expected, r.worked, ${tolerance}, 'warn',
         'the day''s worked_time is ' || ${hms('r.worked')} || '; its ' || r.punch_count || ' punch(es) pair up to ' || ${hms('r.expected')}
    FROM (SELECT j.*, row_number() OVER (PARTITION BY company_cnpj, month ORDER BY work_date, cpf, collaborator_record) AS k
            FROM joined j WHERE j.judged AND j.differs) r
   WHERE r.k <= ${s.detailLimit}
  UNION ALL
  SELECT ${checkName('day_vs_punches')}, m.company_cnpj, to_char(m.month, 'YYYY-MM'), 'all', NULL, 'seconds', m.expected, m.worked,
         ${tolerance} * m.days, CASE WHEN m.differing > 0 THEN 'warn' ELSE 'ok' END,
         m.differing || ' of ' || m.days || ' days differ from their punch pairs' ||
           CASE WHEN m.differing > ${DETAIL_ROWS_PER_PART} THEN ' (the first ${DETAIL_ROWS_PER_PART} are listed)' ELSE '' END
    FROM months m WHERE m.days > 0`,
    orphans &&
      `
  SELECT ${checkName('punch_without_day')}, m.company_cnpj, to_char(m.month, 'YYYY-MM'), ${s.text(ROLE_TABLES.punch)}, NULL, 'findings', 0::bigint, m.orphans, 0::bigint,
         CASE WHEN m.orphans > 0 THEN 'fail' ELSE 'ok' END,
         CASE WHEN m.orphans > 0 THEN m.orphans || ' live punch(es) without a live work day, e.g. point ' || m.orphan END
    FROM months m WHERE m.punch_days > 0`,
  ].filter(Boolean);
  return `
  WITH ${pairedDays(s)}, joined AS (
    SELECT company_cnpj, cpf, collaborator_record, work_date, ${s.month('work_date')} AS month, w.worked_seconds::bigint AS worked,
           coalesce(p.paired, 0) AS expected, coalesce(p.n, 0) AS punch_count, p.first_point,
           w.worked_seconds IS NOT NULL AND work_date < coalesce(z.today, ${s.today('NULL::text')}) AS judged,
           abs(w.worked_seconds - coalesce(p.paired, 0)) > ${tolerance} AS differs
      FROM paired p
      FULL JOIN (SELECT * FROM ${s.table(ROLE_TABLES.day)} w
                  WHERE w.deleted_at IS NULL AND ${s.company('w.company_cnpj')} AND ${s.inMonths('w.work_date')}) w
     USING (${KEY})
      LEFT JOIN (SELECT cnpj, ${s.today('cnpj')} AS today FROM ${s.table(ROLE_TABLES.company)}) z ON z.cnpj = company_cnpj
  ), months AS (
    SELECT company_cnpj, month,
           count(*) FILTER (WHERE judged) AS days, count(*) FILTER (WHERE judged AND differs) AS differing,
           coalesce(sum(expected) FILTER (WHERE judged), 0)::bigint AS expected, coalesce(sum(worked) FILTER (WHERE judged), 0)::bigint AS worked,
           count(*) FILTER (WHERE punch_count > 0) AS punch_days,
           coalesce(sum(punch_count) FILTER (WHERE worked IS NULL), 0)::bigint AS orphans, min(first_point) FILTER (WHERE worked IS NULL) AS orphan
      FROM joined GROUP BY company_cnpj, month
  )${selects.join('\n  UNION ALL')}`;
};
