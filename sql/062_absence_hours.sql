-- 062_absence_hours: absences as HR counts them (docs/warehouse.md "Absences").
-- absence_days keeps whole days only, for full-day absences (absences.full_day), and an
-- absence that ends at 00:00 ends the day before (it adds no day). A partial-day absence
-- (a two-hour medical appointment) counts no day: its hours are in absence_hours, one row
-- per absence, person record and day it touches. The rows are rewritten by the next sync
-- of each absence window (punchline backfill --force --resources absences over the
-- synced range rewrites them at once); the partial-day rows of absence_days go now.
-- bradford_factor gives each person's Bradford factor over the last 52 weeks.

DELETE FROM absence_days WHERE NOT full_day;

CREATE TABLE absence_hours (
  absence_id          bigint NOT NULL,
  company_cnpj        text NOT NULL,
  cpf                 text NOT NULL,
  collaborator_record text NOT NULL,
  absence_date        date NOT NULL,
  absence_type_id     integer NOT NULL,
  absence_type        text,
  paid_leave          boolean NOT NULL,
  absent_seconds      integer NOT NULL CHECK (absent_seconds >= 0),
  synced_at           timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (absence_id, company_cnpj, cpf, collaborator_record, absence_date)
);
CREATE INDEX absence_hours_day_idx ON absence_hours (company_cnpj, absence_date);
COMMENT ON TABLE absence_hours IS 'Partial-day absences (absences.full_day false: a medical appointment, a few hours off), one row per absence, person record and day it touches, with the time it takes that day. They count no absence day (absence_days holds whole days only). Kept current by the absence windows (docs/warehouse.md "Absences").';
COMMENT ON COLUMN absence_hours.absence_id IS 'The absence (absences.absence_id). Natural key with company_cnpj, cpf, collaborator_record and absence_date.';
COMMENT ON COLUMN absence_hours.company_cnpj IS 'CNPJ of the collaborator''s company.';
COMMENT ON COLUMN absence_hours.cpf IS 'CPF of the absent collaborator, 11 digits with leading zeros.';
COMMENT ON COLUMN absence_hours.collaborator_record IS 'Which record of the CPF (absence_collaborators.collaborator_record).';
COMMENT ON COLUMN absence_hours.absence_date IS 'A day the absence touches, in the company''s local calendar.';
COMMENT ON COLUMN absence_hours.absence_type_id IS 'Absence type id (absences.absence_type_id).';
COMMENT ON COLUMN absence_hours.absence_type IS 'Absence type name as sent (absences.absence_type).';
COMMENT ON COLUMN absence_hours.paid_leave IS 'True for a paid leave (absences.paid_leave).';
COMMENT ON COLUMN absence_hours.absent_seconds IS 'Seconds of the day the absence covers: from its start (or midnight) to its end (or the next midnight), company local time.';
COMMENT ON COLUMN absence_hours.synced_at IS 'When punchline wrote the row.';

COMMENT ON TABLE absence_days IS 'Full-day absences expanded to days: one row per absence, person record and day it covers (from the local date of begins_at to that of ends_at; an end at 00:00 ends the day before), with the type and the day''s calendar flags. Partial-day absences count no day: absence_hours has their hours. Deleted absences and members are left out; punchline verify compares each absence''s days with the API''s days (absence_days_vs_api). Kept current by the absence windows (docs/warehouse.md "Marts").';
COMMENT ON COLUMN absence_days.full_day IS 'Always true: only full-day absences (absences.full_day) have days here.';

CREATE VIEW bradford_factor AS
WITH spells AS (
  SELECT d.company_cnpj, d.cpf, d.collaborator_record, d.absence_id, count(*)::int AS days
    FROM absence_days d
   WHERE d.absence_date > (coalesce(nullif(current_setting('punchline.now', true), '')::timestamptz, now()) AT TIME ZONE 'America/Sao_Paulo')::date - 364
     AND d.absence_date <= (coalesce(nullif(current_setting('punchline.now', true), '')::timestamptz, now()) AT TIME ZONE 'America/Sao_Paulo')::date
     AND d.is_business_day AND coalesce(lower(d.absence_type), '') !~ '(f[eé]rias|folga|compensa|treinamento|curso)'
   GROUP BY 1, 2, 3, 4
)
SELECT company_cnpj, cpf, collaborator_record, count(*)::int AS spells, sum(days)::int AS days,
       (count(*) * count(*) * sum(days))::int AS bradford_factor
  FROM spells GROUP BY 1, 2, 3;
COMMENT ON VIEW bradford_factor IS 'Each person record''s Bradford factor over the last 52 weeks (364 days up to today, or punchline.now): S² × D, S the spells of unplanned full-day absence (absences whose type is not vacation, a day off in lieu, or training) and D their business days. Frequent short absences weigh more than one long one.';
COMMENT ON COLUMN bradford_factor.company_cnpj IS 'CNPJ of the company.';
COMMENT ON COLUMN bradford_factor.cpf IS 'CPF of the collaborator, 11 digits with leading zeros.';
COMMENT ON COLUMN bradford_factor.collaborator_record IS 'Which record of the CPF.';
COMMENT ON COLUMN bradford_factor.spells IS 'Unplanned full-day absences with at least one business day in the 52 weeks (S).';
COMMENT ON COLUMN bradford_factor.days IS 'Business days of those absences in the 52 weeks (D).';
COMMENT ON COLUMN bradford_factor.bradford_factor IS 'S × S × D.';

COMMENT ON COLUMN quality_checks.check_name IS 'Which check: window_completeness, totals_vs_days, rule_vs_days, day_vs_punches, punch_without_day, unknown_collaborator, history_overlap, coverage, marts_vs_inputs, headcount_bridge or absence_days_vs_api. Key with company_cnpj, part, scope, cpf and checked_at.';
