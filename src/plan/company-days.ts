/**
 * "Today" per company: spec 1.2 puts each company's date-times in its own local time, so
 * around midnight a branch in Rio Branco (UTC−5) is still on yesterday while the
 * headquarters in São Paulo is on today. Plans that end at today (the schedules' ranges,
 * the backfill's last hour-bank day) are made per group of companies sharing a calendar
 * day, so no company is asked for a day that has not begun where it is.
 */
import { companyTimezone, type Connection } from '../config.js';
import { todayIn } from '../util/time.js';
import type { Plan, PlannedJob } from './planner.js';

/** The companies grouped by their calendar day at `now` (`YYYY-MM-DD` → CNPJs), in their first-seen order. */
export function companiesByDay(
  connection: Pick<Connection, 'timezone' | 'companyTimezones'>,
  companies: readonly string[],
  now: Date,
): Map<string, string[]> {
  const byDay = new Map<string, string[]>();
  for (const cnpj of companies) {
    const day = todayIn(companyTimezone(connection, cnpj), now);
    const group = byDay.get(day);
    if (group) group.push(cnpj);
    else byDay.set(day, [cnpj]);
  }
  return byDay;
}

/**
 * Plans each group of companies sharing a calendar day with its own `today` and merges the
 * plans, a job planned by several groups (the group walk) once; without companies, plans once.
 */
export function planByCompanyDay(
  connection: Pick<Connection, 'timezone' | 'companyTimezones'>,
  companies: readonly string[],
  now: Date,
  plan: (today: string, companies: readonly string[]) => Plan,
): Plan {
  const groups =
    companies.length === 0
      ? new Map([[todayIn(connection.timezone, now), []]])
      : companiesByDay(connection, companies, now);
  const jobs = new Map<string, PlannedJob>();
  let skipped = 0;
  for (const [today, group] of groups) {
    const part = plan(today, group);
    skipped += part.skipped;
    for (const job of part.jobs) if (!jobs.has(job.id)) jobs.set(job.id, job);
  }
  return { jobs: [...jobs.values()], skipped };
}
