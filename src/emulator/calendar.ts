/**
 * Day arithmetic on day numbers (days since 1970-01-01): cheaper than Dates, free of time zones.
 * Brazil has no daylight saving time since 2019, so local wall-clock strings (spec 1.2) come directly.
 */

/** Day number of a `YYYY-MM-DD` date. */
export function dayOf(date: string): number {
  return Math.round(Date.parse(`${date}T00:00:00Z`) / 86_400_000);
}

/** `[year, month 1-12, day 1-31]` of a day number (Howard Hinnant's civil_from_days). */
export function civil(day: number): [number, number, number] {
  const z = day + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  return [yoe + era * 400 + (m <= 2 ? 1 : 0), m, d];
}

const pad2 = (n: number): string => (n < 10 ? `0${n}` : String(n));

/** `YYYY-MM-DD` of a day number. */
export function dateOf(day: number): string {
  const [y, m, d] = civil(day);
  return `${y}-${pad2(m)}-${pad2(d)}`;
}

/** Day of the week, 0 = Sunday … 6 = Saturday. */
export function weekday(day: number): number {
  return (((day + 4) % 7) + 7) % 7;
}

/** Month index (months since January 1970) of a day number. */
export function monthOf(day: number): number {
  const [y, m] = civil(day);
  return (y - 1970) * 12 + (m - 1);
}

/** First day number of a month index. */
export function monthStart(month: number): number {
  return Math.round(Date.UTC(1970 + Math.floor(month / 12), month % 12, 1) / 86_400_000);
}

/** Last day number of a month index. */
export function monthEnd(month: number): number {
  return monthStart(month + 1) - 1;
}

/** `HH:MM:SS` of seconds since midnight (0 ≤ s < 86400). */
export function clockOf(seconds: number): string {
  return `${hourMinuteOf(seconds)}:${pad2(seconds % 60)}`;
}

/** `YYYY-MM-DD HH:MM:SS` of a punch `seconds` after the midnight of `day` (beyond 24 h: the next morning). */
export function dateTimeOf(day: number, seconds: number): string {
  const next = Math.floor(seconds / 86400);
  return `${dateOf(day + next)} ${clockOf(seconds - next * 86400)}`;
}

/** `HH:MM` of seconds since midnight. */
export function hourMinuteOf(seconds: number): string {
  return `${pad2(Math.floor(seconds / 3600))}:${pad2(Math.floor((seconds % 3600) / 60))}`;
}

/** Fixed national holidays of Brazil (month × 100 + day), on which journeys do not work. */
const HOLIDAYS = new Set([101, 421, 501, 907, 1012, 1102, 1115, 1225]);

/** True on a fixed national holiday. */
export function isHoliday(day: number): boolean {
  const [, m, d] = civil(day);
  return HOLIDAYS.has(m * 100 + d);
}
