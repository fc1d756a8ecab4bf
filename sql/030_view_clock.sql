-- 030_view_clock: daily_attendance decides which days are over by a clock a session can pin.
-- The view compares each day with today in the company's time zone. Today comes from
-- now(), or from the session setting punchline.now when it holds a timestamp
-- (SET punchline.now = '2026-11-02 09:00-03'): a replay, a report as of a past moment or a
-- test reads the view as that moment would, with the same columns and the same meaning.
-- employee_daily takes today from the sync's own clock when it writes a row (src/marts/).
-- CREATE OR REPLACE keeps the comments and the analyst views built on it.
-- See docs/warehouse.md "daily_attendance".

CREATE OR REPLACE VIEW daily_attendance AS
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
  CASE WHEN d.work_date < (coalesce(nullif(current_setting('punchline.now', true), '')::timestamptz, now()) AT TIME ZONE coalesce(co.time_zone, 'America/Sao_Paulo'))::date
       THEN (d.shift ~ '[0-9]:[0-5][0-9]' AND coalesce(p.punch_count, 0) = 0 AND ab.absence_types IS NULL) END AS is_absent,
  (ab.absence_types IS NOT NULL) AS on_leave,
  ab.absence_types[1] AS absence_type,
  d.collaborator_record,
  ab.absence_types,
  (d.work_date < (coalesce(nullif(current_setting('punchline.now', true), '')::timestamptz, now()) AT TIME ZONE coalesce(co.time_zone, 'America/Sao_Paulo'))::date) AS is_day_over
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
COMMENT ON COLUMN daily_attendance.is_day_over IS 'True when the day has ended in the company''s time zone (companies.time_zone) at now(), or at the session setting punchline.now when it holds a timestamp (a replay or a report as of a past moment); today and later days are not over.';
