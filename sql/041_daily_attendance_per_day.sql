-- 041_daily_attendance_per_day: daily_attendance no longer aggregates every punch of the
-- warehouse before a query can limit it. Its punches were a subquery grouped over the
-- whole punches table, which the planner cannot restrict by a filter or a limit on the
-- day: "attendance of the last 7 days" sorted millions of punches to disk. Each day's
-- punches are now read for that day only (a lateral lookup through punches'
-- (cpf, work_date) index), and work_days gets an index by day, so a query of recent days
-- (or the latest days first, under a limit) reads only those days. Same columns, same
-- meaning; CREATE OR REPLACE keeps the comments and the analyst views built on it.
-- See docs/warehouse.md "daily_attendance".

CREATE INDEX work_days_date_idx ON work_days (work_date);

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
LEFT JOIN LATERAL (
  SELECT min(x.punched_at_local) AS first_in_local, max(x.punched_at_local) AS last_punch_local,
         min(x.punched_at) AS first_in_at, max(x.punched_at) AS last_punch_at,
         count(*) AS punch_count
  FROM punches x
  WHERE x.cpf = d.cpf AND x.work_date = d.work_date AND x.company_cnpj = d.company_cnpj
    AND x.collaborator_record = d.collaborator_record AND x.deleted_at IS NULL
) p ON true
LEFT JOIN tardiness t ON t.company_cnpj = d.company_cnpj AND t.cpf = d.cpf AND t.work_date = d.work_date AND t.collaborator_record = d.collaborator_record
LEFT JOIN LATERAL (
  SELECT array_agg(a.absence_type ORDER BY a.absence_id) AS absence_types
  FROM absence_days a
  WHERE a.company_cnpj = d.company_cnpj AND a.absence_date = d.work_date AND a.cpf = d.cpf AND a.collaborator_record = d.collaborator_record
) ab ON true
WHERE d.deleted_at IS NULL;
