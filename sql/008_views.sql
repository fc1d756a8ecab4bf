-- 008_views: the analyst views.
-- daily_attendance (one row per collaborator and day), monthly_hours (hour totals as
-- numeric hours per month) and sync_freshness (last successful sync per company and
-- resource). Views skip rows marked deleted_at. Views are read with the privileges of
-- their owner, so workforce_reader needs SELECT on the views only.

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
  (d.shift ~ '[0-9]:[0-5][0-9]' AND coalesce(p.punch_count, 0) = 0 AND ab.absence_type IS NULL) AS is_absent,
  (ab.absence_type IS NOT NULL) AS on_leave,
  ab.absence_type
FROM work_days d
LEFT JOIN collaborators c ON c.company_cnpj = d.company_cnpj AND c.cpf = d.cpf
LEFT JOIN (
  SELECT company_cnpj, cpf, work_date,
         min(punched_at_local) AS first_in_local, max(punched_at_local) AS last_punch_local,
         min(punched_at) AS first_in_at, max(punched_at) AS last_punch_at,
         count(*) AS punch_count
  FROM punches
  WHERE deleted_at IS NULL
  GROUP BY company_cnpj, cpf, work_date
) p ON p.company_cnpj = d.company_cnpj AND p.cpf = d.cpf AND p.work_date = d.work_date
LEFT JOIN tardiness t ON t.company_cnpj = d.company_cnpj AND t.cpf = d.cpf AND t.work_date = d.work_date
LEFT JOIN LATERAL (
  SELECT a.absence_type
  FROM absence_collaborators ac
  JOIN absences a ON a.absence_id = ac.absence_id AND a.deleted_at IS NULL
  WHERE ac.company_cnpj = d.company_cnpj AND ac.cpf = d.cpf AND ac.deleted_at IS NULL
    AND d.work_date BETWEEN a.begins_at_local::date AND a.ends_at_local::date
  ORDER BY a.begins_at_local, a.absence_id
  LIMIT 1
) ab ON true
WHERE d.deleted_at IS NULL;
COMMENT ON VIEW daily_attendance IS 'One row per collaborator and day returned by point/getFromPeriod (work_days): first entry, last exit, punch count, worked time, tardiness and absence flags. Deleted rows are left out. Times are company local wall-clock (*_local) or instants (*_at).';
COMMENT ON COLUMN daily_attendance.company_cnpj IS 'CNPJ of the collaborator''s company.';
COMMENT ON COLUMN daily_attendance.cpf IS 'CPF of the collaborator, 11 digits with leading zeros.';
COMMENT ON COLUMN daily_attendance.collaborator_name IS 'Current name of the collaborator (collaborators.name).';
COMMENT ON COLUMN daily_attendance.department IS 'Current department of the collaborator (collaborators.department; see collaborator_history for the department on that day).';
COMMENT ON COLUMN daily_attendance.work_date IS 'The day.';
COMMENT ON COLUMN daily_attendance.shift IS 'Scheduled shift as described by the API (spec 2.12 shift).';
COMMENT ON COLUMN daily_attendance.first_in_local IS 'First punch of the day, company local time; null without punches.';
COMMENT ON COLUMN daily_attendance.last_out_local IS 'Last punch of the day, company local time; null with fewer than two punches.';
COMMENT ON COLUMN daily_attendance.first_in_at IS 'First punch of the day as an instant (timestamptz).';
COMMENT ON COLUMN daily_attendance.last_out_at IS 'Last punch of the day as an instant; null with fewer than two punches.';
COMMENT ON COLUMN daily_attendance.punch_count IS 'Number of current (not deleted) punches of the day.';
COMMENT ON COLUMN daily_attendance.worked_seconds IS 'Worked time of the day in seconds, signed (spec 2.12 worked_time).';
COMMENT ON COLUMN daily_attendance.worked_hours IS 'Worked time of the day in hours, numeric rounded to 0.01 h (worked_seconds / 3600).';
COMMENT ON COLUMN daily_attendance.late_seconds IS 'Lateness of the day in seconds (tardiness.late_seconds), 0 when not late.';
COMMENT ON COLUMN daily_attendance.is_late IS 'True when the API reported a tardiness that day (spec 2.8).';
COMMENT ON COLUMN daily_attendance.is_scheduled IS 'True when the shift text names clock times (a work day); days off, weekly rest and holidays are described in words (e.g. Folga, Feriado). A heuristic on the API''s free text (spec 2.12 shift).';
COMMENT ON COLUMN daily_attendance.is_absent IS 'True on a scheduled day (is_scheduled) without any punch and without an approved absence covering it (on_leave); see punch_count and shift to refine.';
COMMENT ON COLUMN daily_attendance.on_leave IS 'True when an approved absence or vacation of the collaborator covers the day (absences).';
COMMENT ON COLUMN daily_attendance.absence_type IS 'Type name of the absence covering the day (the earliest one if several); null when none.';

CREATE VIEW monthly_hours AS
SELECT
  company_cnpj,
  cpf,
  date_trunc('month', period_start)::date AS month,
  count(*)::integer AS periods,
  round(sum(worked_time_seconds) / 3600.0, 2) AS worked_time_hours,
  round(sum(worked_actual_time_seconds) / 3600.0, 2) AS worked_actual_time_hours,
  round(sum(bank_time_seconds) / 3600.0, 2) AS bank_time_hours,
  round(sum(bank_time_factored_seconds) / 3600.0, 2) AS bank_time_factored_hours,
  round(sum(fault_full_time_seconds) / 3600.0, 2) AS fault_full_time_hours,
  round(sum(fault_partial_time_seconds) / 3600.0, 2) AS fault_partial_time_hours,
  round(sum(interjourney_seconds) / 3600.0, 2) AS interjourney_hours,
  round(sum(intrajourney_seconds) / 3600.0, 2) AS intrajourney_hours,
  round(sum(justified_time_seconds) / 3600.0, 2) AS justified_time_hours,
  round(sum(justified_not_paid_time_seconds) / 3600.0, 2) AS justified_not_paid_time_hours,
  round(sum(medical_certificate_time_seconds) / 3600.0, 2) AS medical_certificate_time_hours,
  round(sum(night_time_seconds) / 3600.0, 2) AS night_time_hours,
  round(sum(night_time_reduced_seconds) / 3600.0, 2) AS night_time_reduced_hours,
  round(sum(over_time_1_seconds) / 3600.0, 2) AS over_time_1_hours,
  round(sum(over_time_1_day_seconds) / 3600.0, 2) AS over_time_1_day_hours,
  round(sum(over_time_1_night_seconds) / 3600.0, 2) AS over_time_1_night_hours,
  round(sum(over_time_1_night_reduced_seconds) / 3600.0, 2) AS over_time_1_night_reduced_hours,
  round(sum(over_time_2_seconds) / 3600.0, 2) AS over_time_2_hours,
  round(sum(over_time_2_day_seconds) / 3600.0, 2) AS over_time_2_day_hours,
  round(sum(over_time_2_night_seconds) / 3600.0, 2) AS over_time_2_night_hours,
  round(sum(over_time_2_night_reduced_seconds) / 3600.0, 2) AS over_time_2_night_reduced_hours,
  round(sum(over_time_3_seconds) / 3600.0, 2) AS over_time_3_hours,
  round(sum(over_time_3_day_seconds) / 3600.0, 2) AS over_time_3_day_hours,
  round(sum(over_time_3_night_seconds) / 3600.0, 2) AS over_time_3_night_hours,
  round(sum(over_time_3_night_reduced_seconds) / 3600.0, 2) AS over_time_3_night_reduced_hours,
  round(sum(over_time_4_seconds) / 3600.0, 2) AS over_time_4_hours,
  round(sum(over_time_4_day_seconds) / 3600.0, 2) AS over_time_4_day_hours,
  round(sum(over_time_4_night_seconds) / 3600.0, 2) AS over_time_4_night_hours,
  round(sum(over_time_4_night_reduced_seconds) / 3600.0, 2) AS over_time_4_night_reduced_hours,
  round(sum(over_time_dsr_seconds) / 3600.0, 2) AS over_time_dsr_hours,
  round(sum(over_time_dsr_day_seconds) / 3600.0, 2) AS over_time_dsr_day_hours,
  round(sum(over_time_dsr_night_seconds) / 3600.0, 2) AS over_time_dsr_night_hours,
  round(sum(over_time_dsr_night_reduced_seconds) / 3600.0, 2) AS over_time_dsr_night_reduced_hours,
  round(sum(over_time_holiday_seconds) / 3600.0, 2) AS over_time_holiday_hours,
  round(sum(over_time_holiday_day_seconds) / 3600.0, 2) AS over_time_holiday_day_hours,
  round(sum(over_time_holiday_night_seconds) / 3600.0, 2) AS over_time_holiday_night_hours,
  round(sum(over_time_holiday_night_reduced_seconds) / 3600.0, 2) AS over_time_holiday_night_reduced_hours
FROM hour_totals
WHERE deleted_at IS NULL
GROUP BY company_cnpj, cpf, date_trunc('month', period_start)::date;
COMMENT ON VIEW monthly_hours IS 'Hour totals (spec 2.7) per collaborator and calendar month, in hours as numeric (rounded to 0.01 h, signed). Sums the current hour_totals periods that start in the month.';
COMMENT ON COLUMN monthly_hours.company_cnpj IS 'CNPJ of the collaborator''s company.';
COMMENT ON COLUMN monthly_hours.cpf IS 'CPF of the collaborator, 11 digits with leading zeros.';
COMMENT ON COLUMN monthly_hours.month IS 'First day of the month.';
COMMENT ON COLUMN monthly_hours.periods IS 'Number of hour_totals periods summed (1 when the month was read as one window).';
COMMENT ON COLUMN monthly_hours.worked_time_hours IS 'Worked time computed by the point rule, in hours (spec 2.7 worked_time).';
COMMENT ON COLUMN monthly_hours.worked_actual_time_hours IS 'Time actually punched, in hours (spec 2.7 worked_actual_time).';
COMMENT ON COLUMN monthly_hours.bank_time_hours IS 'Hour-bank balance, raw, in hours (spec 2.7 bank_time).';
COMMENT ON COLUMN monthly_hours.bank_time_factored_hours IS 'Hour-bank balance with the factor applied, in hours (spec 2.7 bank_time_factored).';
COMMENT ON COLUMN monthly_hours.fault_full_time_hours IS 'Time of full-day absences (faltas), in hours (spec 2.7 fault_full_time).';
COMMENT ON COLUMN monthly_hours.fault_partial_time_hours IS 'Time of partial absences (late arrivals, early leaves), in hours (spec 2.7 fault_partial_time).';
COMMENT ON COLUMN monthly_hours.interjourney_hours IS 'Inter-journey interval (rest between two journeys), in hours (spec 2.7 interjourney).';
COMMENT ON COLUMN monthly_hours.intrajourney_hours IS 'Intra-journey interval (break within the journey), in hours (spec 2.7 intrajourney).';
COMMENT ON COLUMN monthly_hours.justified_time_hours IS 'Justified time, in hours (spec 2.7 justified_time).';
COMMENT ON COLUMN monthly_hours.justified_not_paid_time_hours IS 'Justified time that is not paid, in hours (spec 2.7 justified_not_paid_time).';
COMMENT ON COLUMN monthly_hours.medical_certificate_time_hours IS 'Time covered by medical certificates, in hours (spec 2.7 medical_certificate_time).';
COMMENT ON COLUMN monthly_hours.night_time_hours IS 'Night work, in hours (spec 2.7 night_time).';
COMMENT ON COLUMN monthly_hours.night_time_reduced_hours IS 'Night work counted in reduced night hours, in hours (spec 2.7 night_time_reduced).';
COMMENT ON COLUMN monthly_hours.over_time_1_hours IS 'Overtime band 1, total, in hours (spec 2.7 over_time_1).';
COMMENT ON COLUMN monthly_hours.over_time_1_day_hours IS 'Overtime band 1, daytime part, in hours (spec 2.7 over_time_1_day).';
COMMENT ON COLUMN monthly_hours.over_time_1_night_hours IS 'Overtime band 1, night part, in hours (spec 2.7 over_time_1_night).';
COMMENT ON COLUMN monthly_hours.over_time_1_night_reduced_hours IS 'Overtime band 1, night part in reduced night hours, in hours (spec 2.7 over_time_1_night_reduced).';
COMMENT ON COLUMN monthly_hours.over_time_2_hours IS 'Overtime band 2, total, in hours (spec 2.7 over_time_2).';
COMMENT ON COLUMN monthly_hours.over_time_2_day_hours IS 'Overtime band 2, daytime part, in hours (spec 2.7 over_time_2_day).';
COMMENT ON COLUMN monthly_hours.over_time_2_night_hours IS 'Overtime band 2, night part, in hours (spec 2.7 over_time_2_night).';
COMMENT ON COLUMN monthly_hours.over_time_2_night_reduced_hours IS 'Overtime band 2, night part in reduced night hours, in hours (spec 2.7 over_time_2_night_reduced).';
COMMENT ON COLUMN monthly_hours.over_time_3_hours IS 'Overtime band 3, total, in hours (spec 2.7 over_time_3).';
COMMENT ON COLUMN monthly_hours.over_time_3_day_hours IS 'Overtime band 3, daytime part, in hours (spec 2.7 over_time_3_day).';
COMMENT ON COLUMN monthly_hours.over_time_3_night_hours IS 'Overtime band 3, night part, in hours (spec 2.7 over_time_3_night).';
COMMENT ON COLUMN monthly_hours.over_time_3_night_reduced_hours IS 'Overtime band 3, night part in reduced night hours, in hours (spec 2.7 over_time_3_night_reduced).';
COMMENT ON COLUMN monthly_hours.over_time_4_hours IS 'Overtime band 4, total, in hours (spec 2.7 over_time_4).';
COMMENT ON COLUMN monthly_hours.over_time_4_day_hours IS 'Overtime band 4, daytime part, in hours (spec 2.7 over_time_4_day).';
COMMENT ON COLUMN monthly_hours.over_time_4_night_hours IS 'Overtime band 4, night part, in hours (spec 2.7 over_time_4_night).';
COMMENT ON COLUMN monthly_hours.over_time_4_night_reduced_hours IS 'Overtime band 4, night part in reduced night hours, in hours (spec 2.7 over_time_4_night_reduced).';
COMMENT ON COLUMN monthly_hours.over_time_dsr_hours IS 'Overtime on the weekly paid rest day (DSR), total, in hours (spec 2.7 over_time_dsr).';
COMMENT ON COLUMN monthly_hours.over_time_dsr_day_hours IS 'Overtime on the weekly paid rest day (DSR), daytime part, in hours (spec 2.7 over_time_dsr_day).';
COMMENT ON COLUMN monthly_hours.over_time_dsr_night_hours IS 'Overtime on the weekly paid rest day (DSR), night part, in hours (spec 2.7 over_time_dsr_night).';
COMMENT ON COLUMN monthly_hours.over_time_dsr_night_reduced_hours IS 'Overtime on the weekly paid rest day (DSR), night part in reduced night hours, in hours (spec 2.7 over_time_dsr_night_reduced).';
COMMENT ON COLUMN monthly_hours.over_time_holiday_hours IS 'Overtime on holidays, total, in hours (spec 2.7 over_time_holiday).';
COMMENT ON COLUMN monthly_hours.over_time_holiday_day_hours IS 'Overtime on holidays, daytime part, in hours (spec 2.7 over_time_holiday_day).';
COMMENT ON COLUMN monthly_hours.over_time_holiday_night_hours IS 'Overtime on holidays, night part, in hours (spec 2.7 over_time_holiday_night).';
COMMENT ON COLUMN monthly_hours.over_time_holiday_night_reduced_hours IS 'Overtime on holidays, night part in reduced night hours, in hours (spec 2.7 over_time_holiday_night_reduced).';

CREATE VIEW sync_freshness AS
SELECT
  company_cnpj,
  resource,
  max(finished_at) AS last_success_at,
  floor(extract(epoch FROM now() - max(finished_at)))::integer AS age_seconds
FROM sync_runs
WHERE status = 'succeeded'
GROUP BY company_cnpj, resource;
COMMENT ON VIEW sync_freshness IS 'Last successful sync per company and resource, and how old it is: check it before trusting recent data.';
COMMENT ON COLUMN sync_freshness.company_cnpj IS 'CNPJ of the company; null for group-level resources.';
COMMENT ON COLUMN sync_freshness.resource IS 'Resource synced (see sync_runs.resource).';
COMMENT ON COLUMN sync_freshness.last_success_at IS 'When the last successful run of this company and resource finished.';
COMMENT ON COLUMN sync_freshness.age_seconds IS 'Seconds since last_success_at, at query time.';

