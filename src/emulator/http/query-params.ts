/** Query parameters read as the API checks them: lists (spec 1.3), values (spec 1.2), periods (spec §8). */
import { DATE_TIME_RE, isCalendarDate } from '../../util/time.js';
import { dayOf } from '../calendar.js';
import { ApiFault, INVALID_LIST_PARAMETER, badListSyntax, invalidField, missingFields } from '../errors.js';

const LIST_SUFFIX = '[]';

/** The query string of one request. */
export class QueryParams {
  constructor(
    private readonly sp: URLSearchParams,
    /** `error.code` of a list parameter with the wrong syntax. */
    private readonly listCode: string = INVALID_LIST_PARAMETER,
  ) {}

  /** Parses the query part of a request URL. */
  static fromUrl(url: string, listCode?: string): QueryParams {
    const q = url.indexOf('?');
    return new QueryParams(new URLSearchParams(q < 0 ? '' : url.slice(q + 1)), listCode);
  }

  /** A scalar parameter (the last value when repeated); empty counts as absent. */
  scalar(name: string): string | undefined {
    if (this.sp.has(`${name}${LIST_SUFFIX}`)) throw invalidField(name, 'must be a single value, not a list');
    const all = this.sp.getAll(name);
    const v = all[all.length - 1];
    return v === undefined || v === '' ? undefined : v;
  }

  /** A list parameter (spec 1.3): only `name[]` repeated; `name`, `name[0]`, JSON or commas get 422. */
  list(name: string): string[] | undefined {
    for (const key of new Set(this.sp.keys())) {
      if (key === name || (key.startsWith(`${name}[`) && key !== `${name}${LIST_SUFFIX}`)) {
        throw badListSyntax(
          this.listCode,
          `The list parameter ${name} must be sent as ${name}[] repeated once per item (spec 1.3).`,
        );
      }
    }
    if (!this.sp.has(`${name}${LIST_SUFFIX}`)) return undefined;
    const values = this.sp.getAll(`${name}${LIST_SUFFIX}`).filter((v) => v !== '');
    for (const v of values) checkListValue(name, v, this.listCode);
    return values;
  }

  /** A boolean parameter: `1`, `0` or absent (spec 1.2). */
  bool(name: string): boolean | undefined {
    const v = this.scalar(name);
    if (v === undefined) return undefined;
    if (v === '1') return true;
    if (v === '0') return false;
    throw invalidField(name, 'must be 1 or 0');
  }

  /** A required positive integer parameter. */
  requiredInt(name: string): number {
    const v = this.scalar(name);
    if (v === undefined) throw missingFields([name]);
    if (!/^\d{1,15}$/.test(v)) throw invalidField(name, 'must be an integer');
    return Number(v);
  }

  /** A required date (spec 1.2). */
  requiredDate(name: string): string {
    const v = this.scalar(name);
    if (v === undefined) throw missingFields([name]);
    if (!isCalendarDate(v)) throw invalidField(name, 'must be a date in the format YYYY-MM-DD');
    return v;
  }

  /**
   * `begin_date` and `end_date`, dates or date-times, at most 31 days apart (spec §8); `strict` refuses
   * exactly 31 days, and plain dates where date-times are asked (docs/emulator.md). The bounds' seconds
   * are 0 and 86399 for dates; `meta` echoes the values as sent (spec 4.1).
   */
  period(kind: 'date' | 'datetime', rules: { readonly strict: boolean }) {
    const begin = this.scalar('begin_date');
    const end = this.scalar('end_date');
    const missing = Object.entries({ begin_date: begin, end_date: end }).filter(([, v]) => v === undefined);
    if (begin === undefined || end === undefined) throw missingFields(missing.map(([name]) => name));
    const b = parseBound('begin_date', begin, kind, rules.strict, 0);
    const e = parseBound('end_date', end, kind, rules.strict, 86399);
    if (e.day < b.day || (e.day === b.day && e.sec < b.sec)) {
      throw invalidField('end_date', 'must be a date after or equal to begin_date');
    }
    // spec §8: at most 31 days. Both ends count; exactly 31 days is accepted unless strict.
    const span = e.day - b.day + 1;
    const limit = rules.strict ? 30 : 31;
    if (span > limit) {
      throw new ApiFault(
        422,
        'date_range_exceeded',
        `The period may not exceed 31 days (got ${span} days including both ends).`,
      );
    }
    return {
      beginDay: b.day,
      endDay: e.day,
      beginSec: b.sec,
      endSec: e.sec,
      meta: { begin_date: begin, end_date: end },
    };
  }
}

/** Rejects JSON and comma-separated values of a list parameter (spec 1.3 rule 4). */
export function checkListValue(name: string, value: string, code: string = INVALID_LIST_PARAMETER): void {
  if (value.includes(',') || /^\s*[[{"]/.test(value)) {
    throw badListSyntax(
      code,
      `The list parameter ${name}[] takes one plain value per key; JSON and comma-separated values are rejected (spec 1.3).`,
    );
  }
}

/** One bound of a period; a plain date stands for second `sec` of its day. */
function parseBound(name: string, value: string, kind: 'date' | 'datetime', strict: boolean, sec: number) {
  if (kind === 'datetime' && DATE_TIME_RE.test(value) && isCalendarDate(value.slice(0, 10))) {
    const [h, m, s] = value.slice(11).split(':').map(Number) as [number, number, number];
    return { day: dayOf(value.slice(0, 10)), sec: h * 3600 + m * 60 + s };
  }
  // A plain date is read as the whole day where a date-time is asked, unless strict.
  if (isCalendarDate(value) && (kind === 'date' || !strict)) return { day: dayOf(value), sec };
  throw invalidField(
    name,
    kind === 'date'
      ? 'must be a date in the format YYYY-MM-DD'
      : 'must be a date-time in the format YYYY-MM-DD HH:MM:SS',
  );
}
