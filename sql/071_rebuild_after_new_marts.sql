-- 071_rebuild_after_new_marts: migrations 060-063 changed the definitions of
-- monthly_headcount (the bridge), employments (employed_from_source), absence_days (full-day
-- absences only) and added workforce_events, company_calendar and absence_hours; 070 added
-- the labour-law marts. A warehouse that already holds synced data gets them filled from
-- its own tables: every company's marts are rebuilt over its whole coverage by the next
-- worker to start (docs/warehouse.md "Marts"; `punchline marts rebuild` does it at once).
SELECT request_marts_rebuild(NULL, NULL, NULL);
