-- 070_clt_marts: the labour-law marts (docs/warehouse.md "Labour-law marts").
-- clt_daily holds, per collaborator record and day with punches, what Brazil's labour law (CLT)
-- asks of the day: the rest before it (art. 66), its breaks (art. 71, 74 §2), overtime and the
-- day's cap (art. 59, with the tolerance of art. 58 §1), night work (art. 73), the run of days
-- worked (Lei 605/1949) and work on holidays. clt_monthly counts the findings per company,
-- department and month; clt_people_90d ranks the people with the most findings in the last 90
-- days. Findings are candidates for review, not verdicts: collective agreements change some of
-- these rules. Both tables are rewritten by mart modules (src/marts/clt-daily.ts,
-- src/marts/clt-monthly.ts) for the days a load may have changed, set-based, per company.

CREATE TABLE clt_daily (
  company_cnpj            text NOT NULL,
  cpf                     text NOT NULL,
  collaborator_record     text NOT NULL,
  work_date               date NOT NULL,
  department              text NOT NULL,
  shift                   text,
  first_punch_local       timestamp NOT NULL,
  last_punch_local        timestamp NOT NULL,
  first_punch_at          timestamptz NOT NULL,
  last_punch_at           timestamptz NOT NULL,
  punch_count             integer NOT NULL,
  worked_seconds          integer NOT NULL,
  scheduled_seconds       integer,
  rest_before_seconds     integer,
  short_rest              boolean NOT NULL,
  longest_break_seconds   integer NOT NULL,
  break_required_seconds  integer NOT NULL,
  short_break             boolean NOT NULL,
  break_not_punched       boolean NOT NULL,
  overtime_seconds        integer,
  overtime_over_2h        boolean NOT NULL,
  day_over_10h            boolean NOT NULL,
  night_seconds           integer NOT NULL,
  night_reduced_seconds   integer NOT NULL,
  consecutive_days_worked integer NOT NULL,
  seventh_day_worked      boolean NOT NULL,
  worked_on_holiday       boolean NOT NULL,
  holiday_name            text,
  manual_punches          integer NOT NULL,
  adjusted_punches        integer NOT NULL,
  findings                integer NOT NULL,
  synced_at               timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_cnpj, work_date, cpf, collaborator_record),
  CHECK (NOT (short_break AND break_not_punched))
);
-- A person's days in order (rest before a day, the run of days, the 90-day view).
CREATE INDEX clt_daily_record_idx ON clt_daily (company_cnpj, cpf, collaborator_record, work_date);
COMMENT ON TABLE clt_daily IS 'Labour-law findings of the day: one row per collaborator record and work day with punches (work_date as the API lists the day, spec 2.12), in the company''s time zone. Rest before the day (CLT art. 66), breaks (art. 71, art. 74 §2), overtime and the 10-hour cap (art. 59, with the art. 58 §1 tolerance), night work (art. 73), days in a row (Lei 605/1949, TST OJ 410), holiday work. Candidates for review, not verdicts: collective agreements change some rules (docs/warehouse.md "Labour-law marts"). Kept current by the sync.';
COMMENT ON COLUMN clt_daily.company_cnpj IS 'CNPJ of the employing company. Natural key with cpf, collaborator_record and work_date.';
COMMENT ON COLUMN clt_daily.cpf IS 'CPF of the collaborator, 11 digits with leading zeros. Natural key with company_cnpj, collaborator_record and work_date.';
COMMENT ON COLUMN clt_daily.collaborator_record IS 'Which record of the CPF (punches.collaborator_record: its admission date as sent, empty when none). Natural key with company_cnpj, cpf and work_date.';
COMMENT ON COLUMN clt_daily.work_date IS 'The work day the API lists the punches under (spec 2.12 days[].date): a night shift that crosses midnight belongs to the day it started on. Natural key with company_cnpj, cpf and collaborator_record.';
COMMENT ON COLUMN clt_daily.department IS 'Department of the record as of the day (employee_daily.department, else collaborators.department); empty when none.';
COMMENT ON COLUMN clt_daily.shift IS 'The day''s scheduled shift as sent (work_days.shift, spec 2.12 shift); null when the API sent no day object for the punches.';
COMMENT ON COLUMN clt_daily.first_punch_local IS 'First punch of the day, local wall-clock time as sent (punches.punched_at_local).';
COMMENT ON COLUMN clt_daily.last_punch_local IS 'Last punch of the day, local wall-clock time as sent; may fall on the next date for a night shift.';
COMMENT ON COLUMN clt_daily.first_punch_at IS 'First punch of the day as an instant (punches.punched_at).';
COMMENT ON COLUMN clt_daily.last_punch_at IS 'Last punch of the day as an instant.';
COMMENT ON COLUMN clt_daily.punch_count IS 'Live punches of the day (deleted_at IS NULL).';
COMMENT ON COLUMN clt_daily.worked_seconds IS 'Worked time: the sum of the day''s complete punch pairs (1st to 2nd, 3rd to 4th, ...), in punch order; an unpaired last punch counts nothing (as spec 2.12 worked_time).';
COMMENT ON COLUMN clt_daily.scheduled_seconds IS 'Scheduled work of the day: the sum of the clock intervals the shift text names (08:00-12:00 / 13:00-17:00 is 8 h); 0 when it names none (a rest day, a holiday); null without a day object.';
COMMENT ON COLUMN clt_daily.rest_before_seconds IS 'Rest before the day (interjornada, CLT art. 66): from the last punch of the record''s previous day with punches to this day''s first punch; null when no day with punches lies within the 15 days before (the rest is then days long).';
COMMENT ON COLUMN clt_daily.short_rest IS 'True when rest_before_seconds is below 11 hours (39,600 s; CLT art. 66).';
COMMENT ON COLUMN clt_daily.longest_break_seconds IS 'Longest punched break: the gap between one complete pair''s end and the next complete pair''s start; 0 when the day has no such break.';
COMMENT ON COLUMN clt_daily.break_required_seconds IS 'Break the day requires (intrajornada, CLT art. 71): 3,600 s when worked_seconds exceeds 6 hours, 900 s when it exceeds 4 hours, else 0.';
COMMENT ON COLUMN clt_daily.short_break IS 'True when a break was punched but the longest one is shorter than break_required_seconds (CLT art. 71).';
COMMENT ON COLUMN clt_daily.break_not_punched IS 'True when the day requires a break and none was punched: the break may be pre-recorded in the time sheet (CLT art. 74 §2), so this is to check, not a violation by itself.';
COMMENT ON COLUMN clt_daily.overtime_seconds IS 'Overtime: worked_seconds - scheduled_seconds when that exceeds 10 minutes, else 0 (variations up to 10 minutes a day are not counted, CLT art. 58 §1; beyond, all of it counts, TST Súmula 366); on a day without schedule all work is overtime. Null without a day object.';
COMMENT ON COLUMN clt_daily.overtime_over_2h IS 'True on a scheduled day whose overtime exceeds 2 hours by more than 5 minutes (CLT art. 59; the 5-minute mark variation of art. 58 §1). Work on a rest day is judged by day_over_10h and seventh_day_worked instead.';
COMMENT ON COLUMN clt_daily.day_over_10h IS 'True when worked_seconds exceeds 10 hours by more than 5 minutes (CLT art. 59 §2 caps the day at 10 hours; art. 58 §1 mark variation).';
COMMENT ON COLUMN clt_daily.night_seconds IS 'Worked seconds between 22:00 and 05:00 local time (CLT art. 73 §2), counted across midnight for a night shift.';
COMMENT ON COLUMN clt_daily.night_reduced_seconds IS 'night_seconds in reduced night hours: a night hour counts as 52 min 30 s (CLT art. 73 §1), so night_seconds * 8 / 7, rounded.';
COMMENT ON COLUMN clt_daily.consecutive_days_worked IS 'Days in a row with punches ending on this day, this day included, counted up to 15 (15 means 15 or more).';
COMMENT ON COLUMN clt_daily.seventh_day_worked IS 'True when consecutive_days_worked is 7 or more: the weekly paid rest (Lei 605/1949) was not given within six days, and rest given only after the seventh day is owed double (TST OJ 410).';
COMMENT ON COLUMN clt_daily.worked_on_holiday IS 'True when the day is a holiday of the calendar the marts use (today the national calendar table, is_holiday).';
COMMENT ON COLUMN clt_daily.holiday_name IS 'Name of the holiday when worked_on_holiday; null otherwise.';
COMMENT ON COLUMN clt_daily.manual_punches IS 'Punches of the day entered by a manager (origin Manual, spec 2.12).';
COMMENT ON COLUMN clt_daily.adjusted_punches IS 'Punches of the day marked adjusted (spec 2.12 is_adjusted).';
COMMENT ON COLUMN clt_daily.findings IS 'Findings of the day: how many of short_rest, short_break, overtime_over_2h, day_over_10h, seventh_day_worked and worked_on_holiday are true (break_not_punched and night work are not counted).';
COMMENT ON COLUMN clt_daily.synced_at IS 'When punchline wrote the row.';

CREATE TABLE clt_monthly (
  company_cnpj  text NOT NULL,
  department    text NOT NULL,
  month         date NOT NULL,
  worked_days   integer NOT NULL,
  people        integer NOT NULL,
  short_rest_days integer NOT NULL,
  short_rest_people integer NOT NULL,
  short_rest_rate numeric(8, 2) NOT NULL,
  short_break_days integer NOT NULL,
  short_break_people integer NOT NULL,
  short_break_rate numeric(8, 2) NOT NULL,
  break_not_punched_days integer NOT NULL,
  break_not_punched_people integer NOT NULL,
  break_not_punched_rate numeric(8, 2) NOT NULL,
  overtime_over_2h_days integer NOT NULL,
  overtime_over_2h_people integer NOT NULL,
  overtime_over_2h_rate numeric(8, 2) NOT NULL,
  day_over_10h_days integer NOT NULL,
  day_over_10h_people integer NOT NULL,
  day_over_10h_rate numeric(8, 2) NOT NULL,
  night_work_days integer NOT NULL,
  night_work_people integer NOT NULL,
  night_work_rate numeric(8, 2) NOT NULL,
  seventh_day_days integer NOT NULL,
  seventh_day_people integer NOT NULL,
  seventh_day_rate numeric(8, 2) NOT NULL,
  holiday_work_days integer NOT NULL,
  holiday_work_people integer NOT NULL,
  holiday_work_rate numeric(8, 2) NOT NULL,
  synced_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_cnpj, department, month)
);
CREATE INDEX clt_monthly_month_idx ON clt_monthly (company_cnpj, month);
COMMENT ON TABLE clt_monthly IS 'Labour-law findings per company, department (as of each day) and month, from clt_daily: for each kind, the days, the people affected and the rate per 100 worked days. Kept current by the sync with clt_daily (docs/warehouse.md "Labour-law marts").';
COMMENT ON COLUMN clt_monthly.company_cnpj IS 'CNPJ of the company. Natural key with department and month.';
COMMENT ON COLUMN clt_monthly.department IS 'Department as of each day (clt_daily.department); empty when none. Natural key with company_cnpj and month.';
COMMENT ON COLUMN clt_monthly.month IS 'First day of the month. Natural key with company_cnpj and department.';
COMMENT ON COLUMN clt_monthly.worked_days IS 'Worked days of the department and month: clt_daily rows (record days with punches).';
COMMENT ON COLUMN clt_monthly.people IS 'Collaborator records with at least one worked day in the department and month.';
COMMENT ON COLUMN clt_monthly.short_rest_days IS 'Worked days of the department and month with less than 11 hours of rest before the day (CLT art. 66): clt_daily rows where short_rest.';
COMMENT ON COLUMN clt_monthly.short_rest_people IS 'Collaborator records (distinct cpf and collaborator_record) with at least one such day (short_rest_days) in the department and month.';
COMMENT ON COLUMN clt_monthly.short_rest_rate IS 'Such days per 100 worked days: 100 * short_rest_days / worked_days, two decimals.';
COMMENT ON COLUMN clt_monthly.short_break_days IS 'Worked days of the department and month with a punched break shorter than the break required (CLT art. 71): clt_daily rows where short_break.';
COMMENT ON COLUMN clt_monthly.short_break_people IS 'Collaborator records (distinct cpf and collaborator_record) with at least one such day (short_break_days) in the department and month.';
COMMENT ON COLUMN clt_monthly.short_break_rate IS 'Such days per 100 worked days: 100 * short_break_days / worked_days, two decimals.';
COMMENT ON COLUMN clt_monthly.break_not_punched_days IS 'Worked days of the department and month with no punched break on a day that requires one: pre-recorded or missing (CLT art. 74 §2, not a violation by itself): clt_daily rows where break_not_punched.';
COMMENT ON COLUMN clt_monthly.break_not_punched_people IS 'Collaborator records (distinct cpf and collaborator_record) with at least one such day (break_not_punched_days) in the department and month.';
COMMENT ON COLUMN clt_monthly.break_not_punched_rate IS 'Such days per 100 worked days: 100 * break_not_punched_days / worked_days, two decimals.';
COMMENT ON COLUMN clt_monthly.overtime_over_2h_days IS 'Worked days of the department and month with more than 2 hours of overtime on a scheduled day (CLT art. 59): clt_daily rows where overtime_over_2h.';
COMMENT ON COLUMN clt_monthly.overtime_over_2h_people IS 'Collaborator records (distinct cpf and collaborator_record) with at least one such day (overtime_over_2h_days) in the department and month.';
COMMENT ON COLUMN clt_monthly.overtime_over_2h_rate IS 'Such days per 100 worked days: 100 * overtime_over_2h_days / worked_days, two decimals.';
COMMENT ON COLUMN clt_monthly.day_over_10h_days IS 'Worked days of the department and month with more than 10 hours worked (CLT art. 59 §2): clt_daily rows where day_over_10h.';
COMMENT ON COLUMN clt_monthly.day_over_10h_people IS 'Collaborator records (distinct cpf and collaborator_record) with at least one such day (day_over_10h_days) in the department and month.';
COMMENT ON COLUMN clt_monthly.day_over_10h_rate IS 'Such days per 100 worked days: 100 * day_over_10h_days / worked_days, two decimals.';
COMMENT ON COLUMN clt_monthly.night_work_days IS 'Worked days of the department and month with work between 22:00 and 05:00 (CLT art. 73): clt_daily rows where night_seconds > 0.';
COMMENT ON COLUMN clt_monthly.night_work_people IS 'Collaborator records (distinct cpf and collaborator_record) with at least one such day (night_work_days) in the department and month.';
COMMENT ON COLUMN clt_monthly.night_work_rate IS 'Such days per 100 worked days: 100 * night_work_days / worked_days, two decimals.';
COMMENT ON COLUMN clt_monthly.seventh_day_days IS 'Worked days of the department and month with the seventh (or later) day in a row worked (Lei 605/1949, TST OJ 410): clt_daily rows where seventh_day_worked.';
COMMENT ON COLUMN clt_monthly.seventh_day_people IS 'Collaborator records (distinct cpf and collaborator_record) with at least one such day (seventh_day_days) in the department and month.';
COMMENT ON COLUMN clt_monthly.seventh_day_rate IS 'Such days per 100 worked days: 100 * seventh_day_days / worked_days, two decimals.';
COMMENT ON COLUMN clt_monthly.holiday_work_days IS 'Worked days of the department and month with work on a holiday of the calendar: clt_daily rows where worked_on_holiday.';
COMMENT ON COLUMN clt_monthly.holiday_work_people IS 'Collaborator records (distinct cpf and collaborator_record) with at least one such day (holiday_work_days) in the department and month.';
COMMENT ON COLUMN clt_monthly.holiday_work_rate IS 'Such days per 100 worked days: 100 * holiday_work_days / worked_days, two decimals.';
COMMENT ON COLUMN clt_monthly.synced_at IS 'When punchline wrote the row.';

-- The people legal asks about first: most findings over the last 90 days, by the clock a session
-- can pin (punchline.now, as daily_attendance in 030_view_clock).
CREATE VIEW clt_people_90d AS
WITH today AS (
  SELECT co.cnpj, (coalesce(nullif(current_setting('punchline.now', true), '')::timestamptz, now()) AT TIME ZONE coalesce(co.time_zone, 'America/Sao_Paulo'))::date AS today
    FROM companies co
)
SELECT d.company_cnpj,
       d.cpf,
       d.collaborator_record,
       (array_agg(d.department ORDER BY d.work_date DESC))[1] AS department,
       t.today - 89 AS period_start,
       t.today AS period_end,
       count(*)::integer AS worked_days,
       sum(d.findings)::integer AS findings,
       count(*) FILTER (WHERE d.short_rest)::integer AS short_rest_days,
       count(*) FILTER (WHERE d.short_break)::integer AS short_break_days,
       count(*) FILTER (WHERE d.overtime_over_2h)::integer AS overtime_over_2h_days,
       count(*) FILTER (WHERE d.day_over_10h)::integer AS day_over_10h_days,
       count(*) FILTER (WHERE d.seventh_day_worked)::integer AS seventh_day_days,
       count(*) FILTER (WHERE d.worked_on_holiday)::integer AS holiday_work_days,

       rank() OVER (PARTITION BY d.company_cnpj ORDER BY sum(d.findings) DESC)::integer AS findings_rank
  FROM today t
 -- Per company, a range of the key's index (company_cnpj, work_date): only the 90 days are read.
 CROSS JOIN LATERAL (
   SELECT * FROM clt_daily x WHERE x.company_cnpj = t.cnpj AND x.work_date BETWEEN t.today - 89 AND t.today
 ) d
 GROUP BY d.company_cnpj, d.cpf, d.collaborator_record, t.today
HAVING sum(d.findings) > 0;
COMMENT ON VIEW clt_people_90d IS 'The collaborator records with labour-law findings in the last 90 days (today and the 89 days before, in the company''s time zone, at now() or at the session setting punchline.now), ranked per company by findings. The question legal asks first; details per day in clt_daily.';
COMMENT ON COLUMN clt_people_90d.company_cnpj IS 'CNPJ of the company.';
COMMENT ON COLUMN clt_people_90d.cpf IS 'CPF of the collaborator, 11 digits.';
COMMENT ON COLUMN clt_people_90d.collaborator_record IS 'Which record of the CPF (clt_daily.collaborator_record).';
COMMENT ON COLUMN clt_people_90d.department IS 'Department as of the record''s latest worked day of the 90.';
COMMENT ON COLUMN clt_people_90d.period_start IS 'First day of the 90 (today - 89).';
COMMENT ON COLUMN clt_people_90d.period_end IS 'Last day of the 90: today in the company''s time zone (or as of punchline.now).';
COMMENT ON COLUMN clt_people_90d.worked_days IS 'Days with punches of the record in the 90 days.';
COMMENT ON COLUMN clt_people_90d.findings IS 'Findings of the 90 days: the sum of clt_daily.findings.';
COMMENT ON COLUMN clt_people_90d.short_rest_days IS 'Days of the 90 with less than 11 hours of rest before the day (CLT art. 66) (see clt_daily).';
COMMENT ON COLUMN clt_people_90d.short_break_days IS 'Days of the 90 with a punched break shorter than the break required (CLT art. 71) (see clt_daily).';
COMMENT ON COLUMN clt_people_90d.overtime_over_2h_days IS 'Days of the 90 with more than 2 hours of overtime on a scheduled day (CLT art. 59) (see clt_daily).';
COMMENT ON COLUMN clt_people_90d.day_over_10h_days IS 'Days of the 90 with more than 10 hours worked (CLT art. 59 §2) (see clt_daily).';
COMMENT ON COLUMN clt_people_90d.seventh_day_days IS 'Days of the 90 with the seventh (or later) day in a row worked (Lei 605/1949, TST OJ 410) (see clt_daily).';
COMMENT ON COLUMN clt_people_90d.holiday_work_days IS 'Days of the 90 with work on a holiday of the calendar (see clt_daily).';

COMMENT ON COLUMN clt_people_90d.findings_rank IS 'Rank of the record by findings within its company, 1 for the most (ties share a rank).';

COMMENT ON COLUMN quality_checks.check_name IS 'Which check: window_completeness, totals_vs_days, rule_vs_days, day_vs_punches, punch_without_day, unknown_collaborator, history_overlap, coverage, marts_vs_inputs or clt_vs_source (clt_daily against the source''s inconsistencies, differences as warn with their reason). Key with company_cnpj, part, scope, cpf and checked_at.';

GRANT SELECT ON clt_daily, clt_monthly, clt_people_90d TO workforce_reader;
