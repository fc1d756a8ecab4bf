-- 014_analyst_model: the warehouse answers analysts' questions, per employment record.
-- One CPF may have several records in a company (spec §3: a duplicated CPF, a re-hire),
-- told apart only by the block's admission date, so collaborator_record (that admission
-- date as text, empty when the record has none) joins the natural key of every table
-- that holds per-person rows and had none: collaborators, collaborator_history,
-- tardiness, adjustment_requests, inconsistencies and absence_collaborators. Existing
-- rows take the admission date of their (until now single) collaborators row.
-- Then the marts, kept current by the sync in each window's transaction
-- (src/marts/): employments (one row per record: admission, when it was listed, when it
-- ended), calendar (dates with ISO weeks and Brazil's national holidays), employee_daily
-- (one row per record and day employed, attributes as of the day and the day's
-- measures), monthly_headcount (company × department × month) and absence_days (absences
-- expanded to days); pushed_dismissals (what punchline push sent, the only dismissal date
-- the API lets punchline know); companies.time_zone (what "today" is for a company).
-- daily_attendance and monthly_hours are rebuilt per record: a day that has not ended
-- yet is not counted absent, every absence of a day is shown, totals carry the
-- department at the time and the overtime of all bands. docs/warehouse.md "Marts".

ALTER TABLE companies ADD COLUMN time_zone text;
COMMENT ON COLUMN companies.time_zone IS 'IANA time zone of the company''s local date-times (COMPANY_TIMEZONES, else the connection''s API_TIMEZONE), as the last sync of the company used it; decides which day is "today" for the marts and daily_attendance. Null until a sync of the company''s data ran (America/Sao_Paulo is then assumed).';

-- collaborators: one row per collaborator record.
ALTER TABLE collaborators ADD COLUMN collaborator_record text, ADD COLUMN attributes_as_of date;
UPDATE collaborators SET collaborator_record = coalesce(admission_date::text, '');
ALTER TABLE collaborators ALTER COLUMN collaborator_record SET NOT NULL,
  DROP CONSTRAINT collaborators_pkey,
  ADD PRIMARY KEY (company_cnpj, cpf, collaborator_record);
COMMENT ON TABLE collaborators IS 'Collaborators (employees) per company and collaborator record, current attributes. Source: GET /customer/v2/collaborator (the authoritative list of active collaborators, spec 4.1), plus records that list lacks but period data shows (usually dismissed). One CPF has a row per record (a duplicated CPF, a re-hire: collaborator_record). Rows are never deleted; see active, and employments for when a record started and ended.';
COMMENT ON COLUMN collaborators.company_cnpj IS 'CNPJ of the employing company (collaborator block company.national_registry, spec 2.1). Natural key with cpf and collaborator_record.';
COMMENT ON COLUMN collaborators.cpf IS 'Individual taxpayer number (CPF), 11 digits with leading zeros (spec 2.1 national_registry). Natural key with company_cnpj and collaborator_record.';
COMMENT ON COLUMN collaborators.collaborator_record IS 'Which record of the CPF the row is about: the admission date of that record as sent (YYYY-MM-DD; empty when the record has none). Natural key with company_cnpj and cpf.';
COMMENT ON COLUMN collaborators.attributes_as_of IS 'The day the attributes are known to hold: the day of the last list sync that listed the record, or the last day of the period data that carried them (a record not in the list takes the attributes of the newest period data).';
COMMENT ON COLUMN collaborators.active IS 'True while the record is in GET /customer/v2/collaborator (active collaborators); false once no longer listed (dismissed) or when only seen in period data. employments.left_on says when it ended.';
COMMENT ON COLUMN collaborators.source IS 'list = attributes from the authoritative collaborator list; period = the record is not listed now and its attributes are those the newest period data (punches, totals, absences...) carried.';

-- collaborator_history: versions per record, so two records of one CPF do not close each other's versions.
ALTER TABLE collaborator_history ADD COLUMN collaborator_record text;
UPDATE collaborator_history h SET collaborator_record = coalesce(c.collaborator_record, '')
  FROM collaborators c WHERE c.company_cnpj = h.company_cnpj AND c.cpf = h.cpf;
UPDATE collaborator_history SET collaborator_record = '' WHERE collaborator_record IS NULL;
DROP INDEX collaborator_history_open_idx;
ALTER TABLE collaborator_history ALTER COLUMN collaborator_record SET NOT NULL,
  DROP CONSTRAINT collaborator_history_pkey,
  ADD PRIMARY KEY (company_cnpj, cpf, collaborator_record, valid_from);
-- At most one open version per collaborator record.
CREATE UNIQUE INDEX collaborator_history_open_idx ON collaborator_history (company_cnpj, cpf, collaborator_record) WHERE valid_to IS NULL;
COMMENT ON TABLE collaborator_history IS 'Slowly changing dimension (type 2) of collaborator records: one row per version of the tracked attributes (department, occupation, team, business unit, e-mail, name, registration), as observed in GET /customer/v2/collaborator. The version valid at instant T has valid_from <= T < coalesce(valid_to, infinity). Two records of one CPF have their own versions.';
COMMENT ON COLUMN collaborator_history.company_cnpj IS 'CNPJ of the employing company. Natural key with cpf, collaborator_record and valid_from.';
COMMENT ON COLUMN collaborator_history.cpf IS 'CPF of the collaborator, 11 digits with leading zeros. Natural key with company_cnpj, collaborator_record and valid_from.';
COMMENT ON COLUMN collaborator_history.collaborator_record IS 'Which record of the CPF the version belongs to (collaborators.collaborator_record). Natural key with company_cnpj, cpf and valid_from.';

-- The day tables without a record key: two records' rows of one day no longer collapse.
-- Each takes the record of its (until now single) collaborators row, then the new key.
DO $$
DECLARE
  t record;
BEGIN
  FOR t IN SELECT * FROM (VALUES
    ('tardiness', 'tardiness_pkey', 'PRIMARY KEY (company_cnpj, work_date, cpf, collaborator_record)'),
    ('adjustment_requests', 'adjustment_requests_company_cnpj_request_date_cpf_seq_key',
     'CONSTRAINT adjustment_requests_key UNIQUE (company_cnpj, request_date, cpf, collaborator_record, seq)'),
    ('inconsistencies', 'inconsistencies_company_cnpj_occurrence_date_cpf_seq_key',
     'CONSTRAINT inconsistencies_key UNIQUE (company_cnpj, occurrence_date, cpf, collaborator_record, seq)'),
    ('absence_collaborators', 'absence_collaborators_pkey', 'PRIMARY KEY (absence_id, company_cnpj, cpf, collaborator_record)')
  ) AS v (name, old_key, new_key) LOOP
    EXECUTE format('ALTER TABLE %I ADD COLUMN collaborator_record text NOT NULL DEFAULT %L', t.name, '');
    EXECUTE format('UPDATE %I x SET collaborator_record = c.collaborator_record FROM collaborators c
                     WHERE c.company_cnpj = x.company_cnpj AND c.cpf = x.cpf', t.name);
    EXECUTE format('ALTER TABLE %I ALTER COLUMN collaborator_record DROP DEFAULT, DROP CONSTRAINT %I, ADD %s', t.name, t.old_key, t.new_key);
  END LOOP;
END
$$;
COMMENT ON COLUMN tardiness.collaborator_record IS 'Which record of the CPF the late arrival belongs to: the admission date of that record as sent (empty when none). Natural key with company_cnpj, cpf and work_date.';
COMMENT ON TABLE tardiness IS 'Late arrivals, one row per collaborator record and day. Source: GET /customer/v2/tardiness (spec 2.8). A window''s rows are replaced on each sync: a late arrival the API no longer lists is removed.';
COMMENT ON COLUMN adjustment_requests.collaborator_record IS 'Which record of the CPF the request belongs to: the admission date of that record as sent (empty when none). Natural key with company_cnpj, cpf, request_date and seq.';
COMMENT ON COLUMN inconsistencies.collaborator_record IS 'Which record of the CPF the occurrence belongs to: the admission date of that record as sent (empty when none). Natural key with company_cnpj, cpf, occurrence_date and seq.';
COMMENT ON COLUMN absence_collaborators.collaborator_record IS 'Which record of the CPF the absence concerns: the admission date of the collaborator block as sent (empty when none). Natural key with absence_id, company_cnpj and cpf.';

CREATE TABLE pushed_dismissals (
  id                  bigserial PRIMARY KEY,
  company_cnpj        text NOT NULL CHECK (company_cnpj ~ '^[0-9]{14}$'),
  cpf                 text,
  registration_number text,
  dismissal_date      date NOT NULL,
  connection          text NOT NULL,
  pushed_at           timestamptz NOT NULL DEFAULT now(),
  CHECK (cpf IS NOT NULL OR registration_number IS NOT NULL)
);
CREATE INDEX pushed_dismissals_company_idx ON pushed_dismissals (company_cnpj, cpf);
COMMENT ON TABLE pushed_dismissals IS 'Dismissals punchline push sent through PUT /customer/v2/collaborator/dismissal (spec 4.2) and the API accepted. The API shows no dismissal date anywhere, so these are the only exact leaving dates punchline knows: employments.left_on takes them (left_on_source dismissal). Written by punchline itself.';
COMMENT ON COLUMN pushed_dismissals.id IS 'Number of the dismissal, increasing. Key.';
COMMENT ON COLUMN pushed_dismissals.company_cnpj IS 'CNPJ of the token''s company, where the dismissal acted (spec 1.4 rule 2).';
COMMENT ON COLUMN pushed_dismissals.cpf IS 'CPF of the dismissed collaborator, 11 digits; null when the row named only the registration number and the warehouse did not know its CPF.';
COMMENT ON COLUMN pushed_dismissals.registration_number IS 'Registration number the push sent; null when it sent only the CPF.';
COMMENT ON COLUMN pushed_dismissals.dismissal_date IS 'The dismissal date sent: the last day of the employment.';
COMMENT ON COLUMN pushed_dismissals.connection IS 'Connection name of the push (never the token).';
COMMENT ON COLUMN pushed_dismissals.pushed_at IS 'When the API accepted the dismissal.';

CREATE TABLE employments (
  company_cnpj        text NOT NULL CHECK (company_cnpj ~ '^[0-9]{14}$'),
  cpf                 text NOT NULL,
  collaborator_record text NOT NULL,
  admission_date      date,
  registration_number text,
  employed_from       date NOT NULL,
  first_seen_at       timestamptz NOT NULL DEFAULT now(),
  first_listed_at     timestamptz,
  last_listed_at      timestamptz,
  is_listed           boolean NOT NULL DEFAULT false,
  first_data_on       date,
  last_data_on        date,
  left_on             date,
  left_on_source      text CHECK (left_on_source IN ('dismissal', 'inferred')),
  synced_at           timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_cnpj, cpf, collaborator_record),
  CHECK ((left_on IS NULL) = (left_on_source IS NULL))
);
COMMENT ON TABLE employments IS 'One row per employment record (collaborator record): when it started, when punchline saw it in the active list, and when it ended. GET /customer/v2/collaborator lists only active collaborators and no read shows a dismissal date (spec 2.1, 4.1), so left_on is the date punchline sent through push when it dismissed the record, and otherwise inferred once the record leaves the active list. Kept current by the sync (docs/warehouse.md "Marts").';
COMMENT ON COLUMN employments.company_cnpj IS 'CNPJ of the employing company. Natural key with cpf and collaborator_record.';
COMMENT ON COLUMN employments.cpf IS 'CPF of the collaborator, 11 digits with leading zeros. Natural key with company_cnpj and collaborator_record.';
COMMENT ON COLUMN employments.collaborator_record IS 'Which record of the CPF (collaborators.collaborator_record: its admission date as sent, empty when none). Natural key with company_cnpj and cpf.';
COMMENT ON COLUMN employments.admission_date IS 'Formal admission date of the record (spec 2.1); null when the record has none.';
COMMENT ON COLUMN employments.registration_number IS 'Registration (matrícula) number of the record (spec 2.1); null when it has none.';
COMMENT ON COLUMN employments.employed_from IS 'First day of the employment: the admission date, else the first day punchline saw the record (its first day of period data, or the day it was first listed).';
COMMENT ON COLUMN employments.first_seen_at IS 'When punchline first stored the record (from the list or from period data).';
COMMENT ON COLUMN employments.first_listed_at IS 'When punchline first saw the record in the active list (GET /customer/v2/collaborator); null when it never did.';
COMMENT ON COLUMN employments.last_listed_at IS 'When punchline last saw the record in the active list; null when it never did.';
COMMENT ON COLUMN employments.is_listed IS 'True while the record is in the active list as of the last list sync of the company.';
COMMENT ON COLUMN employments.first_data_on IS 'First day the synced period data (point/getFromPeriod days) shows for the record; null when none was synced.';
COMMENT ON COLUMN employments.last_data_on IS 'Last day the synced period data (point/getFromPeriod days) shows for the record: the API returns a record''s days up to its dismissal. Null when none was synced.';
COMMENT ON COLUMN employments.left_on IS 'Last day of the employment; null while the record is listed (active). Once it is no longer listed: the date punchline pushed as its dismissal, else the last day of its period data (last_data_on), else the day it was last listed. An inferred date moves when later period data shows later days.';
COMMENT ON COLUMN employments.left_on_source IS 'dismissal (punchline sent the dismissal through push: pushed_dismissals) or inferred (from the active list and the period data); null while listed.';
COMMENT ON COLUMN employments.synced_at IS 'When punchline last changed the row.';

CREATE TABLE calendar (
  calendar_date   date PRIMARY KEY,
  year            integer NOT NULL,
  quarter         integer NOT NULL CHECK (quarter BETWEEN 1 AND 4),
  month           integer NOT NULL CHECK (month BETWEEN 1 AND 12),
  month_start     date NOT NULL,
  month_name      text NOT NULL,
  day_of_month    integer NOT NULL,
  day_of_year     integer NOT NULL,
  iso_year        integer NOT NULL,
  iso_week        integer NOT NULL CHECK (iso_week BETWEEN 1 AND 53),
  week_start      date NOT NULL,
  iso_day_of_week integer NOT NULL CHECK (iso_day_of_week BETWEEN 1 AND 7),
  day_name        text NOT NULL,
  is_weekend      boolean NOT NULL,
  is_holiday      boolean NOT NULL,
  holiday_name    text,
  is_business_day boolean NOT NULL,
  CHECK (is_holiday = (holiday_name IS NOT NULL))
);
COMMENT ON TABLE calendar IS 'One row per date, whole calendar years from the first synced year to a year after the last synced day: the date attributes analysts group by (ISO week, month, quarter, weekday) and Brazil''s national holidays, so no query computes them. Company, state and city holidays are not in the API and not here. Kept current by the sync.';
COMMENT ON COLUMN calendar.calendar_date IS 'The date. Key.';
COMMENT ON COLUMN calendar.year IS 'Calendar year.';
COMMENT ON COLUMN calendar.quarter IS 'Quarter of the calendar year, 1 to 4.';
COMMENT ON COLUMN calendar.month IS 'Month number, 1 (January) to 12.';
COMMENT ON COLUMN calendar.month_start IS 'First day of the month: the month column of monthly_hours and monthly_headcount.';
COMMENT ON COLUMN calendar.month_name IS 'Month name in English (January ... December).';
COMMENT ON COLUMN calendar.day_of_month IS 'Day of the month, 1 to 31.';
COMMENT ON COLUMN calendar.day_of_year IS 'Day of the year, 1 to 366.';
COMMENT ON COLUMN calendar.iso_year IS 'ISO 8601 week-numbering year (differs from year in the first and last days of some years).';
COMMENT ON COLUMN calendar.iso_week IS 'ISO 8601 week number, 1 to 53 (weeks start on Monday).';
COMMENT ON COLUMN calendar.week_start IS 'Monday of the date''s ISO week.';
COMMENT ON COLUMN calendar.iso_day_of_week IS 'ISO day of the week: 1 Monday ... 7 Sunday.';
COMMENT ON COLUMN calendar.day_name IS 'Day name in English (Monday ... Sunday).';
COMMENT ON COLUMN calendar.is_weekend IS 'True on Saturdays and Sundays.';
COMMENT ON COLUMN calendar.is_holiday IS 'True on Brazil''s national holidays: 1 January, Good Friday, 21 April, 1 May, 7 September, 12 October, 2 November, 15 November, 20 November (from 2024, Lei 14.759/2023) and 25 December. Company, state and city holidays (and optional days such as Carnival) are not in the API and not flagged.';
COMMENT ON COLUMN calendar.holiday_name IS 'Official name of the national holiday in Portuguese (e.g. Tiradentes, Sexta-feira Santa); null on other days.';
COMMENT ON COLUMN calendar.is_business_day IS 'True on weekdays that are not national holidays.';

CREATE TABLE employee_daily (
  company_cnpj        text NOT NULL,
  cpf                 text NOT NULL,
  collaborator_record text NOT NULL,
  work_date           date NOT NULL,
  department          text,
  occupation          text,
  team                text,
  business_unit       text,
  attributes_basis    text NOT NULL CHECK (attributes_basis IN ('history', 'before_history', 'period_data')),
  is_scheduled        boolean,
  worked_seconds      integer,
  punch_count         integer NOT NULL,
  late_seconds        integer NOT NULL,
  is_late             boolean NOT NULL,
  on_leave            boolean NOT NULL,
  absence_types       text[],
  is_absent           boolean,
  overtime_seconds    integer,
  bank_balance_seconds integer,
  is_day_over         boolean NOT NULL,
  synced_at           timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_cnpj, work_date, cpf, collaborator_record)
) WITH (fillfactor = 50);
-- Half of each page is left free: the windows of tardiness, hour-bank balances and
-- absences rewrite one measure of rows the punches windows wrote, and an update that
-- fits in its page leaves the (wide) key index alone (a heap-only tuple).
-- Rows written before their day ended (today's): rewritten once it has.
CREATE INDEX employee_daily_open_days_idx ON employee_daily (company_cnpj, work_date) WHERE NOT is_day_over;
COMMENT ON TABLE employee_daily IS 'One row per collaborator record per day employed (from employments.employed_from to left_on or today) within the synced range: the days for which the warehouse holds the company''s period data (point/getFromPeriod windows). Attributes as of that day, and the day''s measures. Kept current by the sync: every window that changes an input rewrites its company''s rows of the days it covers (docs/warehouse.md "Marts").';
COMMENT ON COLUMN employee_daily.company_cnpj IS 'CNPJ of the employing company. Natural key with cpf, collaborator_record and work_date.';
COMMENT ON COLUMN employee_daily.cpf IS 'CPF of the collaborator, 11 digits with leading zeros. Natural key with company_cnpj, collaborator_record and work_date.';
COMMENT ON COLUMN employee_daily.collaborator_record IS 'Which record of the CPF (employments.collaborator_record). Natural key with company_cnpj, cpf and work_date.';
COMMENT ON COLUMN employee_daily.work_date IS 'The day, in the company''s local calendar. Natural key with company_cnpj, cpf and collaborator_record.';
COMMENT ON COLUMN employee_daily.department IS 'Department of the record as of the day (collaborator_history; see attributes_basis).';
COMMENT ON COLUMN employee_daily.occupation IS 'Occupation of the record as of the day (see attributes_basis).';
COMMENT ON COLUMN employee_daily.team IS 'Team of the record as of the day; null when none (see attributes_basis).';
COMMENT ON COLUMN employee_daily.business_unit IS 'Business unit of the record as of the day (see attributes_basis).';
COMMENT ON COLUMN employee_daily.attributes_basis IS 'Where the attributes come from: history (the collaborator_history version valid at the end of the day), before_history (the day precedes the first list sync: the earliest version punchline knows) or period_data (a record never seen in the active list: the attributes its newest period data carried).';
COMMENT ON COLUMN employee_daily.is_scheduled IS 'True when the day''s shift names clock times (a work day), as daily_attendance.is_scheduled; null when the API returned no day object for the record.';
COMMENT ON COLUMN employee_daily.worked_seconds IS 'Worked time of the day in seconds (work_days.worked_seconds, spec 2.12 worked_time); null when the API returned no day object.';
COMMENT ON COLUMN employee_daily.punch_count IS 'Current (not deleted) punches of the day listed under the record.';
COMMENT ON COLUMN employee_daily.late_seconds IS 'Lateness of the day in seconds (tardiness.late_seconds), 0 when not late.';
COMMENT ON COLUMN employee_daily.is_late IS 'True when the API reported a tardiness of the record that day (spec 2.8).';
COMMENT ON COLUMN employee_daily.on_leave IS 'True when an approved absence or vacation of the record covers the day (absence_days).';
COMMENT ON COLUMN employee_daily.absence_types IS 'Type names of every absence of the record covering the day, by absence id; null when none.';
COMMENT ON COLUMN employee_daily.is_absent IS 'True on a scheduled day without any punch and without an absence covering it; null while the day has not ended in the company''s time zone (not yet known, see is_day_over).';
COMMENT ON COLUMN employee_daily.overtime_seconds IS 'Overtime of the day in seconds, all bands and destinations (hour bank and paid): hour_bank_balances.total_overtime_seconds (spec 2.11 total_overtime); null when the day''s balance was not synced.';
COMMENT ON COLUMN employee_daily.bank_balance_seconds IS 'Hour-bank balance at the end of the day in seconds, signed, initial balance and payments included: hour_bank_balances.accumulated_balance_seconds (spec 2.11 accumulated_balance); null when the day''s balance was not synced.';
COMMENT ON COLUMN employee_daily.is_day_over IS 'True when the day had ended in the company''s time zone when the row was written; a row of today is rewritten by the next sync of its window.';
COMMENT ON COLUMN employee_daily.synced_at IS 'When punchline wrote the row.';

CREATE TABLE monthly_headcount (
  company_cnpj        text NOT NULL,
  department          text NOT NULL,
  month               date NOT NULL,
  first_day           date NOT NULL,
  last_day            date NOT NULL,
  days_covered        integer NOT NULL,
  headcount_first_day integer NOT NULL,
  headcount_last_day  integer NOT NULL,
  average_headcount   numeric(12, 2) NOT NULL,
  hires               integer NOT NULL,
  leavers             integer NOT NULL,
  turnover_rate       numeric(12, 4),
  synced_at           timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_cnpj, department, month)
);
COMMENT ON TABLE monthly_headcount IS 'One row per company, department (as of the day) and month of the synced range: headcount on the first and last synced day of the month, average daily headcount, hires, leavers and turnover. Derived from employee_daily and employments; kept current by the sync with them (docs/warehouse.md "Marts").';
COMMENT ON COLUMN monthly_headcount.company_cnpj IS 'CNPJ of the company. Natural key with department and month.';
COMMENT ON COLUMN monthly_headcount.department IS 'Department as of each day (employee_daily.department); empty when the record names none. Natural key with company_cnpj and month.';
COMMENT ON COLUMN monthly_headcount.month IS 'First day of the month. Natural key with company_cnpj and department.';
COMMENT ON COLUMN monthly_headcount.first_day IS 'First day of the month within the synced range (the first of the month when the whole month is synced).';
COMMENT ON COLUMN monthly_headcount.last_day IS 'Last day of the month within the synced range (the month''s last day, or today for the current month).';
COMMENT ON COLUMN monthly_headcount.days_covered IS 'Days of the month within the synced range.';
COMMENT ON COLUMN monthly_headcount.headcount_first_day IS 'Records employed on first_day in the department (employed_from <= day <= left_on).';
COMMENT ON COLUMN monthly_headcount.headcount_last_day IS 'Records employed on last_day in the department.';
COMMENT ON COLUMN monthly_headcount.average_headcount IS 'Average of the daily headcount of the department over the covered days of the month.';
COMMENT ON COLUMN monthly_headcount.hires IS 'Records whose employment started in the month (employed_from, the admission date) on a covered day, counted in their department of that day.';
COMMENT ON COLUMN monthly_headcount.leavers IS 'Records whose employment ended in the month (employments.left_on) on a covered day, counted in their department of that day.';
COMMENT ON COLUMN monthly_headcount.turnover_rate IS 'leavers / average_headcount (0.05 = 5%); null when the average headcount is 0.';
COMMENT ON COLUMN monthly_headcount.synced_at IS 'When punchline wrote the row.';

CREATE TABLE absence_days (
  absence_id          bigint NOT NULL,
  company_cnpj        text NOT NULL,
  cpf                 text NOT NULL,
  collaborator_record text NOT NULL,
  absence_date        date NOT NULL,
  absence_type_id     integer NOT NULL,
  absence_type        text,
  paid_leave          boolean NOT NULL,
  full_day            boolean NOT NULL,
  is_weekend          boolean NOT NULL,
  is_holiday          boolean NOT NULL,
  is_business_day     boolean NOT NULL,
  synced_at           timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (absence_id, company_cnpj, cpf, collaborator_record, absence_date)
);
CREATE INDEX absence_days_day_idx ON absence_days (company_cnpj, absence_date);
COMMENT ON TABLE absence_days IS 'Absences expanded to days: one row per absence, person record and day it covers (from the local date of begins_at to that of ends_at), with the type and the day''s calendar flags. Deleted absences and members are left out. Kept current by the absence windows (docs/warehouse.md "Marts").';
COMMENT ON COLUMN absence_days.absence_id IS 'The absence (absences.absence_id). Natural key with company_cnpj, cpf, collaborator_record and absence_date.';
COMMENT ON COLUMN absence_days.company_cnpj IS 'CNPJ of the collaborator''s company.';
COMMENT ON COLUMN absence_days.cpf IS 'CPF of the absent collaborator, 11 digits with leading zeros.';
COMMENT ON COLUMN absence_days.collaborator_record IS 'Which record of the CPF (absence_collaborators.collaborator_record).';
COMMENT ON COLUMN absence_days.absence_date IS 'A day the absence covers, in the company''s local calendar.';
COMMENT ON COLUMN absence_days.absence_type_id IS 'Absence type id (absences.absence_type_id; see absence_types).';
COMMENT ON COLUMN absence_days.absence_type IS 'Absence type name as sent (absences.absence_type).';
COMMENT ON COLUMN absence_days.paid_leave IS 'True for a paid leave (absences.paid_leave).';
COMMENT ON COLUMN absence_days.full_day IS 'True when the absence takes whole days (absences.full_day).';
COMMENT ON COLUMN absence_days.is_weekend IS 'True when the day is a Saturday or Sunday (calendar.is_weekend).';
COMMENT ON COLUMN absence_days.is_holiday IS 'True when the day is a national holiday (calendar.is_holiday).';
COMMENT ON COLUMN absence_days.is_business_day IS 'True on weekdays that are not national holidays (calendar.is_business_day): the days an absence costs.';
COMMENT ON COLUMN absence_days.synced_at IS 'When punchline wrote the row.';

COMMENT ON COLUMN quality_checks.check_name IS 'Which check: window_completeness, totals_vs_days, rule_vs_days, day_vs_punches, punch_without_day, unknown_collaborator, history_overlap, coverage or marts_vs_inputs. Key with company_cnpj, part, scope, cpf and checked_at.';

-- The analyst views of the views below are regenerated by migrate afterwards.
DROP VIEW daily_attendance CASCADE;
CREATE VIEW daily_attendance AS
SELECT
  d.company_cnpj,
  d.cpf,
  c.name AS collaborator_name,
  c.department,
  d.work_date,
  d.shift,
  p.first_in_local,
  CASE WHEN p.punch_count >= 2 THEN p.last_punch_local END AS last_out_local,
  p.first_in_at,
  CASE WHEN p.punch_count >= 2 THEN p.last_punch_at END AS last_out_at,
  coalesce(p.punch_count, 0)::integer AS punch_count,
  d.worked_seconds,
  round(d.worked_seconds / 3600.0, 2) AS worked_hours,
  coalesce(t.late_seconds, 0) AS late_seconds,
  (t.cpf IS NOT NULL) AS is_late,
  (d.shift ~ '[0-9]:[0-5][0-9]') AS is_scheduled,
  CASE WHEN d.work_date < (now() AT TIME ZONE coalesce(co.time_zone, 'America/Sao_Paulo'))::date
       THEN (d.shift ~ '[0-9]:[0-5][0-9]' AND coalesce(p.punch_count, 0) = 0 AND ab.absence_types IS NULL) END AS is_absent,
  (ab.absence_types IS NOT NULL) AS on_leave,
  ab.absence_types[1] AS absence_type,
  d.collaborator_record,
  ab.absence_types,
  (d.work_date < (now() AT TIME ZONE coalesce(co.time_zone, 'America/Sao_Paulo'))::date) AS is_day_over
FROM work_days d
LEFT JOIN companies co ON co.cnpj = d.company_cnpj
LEFT JOIN collaborators c ON c.company_cnpj = d.company_cnpj AND c.cpf = d.cpf AND c.collaborator_record = d.collaborator_record
LEFT JOIN (
  SELECT company_cnpj, cpf, work_date, collaborator_record,
         min(punched_at_local) AS first_in_local, max(punched_at_local) AS last_punch_local,
         min(punched_at) AS first_in_at, max(punched_at) AS last_punch_at,
         count(*) AS punch_count
  FROM punches
  WHERE deleted_at IS NULL
  GROUP BY company_cnpj, cpf, work_date, collaborator_record
) p ON p.company_cnpj = d.company_cnpj AND p.cpf = d.cpf AND p.work_date = d.work_date AND p.collaborator_record = d.collaborator_record
LEFT JOIN tardiness t ON t.company_cnpj = d.company_cnpj AND t.cpf = d.cpf AND t.work_date = d.work_date AND t.collaborator_record = d.collaborator_record
LEFT JOIN LATERAL (
  SELECT array_agg(a.absence_type ORDER BY a.absence_id) AS absence_types
  FROM absence_days a
  WHERE a.company_cnpj = d.company_cnpj AND a.absence_date = d.work_date AND a.cpf = d.cpf AND a.collaborator_record = d.collaborator_record
) ab ON true
WHERE d.deleted_at IS NULL;
COMMENT ON VIEW daily_attendance IS 'One row per collaborator record and day returned by point/getFromPeriod (work_days): first entry, last exit, punch count, worked time, tardiness and absence flags. Deleted rows are left out. Times are company local wall-clock (*_local) or instants (*_at). A CPF with two records that day (duplicated, re-hired) has a row per record. A day that has not ended in the company''s time zone is never counted absent (is_absent is null). employee_daily is the same day grain as a table, with attributes as of the day.';
COMMENT ON COLUMN daily_attendance.company_cnpj IS 'CNPJ of the collaborator''s company.';
COMMENT ON COLUMN daily_attendance.cpf IS 'CPF of the collaborator, 11 digits with leading zeros.';
COMMENT ON COLUMN daily_attendance.collaborator_name IS 'Current name of the record (collaborators.name).';
COMMENT ON COLUMN daily_attendance.department IS 'Current department of the record (collaborators.department; employee_daily has the department as of the day).';
COMMENT ON COLUMN daily_attendance.work_date IS 'The day.';
COMMENT ON COLUMN daily_attendance.shift IS 'Scheduled shift as described by the API (spec 2.12 shift).';
COMMENT ON COLUMN daily_attendance.first_in_local IS 'First punch of the day, company local time; null without punches.';
COMMENT ON COLUMN daily_attendance.last_out_local IS 'Last punch of the day, company local time; null with fewer than two punches.';
COMMENT ON COLUMN daily_attendance.first_in_at IS 'First punch of the day as an instant (timestamptz).';
COMMENT ON COLUMN daily_attendance.last_out_at IS 'Last punch of the day as an instant; null with fewer than two punches.';
COMMENT ON COLUMN daily_attendance.punch_count IS 'Number of current (not deleted) punches of the day listed under the record.';
COMMENT ON COLUMN daily_attendance.worked_seconds IS 'Worked time of the day in seconds, signed (spec 2.12 worked_time).';
COMMENT ON COLUMN daily_attendance.worked_hours IS 'Worked time of the day in hours, numeric rounded to 0.01 h (worked_seconds / 3600).';
COMMENT ON COLUMN daily_attendance.late_seconds IS 'Lateness of the day in seconds (tardiness.late_seconds of the record), 0 when not late.';
COMMENT ON COLUMN daily_attendance.is_late IS 'True when the API reported a tardiness of the record that day (spec 2.8).';
COMMENT ON COLUMN daily_attendance.is_scheduled IS 'True when the shift text names clock times (a work day); days off, weekly rest and holidays are described in words (e.g. Folga, Feriado). A heuristic on the API''s free text (spec 2.12 shift).';
COMMENT ON COLUMN daily_attendance.is_absent IS 'True on a scheduled day (is_scheduled) without any punch and without an absence covering it (on_leave); null while the day has not ended in the company''s time zone (not yet known).';
COMMENT ON COLUMN daily_attendance.on_leave IS 'True when an approved absence or vacation of the record covers the day (absence_days).';
COMMENT ON COLUMN daily_attendance.absence_type IS 'Type name of the first absence covering the day (by absence id); absence_types has all of them; null when none.';
COMMENT ON COLUMN daily_attendance.collaborator_record IS 'Which record of the CPF the row is about (work_days.collaborator_record).';
COMMENT ON COLUMN daily_attendance.absence_types IS 'Type names of every absence of the record covering the day, by absence id; null when none.';
COMMENT ON COLUMN daily_attendance.is_day_over IS 'True when the day has ended in the company''s time zone (companies.time_zone); today and later days are not over.';

DROP VIEW monthly_hours CASCADE;
CREATE VIEW monthly_hours AS
SELECT
  h.company_cnpj,
  h.cpf,
  date_trunc('month', h.period_start)::date AS month,
  count(*)::integer AS periods,
  round(sum(h.worked_time_seconds) / 3600.0, 2) AS worked_time_hours,
  round(sum(h.worked_actual_time_seconds) / 3600.0, 2) AS worked_actual_time_hours,
  round(sum(h.bank_time_seconds) / 3600.0, 2) AS bank_time_hours,
  round(sum(h.bank_time_factored_seconds) / 3600.0, 2) AS bank_time_factored_hours,
  round(sum(h.fault_full_time_seconds) / 3600.0, 2) AS fault_full_time_hours,
  round(sum(h.fault_partial_time_seconds) / 3600.0, 2) AS fault_partial_time_hours,
  round(sum(h.interjourney_seconds) / 3600.0, 2) AS interjourney_hours,
  round(sum(h.intrajourney_seconds) / 3600.0, 2) AS intrajourney_hours,
  round(sum(h.justified_time_seconds) / 3600.0, 2) AS justified_time_hours,
  round(sum(h.justified_not_paid_time_seconds) / 3600.0, 2) AS justified_not_paid_time_hours,
  round(sum(h.medical_certificate_time_seconds) / 3600.0, 2) AS medical_certificate_time_hours,
  round(sum(h.night_time_seconds) / 3600.0, 2) AS night_time_hours,
  round(sum(h.night_time_reduced_seconds) / 3600.0, 2) AS night_time_reduced_hours,
  round(sum(h.over_time_1_seconds) / 3600.0, 2) AS over_time_1_hours,
  round(sum(h.over_time_1_day_seconds) / 3600.0, 2) AS over_time_1_day_hours,
  round(sum(h.over_time_1_night_seconds) / 3600.0, 2) AS over_time_1_night_hours,
  round(sum(h.over_time_1_night_reduced_seconds) / 3600.0, 2) AS over_time_1_night_reduced_hours,
  round(sum(h.over_time_2_seconds) / 3600.0, 2) AS over_time_2_hours,
  round(sum(h.over_time_2_day_seconds) / 3600.0, 2) AS over_time_2_day_hours,
  round(sum(h.over_time_2_night_seconds) / 3600.0, 2) AS over_time_2_night_hours,
  round(sum(h.over_time_2_night_reduced_seconds) / 3600.0, 2) AS over_time_2_night_reduced_hours,
  round(sum(h.over_time_3_seconds) / 3600.0, 2) AS over_time_3_hours,
  round(sum(h.over_time_3_day_seconds) / 3600.0, 2) AS over_time_3_day_hours,
  round(sum(h.over_time_3_night_seconds) / 3600.0, 2) AS over_time_3_night_hours,
  round(sum(h.over_time_3_night_reduced_seconds) / 3600.0, 2) AS over_time_3_night_reduced_hours,
  round(sum(h.over_time_4_seconds) / 3600.0, 2) AS over_time_4_hours,
  round(sum(h.over_time_4_day_seconds) / 3600.0, 2) AS over_time_4_day_hours,
  round(sum(h.over_time_4_night_seconds) / 3600.0, 2) AS over_time_4_night_hours,
  round(sum(h.over_time_4_night_reduced_seconds) / 3600.0, 2) AS over_time_4_night_reduced_hours,
  round(sum(h.over_time_dsr_seconds) / 3600.0, 2) AS over_time_dsr_hours,
  round(sum(h.over_time_dsr_day_seconds) / 3600.0, 2) AS over_time_dsr_day_hours,
  round(sum(h.over_time_dsr_night_seconds) / 3600.0, 2) AS over_time_dsr_night_hours,
  round(sum(h.over_time_dsr_night_reduced_seconds) / 3600.0, 2) AS over_time_dsr_night_reduced_hours,
  round(sum(h.over_time_holiday_seconds) / 3600.0, 2) AS over_time_holiday_hours,
  round(sum(h.over_time_holiday_day_seconds) / 3600.0, 2) AS over_time_holiday_day_hours,
  round(sum(h.over_time_holiday_night_seconds) / 3600.0, 2) AS over_time_holiday_night_hours,
  round(sum(h.over_time_holiday_night_reduced_seconds) / 3600.0, 2) AS over_time_holiday_night_reduced_hours,
  h.collaborator_record,
  (array_agg(dept.department ORDER BY h.period_end DESC))[1] AS department,
  round(sum(h.over_time_1_seconds + h.over_time_2_seconds + h.over_time_3_seconds + h.over_time_4_seconds
            + h.over_time_dsr_seconds + h.over_time_holiday_seconds) / 3600.0, 2) AS over_time_total_hours
FROM hour_totals h
LEFT JOIN companies co ON co.cnpj = h.company_cnpj
LEFT JOIN LATERAL (
  -- The version valid at the end of the period's last day, else the earliest, else the current row.
  SELECT coalesce(
    (SELECT v.department FROM collaborator_history v
      WHERE v.company_cnpj = h.company_cnpj AND v.cpf = h.cpf AND v.collaborator_record = h.collaborator_record
        AND (v.valid_from AT TIME ZONE coalesce(co.time_zone, 'America/Sao_Paulo'))::date <= h.period_end
      ORDER BY v.valid_from DESC LIMIT 1),
    (SELECT v.department FROM collaborator_history v
      WHERE v.company_cnpj = h.company_cnpj AND v.cpf = h.cpf AND v.collaborator_record = h.collaborator_record
      ORDER BY v.valid_from LIMIT 1),
    (SELECT c.department FROM collaborators c
      WHERE c.company_cnpj = h.company_cnpj AND c.cpf = h.cpf AND c.collaborator_record = h.collaborator_record)
  ) AS department
) dept ON true
WHERE h.deleted_at IS NULL
GROUP BY h.company_cnpj, h.cpf, h.collaborator_record, date_trunc('month', h.period_start)::date;
COMMENT ON VIEW monthly_hours IS 'Hour totals (spec 2.7) per collaborator record and calendar month, in hours as numeric (rounded to 0.01 h, signed), with the department at the time and the overtime of all bands. Sums the current hour_totals periods that start in the month.';
COMMENT ON COLUMN monthly_hours.company_cnpj IS 'CNPJ of the collaborator''s company.';
COMMENT ON COLUMN monthly_hours.cpf IS 'CPF of the collaborator, 11 digits with leading zeros.';
COMMENT ON COLUMN monthly_hours.month IS 'First day of the month.';
COMMENT ON COLUMN monthly_hours.periods IS 'Number of hour_totals periods summed (usually 1).';
COMMENT ON COLUMN monthly_hours.worked_time_hours IS 'Worked time computed by the point rule, hours (spec 2.7 worked_time).';
COMMENT ON COLUMN monthly_hours.worked_actual_time_hours IS 'Time actually punched, hours (spec 2.7 worked_actual_time).';
COMMENT ON COLUMN monthly_hours.bank_time_hours IS 'Hour-bank balance, raw, hours (spec 2.7 bank_time).';
COMMENT ON COLUMN monthly_hours.bank_time_factored_hours IS 'Hour-bank balance with the factor applied, hours (spec 2.7 bank_time_factored).';
COMMENT ON COLUMN monthly_hours.fault_full_time_hours IS 'Full-day absences, hours (spec 2.7 fault_full_time).';
COMMENT ON COLUMN monthly_hours.fault_partial_time_hours IS 'Partial absences, hours (spec 2.7 fault_partial_time).';
COMMENT ON COLUMN monthly_hours.interjourney_hours IS 'Inter-journey interval, hours (spec 2.7 interjourney).';
COMMENT ON COLUMN monthly_hours.intrajourney_hours IS 'Intra-journey interval, hours (spec 2.7 intrajourney).';
COMMENT ON COLUMN monthly_hours.justified_time_hours IS 'Justified time, hours (spec 2.7 justified_time).';
COMMENT ON COLUMN monthly_hours.justified_not_paid_time_hours IS 'Justified, not paid time, hours (spec 2.7 justified_not_paid_time).';
COMMENT ON COLUMN monthly_hours.medical_certificate_time_hours IS 'Time covered by medical certificates, hours (spec 2.7 medical_certificate_time).';
COMMENT ON COLUMN monthly_hours.night_time_hours IS 'Night work, hours (spec 2.7 night_time).';
COMMENT ON COLUMN monthly_hours.night_time_reduced_hours IS 'Night work in reduced night hours (spec 2.7 night_time_reduced).';
COMMENT ON COLUMN monthly_hours.over_time_1_hours IS 'Overtime band 1, total, hours (spec 2.7 over_time_1).';
COMMENT ON COLUMN monthly_hours.over_time_1_day_hours IS 'Overtime band 1, daytime part, hours (spec 2.7 over_time_1_day).';
COMMENT ON COLUMN monthly_hours.over_time_1_night_hours IS 'Overtime band 1, night part, hours (spec 2.7 over_time_1_night).';
COMMENT ON COLUMN monthly_hours.over_time_1_night_reduced_hours IS 'Overtime band 1, night part in reduced night hours (spec 2.7 over_time_1_night_reduced).';
COMMENT ON COLUMN monthly_hours.over_time_2_hours IS 'Overtime band 2, total, hours (spec 2.7 over_time_2).';
COMMENT ON COLUMN monthly_hours.over_time_2_day_hours IS 'Overtime band 2, daytime part, hours (spec 2.7 over_time_2_day).';
COMMENT ON COLUMN monthly_hours.over_time_2_night_hours IS 'Overtime band 2, night part, hours (spec 2.7 over_time_2_night).';
COMMENT ON COLUMN monthly_hours.over_time_2_night_reduced_hours IS 'Overtime band 2, night part in reduced night hours (spec 2.7 over_time_2_night_reduced).';
COMMENT ON COLUMN monthly_hours.over_time_3_hours IS 'Overtime band 3, total, hours (spec 2.7 over_time_3).';
COMMENT ON COLUMN monthly_hours.over_time_3_day_hours IS 'Overtime band 3, daytime part, hours (spec 2.7 over_time_3_day).';
COMMENT ON COLUMN monthly_hours.over_time_3_night_hours IS 'Overtime band 3, night part, hours (spec 2.7 over_time_3_night).';
COMMENT ON COLUMN monthly_hours.over_time_3_night_reduced_hours IS 'Overtime band 3, night part in reduced night hours (spec 2.7 over_time_3_night_reduced).';
COMMENT ON COLUMN monthly_hours.over_time_4_hours IS 'Overtime band 4, total, hours (spec 2.7 over_time_4).';
COMMENT ON COLUMN monthly_hours.over_time_4_day_hours IS 'Overtime band 4, daytime part, hours (spec 2.7 over_time_4_day).';
COMMENT ON COLUMN monthly_hours.over_time_4_night_hours IS 'Overtime band 4, night part, hours (spec 2.7 over_time_4_night).';
COMMENT ON COLUMN monthly_hours.over_time_4_night_reduced_hours IS 'Overtime band 4, night part in reduced night hours (spec 2.7 over_time_4_night_reduced).';
COMMENT ON COLUMN monthly_hours.over_time_dsr_hours IS 'Overtime on the weekly paid rest day (DSR), total, hours (spec 2.7 over_time_dsr).';
COMMENT ON COLUMN monthly_hours.over_time_dsr_day_hours IS 'DSR overtime, daytime part, hours (spec 2.7 over_time_dsr_day).';
COMMENT ON COLUMN monthly_hours.over_time_dsr_night_hours IS 'DSR overtime, night part, hours (spec 2.7 over_time_dsr_night).';
COMMENT ON COLUMN monthly_hours.over_time_dsr_night_reduced_hours IS 'DSR overtime, night part in reduced night hours (spec 2.7 over_time_dsr_night_reduced).';
COMMENT ON COLUMN monthly_hours.over_time_holiday_hours IS 'Holiday overtime, total, hours (spec 2.7 over_time_holiday).';
COMMENT ON COLUMN monthly_hours.over_time_holiday_day_hours IS 'Holiday overtime, daytime part, hours (spec 2.7 over_time_holiday_day).';
COMMENT ON COLUMN monthly_hours.over_time_holiday_night_hours IS 'Holiday overtime, night part, hours (spec 2.7 over_time_holiday_night).';
COMMENT ON COLUMN monthly_hours.over_time_holiday_night_reduced_hours IS 'Holiday overtime, night part in reduced night hours (spec 2.7 over_time_holiday_night_reduced).';
COMMENT ON COLUMN monthly_hours.collaborator_record IS 'Which record of the CPF the totals are about (hour_totals.collaborator_record).';
COMMENT ON COLUMN monthly_hours.department IS 'Department of the record at the time: the collaborator_history version valid at the end of the month''s last period (else the earliest version known, else the current collaborators row).';
COMMENT ON COLUMN monthly_hours.over_time_total_hours IS 'Overtime of all bands, hours: over_time_1 + over_time_2 + over_time_3 + over_time_4 + over_time_dsr + over_time_holiday (the band totals, each of which already holds its day and night parts).';
