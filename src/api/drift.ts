/**
 * Schema drift: a value of a source-owned list not seen before (a sixth punch `origin`), or
 * a field no schema names. Not an error (an additive change of the API must not stop the
 * sync): reported once per process to the listeners (the sync records it for `status`).
 */
import { z } from 'zod';

/** One piece of drift. */
export type DriftEvent =
  | { readonly kind: 'new_value'; readonly field: string; readonly value: string }
  | { readonly kind: 'unknown_field'; readonly endpoint: string; readonly field: string };

const listeners = new Set<(event: DriftEvent) => void>();
const reported = new Set<string>();

/** Listens to drift; returns a function that stops listening. */
export function onDrift(listener: (event: DriftEvent) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function report(key: string, event: DriftEvent): void {
  if (reported.has(key)) return;
  reported.add(key);
  for (const l of listeners) {
    try {
      l(event);
    } catch {
      // A listener that fails must not fail the validation that noticed the drift.
    }
  }
}

/** Reports a value of a source-owned list (`field`, e.g. `point.origin`) that its known values lack. */
export function noteNewValue(field: string, value: string): void {
  report(`v\u0000${field}\u0000${value}`, { kind: 'new_value', field, value });
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
export function noteUnknownFields(endpoint: string, schema: z.ZodType, value: unknown, path = ''): void {
  const s = unwrap(schema);
  if (s instanceof z.ZodArray) {
    if (Array.isArray(value) && value.length > 0)
      noteUnknownFields(endpoint, s.element as z.ZodType, value[0], `${path}[]`);
    return;
  }
  if (!(s instanceof z.ZodObject) || value === null || typeof value !== 'object' || Array.isArray(value))
    return;
  const shape = s.shape as Record<string, z.ZodType>;
  for (const [key, v] of Object.entries(value)) {
    const field = path ? `${path}.${key}` : key;
    const inner = shape[key];
    if (inner) noteUnknownFields(endpoint, inner, v, field);
    else report(`f\u0000${endpoint}\u0000${field}`, { kind: 'unknown_field', endpoint, field });
  }
}
