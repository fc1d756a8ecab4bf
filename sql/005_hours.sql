-- 005_hours: hour totals, tardiness, adjustment requests, inconsistencies and hour-bank
-- day balances. Durations are signed integer seconds in columns ending _seconds (the API's
-- HH:MM:SS may exceed 99 hours and be negative, spec 1.2). hour_totals and
-- hour_bank_balances are reconciled (deleted_at); tardiness, adjustment_requests and
-- inconsistencies are lists without ids, replaced per company and window
-- (docs/architecture.md "Reconciliation and deletions").
-- Keys start with company and date, so company + date queries use the key's index; a
-- second index serves CPF + date. CPF and CNPJ formats are checked when each record is
-- validated (src/api/schemas.ts; a per-row CHECK would cost as much as the rest of the
-- insert).

CREATE TABLE hour_totals (
  company_cnpj text NOT NULL,
  cpf          text NOT NULL,
  period_start date NOT NULL,
  period_end   date NOT NULL,
  worked_time_seconds                      integer NOT NULL,
  worked_actual_time_seconds               integer NOT NULL,
  bank_time_seconds                        integer NOT NULL,
  bank_time_factored_seconds               integer NOT NULL,
  fault_full_time_seconds                  integer NOT NULL,
  fault_partial_time_seconds               integer NOT NULL,
  interjourney_seconds                     integer NOT NULL,
  intrajourney_seconds                     integer NOT NULL,
  justified_time_seconds                   integer NOT NULL,
  justified_not_paid_time_seconds          integer NOT NULL,
  medical_certificate_time_seconds         integer NOT NULL,
  night_time_seconds                       integer NOT NULL,
  night_time_reduced_seconds               integer NOT NULL,
  over_time_1_seconds                      integer NOT NULL,
  over_time_1_day_seconds                  integer NOT NULL,
  over_time_1_night_seconds                integer NOT NULL,
  over_time_1_night_reduced_seconds        integer NOT NULL,
  over_time_2_seconds                      integer NOT NULL,
  over_time_2_day_seconds                  integer NOT NULL,
  over_time_2_night_seconds                integer NOT NULL,
  over_time_2_night_reduced_seconds        integer NOT NULL,
  over_time_3_seconds                      integer NOT NULL,
  over_time_3_day_seconds                  integer NOT NULL,
  over_time_3_night_seconds                integer NOT NULL,
  over_time_3_night_reduced_seconds        integer NOT NULL,
  over_time_4_seconds                      integer NOT NULL,
  over_time_4_day_seconds                  integer NOT NULL,
  over_time_4_night_seconds                integer NOT NULL,
  over_time_4_night_reduced_seconds        integer NOT NULL,
  over_time_dsr_seconds                    integer NOT NULL,
  over_time_dsr_day_seconds                integer NOT NULL,
  over_time_dsr_night_seconds              integer NOT NULL,
  over_time_dsr_night_reduced_seconds      integer NOT NULL,
  over_time_holiday_seconds                integer NOT NULL,
  over_time_holiday_day_seconds            integer NOT NULL,
  over_time_holiday_night_seconds          integer NOT NULL,
  over_time_holiday_night_reduced_seconds  integer NOT NULL,
  synced_at    timestamptz NOT NULL DEFAULT now(),
  deleted_at   timestamptz,
  PRIMARY KEY (company_cnpj, period_start, period_end, cpf),
  CHECK (period_end >= period_start)
);
CREATE INDEX hour_totals_cpf_date_idx ON hour_totals (cpf, period_start);
COMMENT ON TABLE hour_totals IS 'Hour totals per collaborator and period (usually a calendar month). Source: GET /customer/v2/collaborator/totalHours, total_hours (spec 2.7). Durations in signed integer seconds. Loading a period marks deleted_at on the company''s current rows of other, overlapping periods, so current rows (deleted_at IS NULL) never overlap. See monthly_hours for hours.';
COMMENT ON COLUMN hour_totals.company_cnpj IS 'CNPJ of the collaborator''s company. Natural key with cpf, period_start and period_end.';
COMMENT ON COLUMN hour_totals.cpf IS 'CPF of the collaborator, 11 digits with leading zeros. Natural key with company_cnpj, period_start and period_end.';
COMMENT ON COLUMN hour_totals.period_start IS 'First day of the period asked (begin_date, inclusive).';
COMMENT ON COLUMN hour_totals.period_end IS 'Last day of the period asked (end_date, inclusive).';
COMMENT ON COLUMN hour_totals.worked_time_seconds IS 'Worked time computed by the point rule, in seconds, signed (spec 2.7 worked_time).';
COMMENT ON COLUMN hour_totals.worked_actual_time_seconds IS 'Time actually punched, in seconds, signed (spec 2.7 worked_actual_time).';
COMMENT ON COLUMN hour_totals.bank_time_seconds IS 'Hour-bank balance, raw, in seconds, signed (spec 2.7 bank_time).';
COMMENT ON COLUMN hour_totals.bank_time_factored_seconds IS 'Hour-bank balance with the factor applied, in seconds, signed (spec 2.7 bank_time_factored).';
COMMENT ON COLUMN hour_totals.fault_full_time_seconds IS 'Time of full-day absences (faltas), in seconds, signed (spec 2.7 fault_full_time).';
COMMENT ON COLUMN hour_totals.fault_partial_time_seconds IS 'Time of partial absences (late arrivals, early leaves), in seconds, signed (spec 2.7 fault_partial_time).';
COMMENT ON COLUMN hour_totals.interjourney_seconds IS 'Inter-journey interval (rest between two journeys), in seconds, signed (spec 2.7 interjourney).';
COMMENT ON COLUMN hour_totals.intrajourney_seconds IS 'Intra-journey interval (break within the journey), in seconds, signed (spec 2.7 intrajourney).';
COMMENT ON COLUMN hour_totals.justified_time_seconds IS 'Justified time, in seconds, signed (spec 2.7 justified_time).';
COMMENT ON COLUMN hour_totals.justified_not_paid_time_seconds IS 'Justified time that is not paid, in seconds, signed (spec 2.7 justified_not_paid_time).';
COMMENT ON COLUMN hour_totals.medical_certificate_time_seconds IS 'Time covered by medical certificates, in seconds, signed (spec 2.7 medical_certificate_time).';
COMMENT ON COLUMN hour_totals.night_time_seconds IS 'Night work, in seconds, signed (spec 2.7 night_time).';
COMMENT ON COLUMN hour_totals.night_time_reduced_seconds IS 'Night work counted in reduced night hours, in seconds, signed (spec 2.7 night_time_reduced).';
COMMENT ON COLUMN hour_totals.over_time_1_seconds IS 'Overtime band 1, total, in seconds, signed (spec 2.7 over_time_1).';
COMMENT ON COLUMN hour_totals.over_time_1_day_seconds IS 'Overtime band 1, daytime part, in seconds, signed (spec 2.7 over_time_1_day).';
COMMENT ON COLUMN hour_totals.over_time_1_night_seconds IS 'Overtime band 1, night part, in seconds, signed (spec 2.7 over_time_1_night).';
COMMENT ON COLUMN hour_totals.over_time_1_night_reduced_seconds IS 'Overtime band 1, night part in reduced night hours, in seconds, signed (spec 2.7 over_time_1_night_reduced).';
COMMENT ON COLUMN hour_totals.over_time_2_seconds IS 'Overtime band 2, total, in seconds, signed (spec 2.7 over_time_2).';
COMMENT ON COLUMN hour_totals.over_time_2_day_seconds IS 'Overtime band 2, daytime part, in seconds, signed (spec 2.7 over_time_2_day).';
COMMENT ON COLUMN hour_totals.over_time_2_night_seconds IS 'Overtime band 2, night part, in seconds, signed (spec 2.7 over_time_2_night).';
COMMENT ON COLUMN hour_totals.over_time_2_night_reduced_seconds IS 'Overtime band 2, night part in reduced night hours, in seconds, signed (spec 2.7 over_time_2_night_reduced).';
COMMENT ON COLUMN hour_totals.over_time_3_seconds IS 'Overtime band 3, total, in seconds, signed (spec 2.7 over_time_3).';
COMMENT ON COLUMN hour_totals.over_time_3_day_seconds IS 'Overtime band 3, daytime part, in seconds, signed (spec 2.7 over_time_3_day).';
COMMENT ON COLUMN hour_totals.over_time_3_night_seconds IS 'Overtime band 3, night part, in seconds, signed (spec 2.7 over_time_3_night).';
COMMENT ON COLUMN hour_totals.over_time_3_night_reduced_seconds IS 'Overtime band 3, night part in reduced night hours, in seconds, signed (spec 2.7 over_time_3_night_reduced).';
COMMENT ON COLUMN hour_totals.over_time_4_seconds IS 'Overtime band 4, total, in seconds, signed (spec 2.7 over_time_4).';
COMMENT ON COLUMN hour_totals.over_time_4_day_seconds IS 'Overtime band 4, daytime part, in seconds, signed (spec 2.7 over_time_4_day).';
COMMENT ON COLUMN hour_totals.over_time_4_night_seconds IS 'Overtime band 4, night part, in seconds, signed (spec 2.7 over_time_4_night).';
COMMENT ON COLUMN hour_totals.over_time_4_night_reduced_seconds IS 'Overtime band 4, night part in reduced night hours, in seconds, signed (spec 2.7 over_time_4_night_reduced).';
COMMENT ON COLUMN hour_totals.over_time_dsr_seconds IS 'Overtime on the weekly paid rest day (DSR), total, in seconds, signed (spec 2.7 over_time_dsr).';
COMMENT ON COLUMN hour_totals.over_time_dsr_day_seconds IS 'Overtime on the weekly paid rest day (DSR), daytime part, in seconds, signed (spec 2.7 over_time_dsr_day).';
COMMENT ON COLUMN hour_totals.over_time_dsr_night_seconds IS 'Overtime on the weekly paid rest day (DSR), night part, in seconds, signed (spec 2.7 over_time_dsr_night).';
COMMENT ON COLUMN hour_totals.over_time_dsr_night_reduced_seconds IS 'Overtime on the weekly paid rest day (DSR), night part in reduced night hours, in seconds, signed (spec 2.7 over_time_dsr_night_reduced).';
COMMENT ON COLUMN hour_totals.over_time_holiday_seconds IS 'Overtime on holidays, total, in seconds, signed (spec 2.7 over_time_holiday).';
COMMENT ON COLUMN hour_totals.over_time_holiday_day_seconds IS 'Overtime on holidays, daytime part, in seconds, signed (spec 2.7 over_time_holiday_day).';
COMMENT ON COLUMN hour_totals.over_time_holiday_night_seconds IS 'Overtime on holidays, night part, in seconds, signed (spec 2.7 over_time_holiday_night).';
COMMENT ON COLUMN hour_totals.over_time_holiday_night_reduced_seconds IS 'Overtime on holidays, night part in reduced night hours, in seconds, signed (spec 2.7 over_time_holiday_night_reduced).';
COMMENT ON COLUMN hour_totals.synced_at IS 'When punchline last inserted or changed this row (a reload that finds nothing new leaves it as is).';
COMMENT ON COLUMN hour_totals.deleted_at IS 'When a completed sync of this company no longer returned the row for an overlapping period; null while current.';

CREATE TABLE tardiness (
  company_cnpj text NOT NULL,
  cpf          text NOT NULL,
  work_date    date NOT NULL,
  journey_in   time NOT NULL,
  punch_in     time NOT NULL,
  late_seconds integer NOT NULL,
  all_points   time[] NOT NULL,
  synced_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_cnpj, work_date, cpf)
);
CREATE INDEX tardiness_cpf_date_idx ON tardiness (cpf, work_date);
COMMENT ON TABLE tardiness IS 'Late arrivals, one row per collaborator and day. Source: GET /customer/v2/tardiness, tardiness[] (spec 2.8). Late = entry after the journey start plus tolerance and before start + 2 h (later counts as an absence, not a tardiness). Replaced per company and window on each sync.';
COMMENT ON COLUMN tardiness.company_cnpj IS 'CNPJ of the collaborator''s company. Natural key with cpf and work_date.';
COMMENT ON COLUMN tardiness.cpf IS 'CPF of the collaborator, 11 digits with leading zeros. Natural key with company_cnpj and work_date.';
COMMENT ON COLUMN tardiness.work_date IS 'Day of the late arrival (spec 2.8 date). Natural key with company_cnpj and cpf.';
COMMENT ON COLUMN tardiness.journey_in IS 'Scheduled start of the journey, company local time (spec 2.8 journey_in, HH:MM).';
COMMENT ON COLUMN tardiness.punch_in IS 'Actual entry punch, company local time (spec 2.8 punch_in, HH:MM).';
COMMENT ON COLUMN tardiness.late_seconds IS 'Lateness in seconds (spec 2.8 minutes_late, HH:MM). Divide by 60 for minutes.';
COMMENT ON COLUMN tardiness.all_points IS 'All punches of the day, company local times as listed (spec 2.8 all_points).';
COMMENT ON COLUMN tardiness.synced_at IS 'When punchline last inserted or changed this row (a reload that finds nothing new leaves it as is).';

CREATE TABLE adjustment_requests (
  company_cnpj        text NOT NULL,
  cpf                 text NOT NULL,
  request_date        date NOT NULL,
  seq                 integer NOT NULL CHECK (seq >= 1),
  requests_in_day     integer NOT NULL,
  adjustment_type     text NOT NULL,
  status              text NOT NULL,
  collaborator_reason text NOT NULL,
  manager_observation text NOT NULL,
  approved_by         text NOT NULL,
  created_at_local    timestamp NOT NULL,
  created_at          timestamptz NOT NULL,
  updated_at_local    timestamp NOT NULL,
  updated_at          timestamptz NOT NULL,
  synced_at           timestamptz NOT NULL DEFAULT now(),
  UNIQUE (company_cnpj, request_date, cpf, seq)
);
CREATE INDEX adjustment_requests_cpf_date_idx ON adjustment_requests (cpf, request_date);
COMMENT ON TABLE adjustment_requests IS 'Punch-adjustment requests. Source: GET /customer/v2/adjustment, adjustments[] (spec 2.9). The API gives them no id: the rows of a company and window are replaced on each sync, and seq numbers the requests of one collaborator and day in API order.';
COMMENT ON COLUMN adjustment_requests.company_cnpj IS 'CNPJ of the collaborator''s company.';
COMMENT ON COLUMN adjustment_requests.cpf IS 'CPF of the collaborator, 11 digits with leading zeros.';
COMMENT ON COLUMN adjustment_requests.request_date IS 'Day the request is about (spec 2.9 date).';
COMMENT ON COLUMN adjustment_requests.seq IS 'Position (1, 2, ...) of the request among the collaborator''s requests of that day, in API order.';
COMMENT ON COLUMN adjustment_requests.requests_in_day IS 'Number of requests of the collaborator that day, as sent (spec 2.9 requests_in_day).';
COMMENT ON COLUMN adjustment_requests.adjustment_type IS 'Request type as sent (spec 2.9 type; allowed values not documented).';
COMMENT ON COLUMN adjustment_requests.status IS 'Pendente (pending), Aprovado (approved) or Recusado (refused) (spec 2.9 status).';
COMMENT ON COLUMN adjustment_requests.collaborator_reason IS 'The collaborator''s justification (spec 2.9).';
COMMENT ON COLUMN adjustment_requests.manager_observation IS 'The manager''s observation (spec 2.9).';
COMMENT ON COLUMN adjustment_requests.approved_by IS 'Who decided the request (spec 2.9 approved_by).';
COMMENT ON COLUMN adjustment_requests.created_at_local IS 'Creation date-time as sent, company local time (spec 2.9 created_at).';
COMMENT ON COLUMN adjustment_requests.created_at IS 'Creation instant: created_at_local converted with the connection''s time zone.';
COMMENT ON COLUMN adjustment_requests.updated_at_local IS 'Last update date-time as sent, company local time (spec 2.9 updated_at).';
COMMENT ON COLUMN adjustment_requests.updated_at IS 'Last update instant: updated_at_local converted with the connection''s time zone.';
COMMENT ON COLUMN adjustment_requests.synced_at IS 'When punchline last inserted or changed this row (a reload that finds nothing new leaves it as is).';

CREATE TABLE inconsistencies (
  company_cnpj       text NOT NULL,
  cpf                text NOT NULL,
  occurrence_date    date NOT NULL,
  seq                integer NOT NULL CHECK (seq >= 1),
  inconsistency_type text NOT NULL,
  value_seconds      integer NOT NULL,
  justification      text,
  status             text NOT NULL,
  synced_at          timestamptz NOT NULL DEFAULT now(),
  UNIQUE (company_cnpj, occurrence_date, cpf, seq)
);
CREATE INDEX inconsistencies_cpf_date_idx ON inconsistencies (cpf, occurrence_date);
COMMENT ON TABLE inconsistencies IS 'Journey inconsistencies (short intra-journey interval, 11 h inter-journey violation, overtime above the limit). Source: GET /customer/v2/inconsistency, occurrences[] (spec 2.10). No id in the API: the rows of a company and window are replaced on each sync; seq numbers one collaborator''s occurrences of a day in API order.';
COMMENT ON COLUMN inconsistencies.company_cnpj IS 'CNPJ of the collaborator''s company.';
COMMENT ON COLUMN inconsistencies.cpf IS 'CPF of the collaborator, 11 digits with leading zeros.';
COMMENT ON COLUMN inconsistencies.occurrence_date IS 'Day of the occurrence (spec 2.10 date).';
COMMENT ON COLUMN inconsistencies.seq IS 'Position (1, 2, ...) of the occurrence among the collaborator''s occurrences of that day, in API order.';
COMMENT ON COLUMN inconsistencies.inconsistency_type IS 'Descriptive text of the kind of inconsistency (spec 2.10 type).';
COMMENT ON COLUMN inconsistencies.value_seconds IS 'Signed duration in seconds, negative when short (spec 2.10 value).';
COMMENT ON COLUMN inconsistencies.justification IS 'Justification, null when none (spec 2.10).';
COMMENT ON COLUMN inconsistencies.status IS 'pending or acknowledged (spec 2.10 status).';
COMMENT ON COLUMN inconsistencies.synced_at IS 'When punchline last inserted or changed this row (a reload that finds nothing new leaves it as is).';

CREATE TABLE hour_bank_balances (
  company_cnpj                text NOT NULL,
  cpf                         text NOT NULL,
  balance_date                date NOT NULL,
  regime                      text NOT NULL,
  total_overtime_seconds      integer NOT NULL,
  missing_hours_seconds       integer NOT NULL,
  interval_hours_seconds      integer NOT NULL,
  normal_hours_seconds        integer NOT NULL,
  day_balance_seconds         integer NOT NULL,
  accumulated_balance_seconds integer NOT NULL,
  credit_seconds              integer NOT NULL,
  debt_seconds                integer NOT NULL,
  synced_at                   timestamptz NOT NULL DEFAULT now(),
  deleted_at                  timestamptz,
  PRIMARY KEY (company_cnpj, balance_date, cpf)
);
CREATE INDEX hour_bank_balances_cpf_date_idx ON hour_bank_balances (cpf, balance_date);
COMMENT ON TABLE hour_bank_balances IS 'Overtime and hour-bank balance per collaborator and day. Source: GET /customer/v2/overtime?date= (spec 2.11), read one day at a time. Durations in signed integer seconds. Filter deleted_at IS NULL for current data.';
COMMENT ON COLUMN hour_bank_balances.company_cnpj IS 'CNPJ of the collaborator''s company. Natural key with cpf and balance_date.';
COMMENT ON COLUMN hour_bank_balances.cpf IS 'CPF of the collaborator, 11 digits with leading zeros. Natural key with company_cnpj and balance_date.';
COMMENT ON COLUMN hour_bank_balances.balance_date IS 'Day queried (GET overtime date). Natural key with company_cnpj and cpf.';
COMMENT ON COLUMN hour_bank_balances.regime IS 'BH (hour bank), HE (paid overtime), Híbrido (BH) or Híbrido (HE) (spec 2.11 regime).';
COMMENT ON COLUMN hour_bank_balances.total_overtime_seconds IS 'Total overtime of the day, in seconds (spec 2.11 total_overtime).';
COMMENT ON COLUMN hour_bank_balances.missing_hours_seconds IS 'Missing hours of the day, in seconds (spec 2.11 missing_hours).';
COMMENT ON COLUMN hour_bank_balances.interval_hours_seconds IS 'Interval (break) hours of the day, in seconds (spec 2.11 interval_hours).';
COMMENT ON COLUMN hour_bank_balances.normal_hours_seconds IS 'Normal hours of the day, in seconds (spec 2.11 normal_hours).';
COMMENT ON COLUMN hour_bank_balances.day_balance_seconds IS 'Balance of the day, in seconds, signed (spec 2.11 day_balance).';
COMMENT ON COLUMN hour_bank_balances.accumulated_balance_seconds IS 'Full net balance up to the day, including the initial balance and hour-bank payments, in seconds, signed (spec 2.11 accumulated_balance).';
COMMENT ON COLUMN hour_bank_balances.credit_seconds IS 'Gross credit (bank_time_factored) from the start of the current hour-bank window to the day, in seconds (spec 2.11 credit).';
COMMENT ON COLUMN hour_bank_balances.debt_seconds IS 'Gross debit (negative bank time) over the same span, in seconds (spec 2.11 debt).';
COMMENT ON COLUMN hour_bank_balances.synced_at IS 'When punchline last inserted or changed this row (a reload that finds nothing new leaves it as is).';
COMMENT ON COLUMN hour_bank_balances.deleted_at IS 'When a completed sync of this company and day no longer returned the collaborator; null while current.';
