/**
 * Schema drift: a value of a source-owned list not seen before (a sixth punch `origin`), or
 * a field no schema names. Not an error (an additive change of the API must not stop the
 * sync): reported once per watch to its listener (the sync's runtime records it for `status`).
 *
 * A watch belongs to its owner (a runtime's clients share one); nothing here is process-wide,
 * so two runtimes in one process each see their own drift.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { z } from 'zod';

/** One piece of drift. */
export type DriftEvent =
  | { readonly kind: 'new_value'; readonly field: string; readonly value: string }
  | { readonly kind: 'unknown_field'; readonly endpoint: string; readonly field: string };

/** Hears each piece of drift of a watch once; `listener` failures never fail the validation that noticed it. */
export class DriftWatch {
  readonly #reported = new Set<string>();
  constructor(private readonly listener: (event: DriftEvent) => void) {}

  /** Reports a value of a source-owned list (`field`, e.g. `point.origin`) that its known values lack. */
  newValue(field: string, value: string): void {
    this.#report(`v\u0000${field}\u0000${value}`, { kind: 'new_value', field, value });
  }

  /** Reports a field of `endpoint`'s answer that no schema names. */
  unknownField(endpoint: string, field: string): void {
    this.#report(`f\u0000${endpoint}\u0000${field}`, { kind: 'unknown_field', endpoint, field });
  }

  #report(key: string, event: DriftEvent): void {
    if (this.#reported.has(key)) return;
    this.#reported.add(key);
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
    const field = path ? `${path}.${key}` : key;
    const inner = shape[key];
    if (inner) noteUnknownFields(watch, endpoint, inner, v, field);
    else watch.unknownField(endpoint, field);
  }
}
