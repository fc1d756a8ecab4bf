/**
 * Schema drift: a value of a source-owned list not seen before (a sixth punch `origin`), or
 * a field no schema names. Not an error (an additive change of the API must not stop the
 * sync): reported once per watch to its listener (the sync's runtime records it for `status`).
 *
 * A watch belongs to its owner (a runtime's clients share one); nothing here is process-wide,
 * so two runtimes in one process each see their own drift.
 *
 * What is reported comes from the API's answers, so it is bounded here, whatever the source
 * sends: a text is cleaned of characters the warehouse refuses (a NUL) and of control
 * characters, a long one is kept as a prefix and a hash ({@link driftText}), and past
 * {@link MAX_DRIFT_PER_FIELD} distinct values of one field (or unknown fields of one
 * endpoint) a watch reports one `too_many` event for it and nothing more.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { storableText } from '../util/storable-text.js';

/** One piece of drift. */
export type DriftEvent =
  | { readonly kind: 'new_value'; readonly field: string; readonly value: string }
  | { readonly kind: 'unknown_field'; readonly endpoint: string; readonly field: string }
  /** More distinct values of `field` (or unknown fields of `endpoint`) than a watch reports. */
  | { readonly kind: 'too_many'; readonly endpoint: string; readonly field: string };

/** Most distinct new values of one field, or unknown fields of one endpoint, one watch reports. */
export const MAX_DRIFT_PER_FIELD = 100;
/** Longest drift text kept whole; a longer one is kept as its first characters and a hash. */
export const MAX_DRIFT_TEXT = 200;
/** Characters of a long text kept before its hash. */
const KEPT_PREFIX = 64;

/**
 * `text` as drift keeps it (pure): without control characters, well-formed, and when longer
 * than {@link MAX_DRIFT_TEXT} its first characters, an ellipsis and a SHA-256 prefix of the
 * whole, so two long values stay apart and the stored text stays bounded.
 */
export function driftText(text: string): string {
  const clean = storableText(text).replace(/[\t\n\r]/g, ' ');
  if (clean.length <= MAX_DRIFT_TEXT) return clean;
  const hash = createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 16);
  return `${[...clean].slice(0, KEPT_PREFIX).join('')}… (${clean.length} characters, sha256 ${hash})`;
}

/** Hears each piece of drift once, bounded per field; `listener` failures never fail the validation that noticed it. */
export class DriftWatch {
  readonly #reported = new Set<string>();
  /** Distinct drift reported per group (a field's values, an endpoint's unknown fields). */
  readonly #perGroup = new Map<string, number>();
  constructor(private readonly listener: (event: DriftEvent) => void) {}

  /** Reports a value of a source-owned list (`field`, e.g. `point.origin`) that its known values lack. */
  newValue(field: string, value: string): void {
    const kept = driftText(value);
    this.#report({ endpoint: '', field }, `v\u0000${field}\u0000${kept}`, {
      kind: 'new_value',
      field,
      value: kept,
    });
  }

  /** Reports a field (its path) of `endpoint`'s answer that no schema names. */
  unknownField(endpoint: string, path: string): void {
    const field = driftText(path);
    this.#report({ endpoint, field: '' }, `f\u0000${endpoint}\u0000${field}`, {
      kind: 'unknown_field',
      endpoint,
      field,
    });
  }

  /** Reports `event` once, unless its group has already reported its bound (then one `too_many`). */
  #report(group: { endpoint: string; field: string }, key: string, event: DriftEvent): void {
    if (this.#reported.has(key)) return;
    const g = `${group.endpoint}\u0000${group.field}`;
    const count = this.#perGroup.get(g) ?? 0;
    if (count > MAX_DRIFT_PER_FIELD) return;
    this.#perGroup.set(g, count + 1);
    if (count === MAX_DRIFT_PER_FIELD) {
      this.#notify({ kind: 'too_many', ...group });
      return;
    }
    this.#reported.add(key);
    this.#notify(event);
  }

  #notify(event: DriftEvent): void {
    try {
      this.listener(event);
    } catch {
      // A listener that fails must not fail the validation that noticed the drift.
    }
  }
}

/** The watch of the validation running now: schemas (openVocabulary) report to it without a parameter. */
const current = new AsyncLocalStorage<DriftWatch>();

/** Runs `validate` (synchronous zod parsing) with `watch` hearing the drift it notices; none without a watch. */
export function watchingDrift<T>(watch: DriftWatch | undefined, validate: () => T): T {
  return watch ? current.run(watch, validate) : validate();
}

/** Reports a value of a source-owned list to the watch of the running validation, if any. */
export function noteNewValue(field: string, value: string): void {
  current.getStore()?.newValue(field, value);
}

/** The schema under optional/nullable wrappers. */
function unwrap(s: z.ZodType): z.ZodType {
  if (s instanceof z.ZodOptional || s instanceof z.ZodNullable) return unwrap(s.unwrap() as z.ZodType);
  return s instanceof z.ZodPipe ? unwrap(s.in as z.ZodType) : s;
}

/**
 * Reports the fields of `value` that `schema` does not name (`days[].points[].selfie_url`),
 * once per endpoint and path. Arrays are checked on their first item: drift is a change of
 * the API, in every record or in none.
 */
export function noteUnknownFields(
  watch: DriftWatch,
  endpoint: string,
  schema: z.ZodType,
  value: unknown,
  path = '',
): void {
  const s = unwrap(schema);
  if (s instanceof z.ZodArray) {
    if (Array.isArray(value) && value.length > 0)
      noteUnknownFields(watch, endpoint, s.element as z.ZodType, value[0], `${path}[]`);
    return;
  }
  if (!(s instanceof z.ZodObject) || value === null || typeof value !== 'object' || Array.isArray(value))
    return;
  const shape = s.shape as Record<string, z.ZodType>;
  for (const [key, v] of Object.entries(value)) {
    const inner = shape[key];
    const field = path ? `${path}.${key}` : key;
    if (inner) noteUnknownFields(watch, endpoint, inner, v, field);
    else watch.unknownField(endpoint, field);
  }
}
