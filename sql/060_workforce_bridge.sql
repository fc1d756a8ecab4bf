-- 060_workforce_bridge: headcount numbers an HR analyst can sign (docs/warehouse.md
-- "Workforce measures").
-- - employments.employed_from_source: whether a record's first day is its known
--   admission date (a hire when it falls in the synced range) or the first day punchline
--   saw it (never a hire: in the opening headcount of its first covered month).
-- - pushed_dismissals keeps the dismissal type sent; dismissal_kind() says whether a
--   dismissal type's name is voluntary or involuntary (SHRM's split of separations).
-- - workforce_events: the ledger of every movement (hire, rehire, leave, department
--   change, transfer between two companies of the group), one row per record and event.
-- - monthly_headcount becomes a bridge that closes: opening + hires + rehires +
--   transfers in − transfers out − leavers = closing. headcount_first_day and
--   headcount_last_day are dropped (headcount_open and headcount_close replace them);
--   the rows are emptied here and rewritten by the next sync of each month
--   (punchline backfill --force over the synced range rebuilds them at once).
-- - group_monthly_headcount and monthly_turnover_12m: the group's monthly view (company
--   transfers are moves, one person counted once a day) and the rolling 12-month turnover.

ALTER TABLE employments ADD COLUMN employed_from_source text;
UPDATE employments SET employed_from_source = CASE WHEN admission_date IS NOT NULL THEN 'admission' ELSE 'first_seen' END;
ALTER TABLE employments ALTER COLUMN employed_from_source SET NOT NULL,
  ADD CONSTRAINT employments_employed_from_source CHECK (employed_from_source IN ('admission', 'first_seen')),
  ADD CONSTRAINT employments_employed_from_known CHECK ((employed_from_source = 'admission') = (admission_date IS NOT NULL));
COMMENT ON COLUMN employments.employed_from_source IS 'Where employed_from comes from: admission (the record''s admission date, known: the record is a hire, or a rehire or company transfer, of the month it falls in when that day is synced) or first_seen (no admission date: the first day punchline saw the record; never counted as a hire, it is in the opening headcount of its first synced month). A record admitted before the synced range is in the opening headcount of the first synced month either way.';

ALTER TABLE pushed_dismissals ADD COLUMN dismissal_type_id integer, ADD COLUMN dismissal_type text;
COMMENT ON COLUMN pushed_dismissals.dismissal_type_id IS 'Dismissal type sent (spec 4.2 fired_type_id; dismissal_types.id of the company); null for dismissals pushed before punchline kept it.';
COMMENT ON COLUMN pushed_dismissals.dismissal_type IS 'Name of the dismissal type sent, as the dismissal types lookup (GET fired-type) listed it when the push ran; null when unknown. dismissal_kind() of it splits leavers into voluntary and involuntary.';

CREATE FUNCTION dismissal_kind(type_name text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN type_name IS NULL THEN 'unknown'
    WHEN lower(type_name) ~ '(pedido|a pedido|volunt[aá]ri|acordo|484-a|aposentadoria)' THEN 'voluntary'
    WHEN lower(type_name) ~ '(justa causa|dispensa|t[eé]rmino|termino|fim de contrato|rescis[aã]o|demiss[aã]o)' THEN 'involuntary'
    ELSE 'unknown' END
$$;
COMMENT ON FUNCTION dismissal_kind(text) IS 'voluntary, involuntary or unknown for a dismissal type''s name (SHRM: a voluntary separation is the employee''s choice). Voluntary: a resignation (pedido de demissão), a mutual agreement (acordo, CLT art. 484-A), a retirement. Involuntary: a dismissal with or without cause (justa causa, CLT arts. 477 and 482), the end of a fixed-term or trial contract, any other dismissal. Unknown: no type, or a name matching neither.';

CREATE TABLE workforce_events (
  company_cnpj        text NOT NULL,
  cpf                 text NOT NULL,
  collaborator_record text NOT NULL,
  event_date          date NOT NULL,
  event_type          text NOT NULL CHECK (event_type IN ('hire', 'rehire', 'leave', 'department_change', 'company_transfer_in', 'company_transfer_out')),
  department          text NOT NULL,
  from_department     text,
  to_department       text,
  other_company_cnpj  text,
  leaving_kind        text CHECK (leaving_kind IN ('voluntary', 'involuntary', 'unknown')),
  date_source         text NOT NULL CHECK (date_source IN ('admission', 'dismissal', 'inferred', 'history')),
  synced_at           timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_cnpj, event_date, cpf, collaborator_record, event_type),
  CHECK ((leaving_kind IS NOT NULL) = (event_type = 'leave')),
  CHECK ((other_company_cnpj IS NOT NULL) = (event_type IN ('company_transfer_in', 'company_transfer_out')))
);
COMMENT ON TABLE workforce_events IS 'Every movement of the workforce, one row per employment record and event, on the day it takes effect, within the synced range (days of employee_daily): hires, rehires, leaves, department changes and transfers between two companies of the economic group. monthly_headcount''s hires, rehires, transfers and leavers are the sums of this ledger. Derived from employments, employee_daily and pushed_dismissals; kept current by the sync (docs/warehouse.md "Workforce measures").';
COMMENT ON COLUMN workforce_events.company_cnpj IS 'CNPJ of the company of the record. Natural key with event_date, cpf, collaborator_record and event_type.';
COMMENT ON COLUMN workforce_events.cpf IS 'CPF of the collaborator, 11 digits with leading zeros.';
COMMENT ON COLUMN workforce_events.collaborator_record IS 'Which record of the CPF (employments.collaborator_record).';
COMMENT ON COLUMN workforce_events.event_date IS 'The day the event takes effect: the first day of the employment (hire, rehire, company_transfer_in), its last day (leave, company_transfer_out: the person is not in that day''s closing headcount) or the first day in the new department (department_change).';
COMMENT ON COLUMN workforce_events.event_type IS 'hire (a record whose known admission date is a synced day), rehire (the same, for a CPF whose earlier record in the company ended before), leave (the record''s last day, employments.left_on), department_change, company_transfer_in and company_transfer_out (the CPF''s record in one company of the group ends and its record in another starts within 31 days: a move, not a leave and a hire).';
COMMENT ON COLUMN workforce_events.department IS 'Department the event counts in: the department of the day (for a department change, the new one); empty when the record names none.';
COMMENT ON COLUMN workforce_events.from_department IS 'department_change: the department of the day before; null for other events.';
COMMENT ON COLUMN workforce_events.to_department IS 'department_change: the new department; null for other events.';
COMMENT ON COLUMN workforce_events.other_company_cnpj IS 'Company transfers: the company the person came from (company_transfer_in) or went to (company_transfer_out); null for other events.';
COMMENT ON COLUMN workforce_events.leaving_kind IS 'leave: voluntary or involuntary by the dismissal type punchline pushed (dismissal_kind of pushed_dismissals.dismissal_type), unknown otherwise (the API shows no dismissal type); null for other events.';
COMMENT ON COLUMN workforce_events.date_source IS 'Where the date comes from: admission (employments.admission_date), dismissal (the date punchline pushed), inferred (the record left the active list: its last day of period data, employments.left_on_source), history (the collaborator history: the first synced day the new department shows).';
COMMENT ON COLUMN workforce_events.synced_at IS 'When punchline wrote the row.';

DELETE FROM monthly_headcount;
ALTER TABLE monthly_headcount DROP COLUMN headcount_first_day, DROP COLUMN headcount_last_day,
  ADD COLUMN headcount_open integer NOT NULL,
  ADD COLUMN rehires integer NOT NULL,
  ADD COLUMN transfers_in integer NOT NULL,
  ADD COLUMN transfers_out integer NOT NULL,
  ADD COLUMN headcount_close integer NOT NULL,
  ADD COLUMN voluntary_leavers integer NOT NULL,
  ADD COLUMN involuntary_leavers integer NOT NULL,
  ADD COLUMN unknown_leavers integer NOT NULL,
  ADD COLUMN is_complete_month boolean NOT NULL,
  ADD COLUMN leavers_known boolean NOT NULL,
  ADD CONSTRAINT monthly_headcount_leavers_split CHECK (leavers = voluntary_leavers + involuntary_leavers + unknown_leavers);
COMMENT ON TABLE monthly_headcount IS 'One row per company, department (as of the day) and month of the synced range: a headcount bridge that closes, headcount_open + hires + rehires + transfers_in − transfers_out − leavers = headcount_close (punchline verify checks it on every row: headcount_bridge), the average daily headcount and the SHRM monthly turnover. The movements are the sums of workforce_events. Derived from employee_daily, employments and workforce_events; kept current by the sync (docs/warehouse.md "Workforce measures").';
COMMENT ON COLUMN monthly_headcount.first_day IS 'First synced day of the month (the 1st when the whole month is synced).';
COMMENT ON COLUMN monthly_headcount.last_day IS 'Last synced day of the month (its last day, or today for the current month).';
COMMENT ON COLUMN monthly_headcount.days_covered IS 'Synced days of the month.';
COMMENT ON COLUMN monthly_headcount.headcount_open IS 'Opening headcount: records employed at the end of the day before first_day, in their department of that day; also the records whose first day is unknown (employed_from_source first_seen) or before first_day, in the department of their first synced day of the month. Equals the previous month''s headcount_close when both are synced.';
COMMENT ON COLUMN monthly_headcount.hires IS 'workforce_events hire of the month in the department: records whose known admission date is a synced day of the month.';
COMMENT ON COLUMN monthly_headcount.rehires IS 'workforce_events rehire of the month: new records of a CPF whose earlier record in the company ended before the new one started.';
COMMENT ON COLUMN monthly_headcount.transfers_in IS 'Moves into the department in the month: department changes into it and transfers from another company of the group (workforce_events department_change and company_transfer_in).';
COMMENT ON COLUMN monthly_headcount.transfers_out IS 'Moves out of the department in the month: department changes out of it and transfers to another company of the group (workforce_events department_change and company_transfer_out).';
COMMENT ON COLUMN monthly_headcount.leavers IS 'workforce_events leave of the month in the department: records whose last day (employments.left_on) is a synced day of the month, counted in their department of that day. A transfer to another company of the group is not a leaver.';
COMMENT ON COLUMN monthly_headcount.headcount_close IS 'Closing headcount: records employed at the end of last_day (a leaver whose last day is last_day is not in it), in their department of that day.';
COMMENT ON COLUMN monthly_headcount.average_headcount IS 'Average of the daily headcount of the department over the synced days of the month (employee_daily rows / days_covered).';
COMMENT ON COLUMN monthly_headcount.voluntary_leavers IS 'Leavers whose pushed dismissal type is voluntary (workforce_events.leaving_kind).';
COMMENT ON COLUMN monthly_headcount.involuntary_leavers IS 'Leavers whose pushed dismissal type is involuntary.';
COMMENT ON COLUMN monthly_headcount.unknown_leavers IS 'Leavers whose dismissal type punchline does not know (not dismissed through punchline push): leavers = voluntary + involuntary + unknown.';
COMMENT ON COLUMN monthly_headcount.is_complete_month IS 'True when every day of the month is synced and over (days_covered = days of the month): only such months have a turnover rate.';
COMMENT ON COLUMN monthly_headcount.leavers_known IS 'True when the company''s active list was synced at least once: without it nobody can be known to have left, and leavers is 0 for want of knowledge.';
COMMENT ON COLUMN monthly_headcount.turnover_rate IS 'SHRM monthly turnover: leavers / average_headcount (0.05 = 5%); null when the month is not complete (is_complete_month), the leavers are not known (leavers_known) or the average headcount is 0.';

CREATE VIEW group_monthly_headcount AS
WITH days AS (
  SELECT coalesce(c.headquarter_cnpj, d.company_cnpj) AS group_cnpj, d.work_date, d.cpf
    FROM employee_daily d LEFT JOIN companies c ON c.cnpj = d.company_cnpj
   GROUP BY 1, 2, 3
), months AS (
  SELECT group_cnpj, date_trunc('month', work_date)::date AS month, count(DISTINCT work_date)::int AS days_covered,
         max(work_date) AS last_day, count(*)::numeric AS person_days
    FROM days GROUP BY 1, 2
), events AS (
  SELECT coalesce(c.headquarter_cnpj, e.company_cnpj) AS group_cnpj, date_trunc('month', e.event_date)::date AS month,
         count(*) FILTER (WHERE e.event_type = 'hire')::int AS hires,
         count(*) FILTER (WHERE e.event_type = 'rehire')::int AS rehires,
         count(*) FILTER (WHERE e.event_type = 'leave')::int AS leavers,
         count(*) FILTER (WHERE e.event_type = 'leave' AND e.leaving_kind = 'voluntary')::int AS voluntary_leavers,
         count(*) FILTER (WHERE e.event_type = 'company_transfer_in')::int AS company_transfers
    FROM workforce_events e LEFT JOIN companies c ON c.cnpj = e.company_cnpj
   GROUP BY 1, 2
)
SELECT m.group_cnpj, m.month, m.days_covered, round(m.person_days / m.days_covered, 2) AS average_headcount,
       (SELECT count(*)::int FROM days d WHERE d.group_cnpj = m.group_cnpj AND d.work_date = m.last_day) AS headcount_last_day,
       coalesce(e.hires, 0) AS hires, coalesce(e.rehires, 0) AS rehires, coalesce(e.leavers, 0) AS leavers,
       coalesce(e.voluntary_leavers, 0) AS voluntary_leavers, coalesce(e.company_transfers, 0) AS company_transfers
  FROM months m LEFT JOIN events e ON e.group_cnpj = m.group_cnpj AND e.month = m.month;
COMMENT ON VIEW group_monthly_headcount IS 'One row per economic group (its headquarters'' CNPJ) and month: the group''s workforce counted once per person and day (a CPF employed by two companies of the group on one day is one person), hires, rehires and leavers of the group, and company transfers counted as moves, never as a leaver and a hire. From employee_daily and workforce_events.';
COMMENT ON COLUMN group_monthly_headcount.group_cnpj IS 'CNPJ of the headquarters of the economic group (companies.headquarter_cnpj; the company itself when unknown).';
COMMENT ON COLUMN group_monthly_headcount.month IS 'First day of the month.';
COMMENT ON COLUMN group_monthly_headcount.days_covered IS 'Synced days of the month in any company of the group.';
COMMENT ON COLUMN group_monthly_headcount.average_headcount IS 'Average over the synced days of the distinct CPFs employed in the group that day.';
COMMENT ON COLUMN group_monthly_headcount.headcount_last_day IS 'Distinct CPFs employed in the group on the last synced day of the month (leavers of that day included).';
COMMENT ON COLUMN group_monthly_headcount.hires IS 'workforce_events hire in the group''s companies in the month (company transfers are not hires).';
COMMENT ON COLUMN group_monthly_headcount.rehires IS 'workforce_events rehire in the group''s companies in the month.';
COMMENT ON COLUMN group_monthly_headcount.leavers IS 'workforce_events leave in the group''s companies in the month (company transfers are not leavers).';
COMMENT ON COLUMN group_monthly_headcount.voluntary_leavers IS 'Leavers whose pushed dismissal type is voluntary.';
COMMENT ON COLUMN group_monthly_headcount.company_transfers IS 'Moves between two companies of the group that started in the month (workforce_events company_transfer_in).';

CREATE VIEW monthly_turnover_12m AS
WITH company_months AS (
  SELECT company_cnpj, month, bool_and(is_complete_month AND leavers_known) AS known,
         sum(leavers)::int AS leavers, sum(voluntary_leavers)::int AS voluntary_leavers,
         sum(involuntary_leavers)::int AS involuntary_leavers, sum(average_headcount) AS average_headcount
    FROM monthly_headcount GROUP BY 1, 2
), rated AS (
  SELECT *, CASE WHEN known AND average_headcount > 0 THEN leavers / average_headcount END AS rate,
            CASE WHEN known AND average_headcount > 0 THEN voluntary_leavers / average_headcount END AS voluntary_rate
    FROM company_months
)
SELECT r.company_cnpj, r.month,
       (SELECT count(*)::int FROM rated x WHERE x.company_cnpj = r.company_cnpj AND x.month > r.month - interval '12 months' AND x.month <= r.month AND x.rate IS NOT NULL) AS months_known,
       (SELECT sum(x.leavers)::int FROM rated x WHERE x.company_cnpj = r.company_cnpj AND x.month > r.month - interval '12 months' AND x.month <= r.month) AS leavers_12m,
       (SELECT sum(x.voluntary_leavers)::int FROM rated x WHERE x.company_cnpj = r.company_cnpj AND x.month > r.month - interval '12 months' AND x.month <= r.month) AS voluntary_leavers_12m,
       (SELECT CASE WHEN count(x.rate) = 12 THEN round(sum(x.rate), 4) END FROM rated x WHERE x.company_cnpj = r.company_cnpj AND x.month > r.month - interval '12 months' AND x.month <= r.month) AS turnover_rate_12m,
       (SELECT CASE WHEN count(x.voluntary_rate) = 12 THEN round(sum(x.voluntary_rate), 4) END FROM rated x WHERE x.company_cnpj = r.company_cnpj AND x.month > r.month - interval '12 months' AND x.month <= r.month) AS voluntary_turnover_rate_12m
  FROM rated r;
COMMENT ON VIEW monthly_turnover_12m IS 'Rolling 12-month turnover per company, for each month of monthly_headcount: SHRM annual turnover, the sum of the 12 monthly rates (leavers / average headcount of the company) of the months ending with it. Null until all 12 months are complete and their leavers known (months_known says how many are).';
COMMENT ON COLUMN monthly_turnover_12m.company_cnpj IS 'CNPJ of the company.';
COMMENT ON COLUMN monthly_turnover_12m.month IS 'Last month of the 12 (first day of the month).';
COMMENT ON COLUMN monthly_turnover_12m.months_known IS 'How many of the 12 months have a turnover rate (complete, leavers known, headcount above 0).';
COMMENT ON COLUMN monthly_turnover_12m.leavers_12m IS 'Leavers of the company in the 12 months (months synced only).';
COMMENT ON COLUMN monthly_turnover_12m.voluntary_leavers_12m IS 'Voluntary leavers of the company in the 12 months.';
COMMENT ON COLUMN monthly_turnover_12m.turnover_rate_12m IS 'Sum of the 12 monthly turnover rates (0.15 = 15% a year); null unless months_known = 12.';
COMMENT ON COLUMN monthly_turnover_12m.voluntary_turnover_rate_12m IS 'Sum of the 12 monthly voluntary turnover rates (voluntary leavers / average headcount); null unless months_known = 12.';

COMMENT ON COLUMN quality_checks.check_name IS 'Which check: window_completeness, totals_vs_days, rule_vs_days, day_vs_punches, punch_without_day, unknown_collaborator, history_overlap, coverage, marts_vs_inputs or headcount_bridge. Key with company_cnpj, part, scope, cpf and checked_at.';
