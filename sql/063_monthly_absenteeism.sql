-- 063_monthly_absenteeism: absenteeism per company, department and month
-- (docs/warehouse.md "Absences"), from the day grain: each person's own schedule
-- (employee_daily.is_scheduled), the full-day absences covering a scheduled day, the
-- scheduled days without a punch or an absence, and the hours of partial-day absences.

CREATE VIEW monthly_absenteeism AS
WITH days AS (
  SELECT d.company_cnpj, coalesce(d.department, '') AS department, date_trunc('month', d.work_date)::date AS month,
         d.is_absent, d.on_leave,
         EXISTS (SELECT 1 FROM absence_days a WHERE a.company_cnpj = d.company_cnpj AND a.cpf = d.cpf
                    AND a.collaborator_record = d.collaborator_record AND a.absence_date = d.work_date AND a.paid_leave) AS paid,
         (SELECT sum(h.absent_seconds) FROM absence_hours h WHERE h.company_cnpj = d.company_cnpj AND h.cpf = d.cpf
             AND h.collaborator_record = d.collaborator_record AND h.absence_date = d.work_date) AS partial_seconds
    FROM employee_daily d
   WHERE d.is_scheduled AND d.is_day_over
)
SELECT company_cnpj, department, month,
       count(*)::int AS scheduled_days,
       count(*) FILTER (WHERE on_leave)::int AS leave_days,
       count(*) FILTER (WHERE on_leave AND paid)::int AS paid_leave_days,
       count(*) FILTER (WHERE on_leave AND NOT paid)::int AS unpaid_leave_days,
       count(*) FILTER (WHERE is_absent)::int AS unexcused_days,
       round(coalesce(sum(partial_seconds) FILTER (WHERE NOT on_leave), 0) / 3600.0, 2) AS partial_absence_hours,
       round((count(*) FILTER (WHERE on_leave OR is_absent))::numeric / count(*), 4) AS lost_day_rate
  FROM days GROUP BY 1, 2, 3;
COMMENT ON VIEW monthly_absenteeism IS 'Absenteeism per company, department (as of the day) and month, over the days each person was scheduled to work (employee_daily.is_scheduled: their own schedule, whatever the weekday) and that are over: days on leave (full-day absences, paid or not), unexcused days (scheduled, no punch, no absence) and the hours of partial-day absences. lost_day_rate follows the BLS lost-worktime rate (time absent ÷ time usually worked), counted in days.';
COMMENT ON COLUMN monthly_absenteeism.company_cnpj IS 'CNPJ of the company.';
COMMENT ON COLUMN monthly_absenteeism.department IS 'Department as of the day (employee_daily.department); empty when none.';
COMMENT ON COLUMN monthly_absenteeism.month IS 'First day of the month.';
COMMENT ON COLUMN monthly_absenteeism.scheduled_days IS 'Person-days scheduled to work (a shift naming clock times) and over.';
COMMENT ON COLUMN monthly_absenteeism.leave_days IS 'Scheduled person-days covered by a full-day absence (absence_days).';
COMMENT ON COLUMN monthly_absenteeism.paid_leave_days IS 'Of leave_days, those with a paid absence.';
COMMENT ON COLUMN monthly_absenteeism.unpaid_leave_days IS 'Of leave_days, those without a paid absence.';
COMMENT ON COLUMN monthly_absenteeism.unexcused_days IS 'Scheduled person-days without a punch and without an absence (employee_daily.is_absent).';
COMMENT ON COLUMN monthly_absenteeism.partial_absence_hours IS 'Hours of partial-day absences (absence_hours) on scheduled days not otherwise on leave.';
COMMENT ON COLUMN monthly_absenteeism.lost_day_rate IS '(leave_days + unexcused_days) / scheduled_days (0.03 = 3%): the BLS lost-worktime rate, in days rather than hours.';
