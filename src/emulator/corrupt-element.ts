/**
 * The queued fault `corrupt`: one element of a list answer with one date-time (else date) no system
 * could store, unknown to the truth: a sync should load the rest, reject that record, delete nothing.
 */

const BROKEN_DATE_TIME = '2025-13-45 25:00:00';
const BROKEN_DATE = '2025-13-45';

const DATE_TIME_RE = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;

/** Node requests whose list answer `corrupt` spoils (added by the route, read by context.ts' senders). */
export const corruptRequests = new WeakSet<object>();

/** Path of the first string matching `re`, depth first in key order; undefined when none. */
function findString(value: unknown, re: RegExp): (string | number)[] | undefined {
  if (typeof value === 'string') return re.test(value) ? [] : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  for (const [k, v] of Array.isArray(value) ? value.entries() : Object.entries(value)) {
    const inner = findString(v, re);
    if (inner) return [k, ...inner];
  }
  return undefined;
}

/** A copy of `item` with its first date-time (else its first date) broken; undefined when it has neither. */
function breakOneField(item: unknown): unknown {
  const dateTime = findString(item, DATE_TIME_RE);
  const path = dateTime ?? findString(item, DATE_RE);
  if (!path || path.length === 0) return undefined;
  const copy = structuredClone(item) as Record<string | number, unknown>;
  const parent = path
    .slice(0, -1)
    .reduce<Record<string | number, unknown>>((o, k) => o[k] as Record<string | number, unknown>, copy);
  parent[path.at(-1)!] = dateTime ? BROKEN_DATE_TIME : BROKEN_DATE;
  return copy;
}

/** The items with one broken: the first with a date after the first item (so mid-answer), or the only one. */
export function* corruptOneElement(items: Iterable<unknown>): Generator<unknown> {
  let first: { item: unknown } | undefined;
  let broken = false;
  let index = 0;
  for (const item of items) {
    if (index++ === 0) {
      first = { item };
      continue;
    }
    if (first) {
      yield first.item;
      first = undefined;
    }
    const spoiled = broken ? undefined : breakOneField(item);
    if (spoiled !== undefined) broken = true;
    yield spoiled ?? item;
  }
  if (first) yield breakOneField(first.item) ?? first.item;
}
