/**
 * Text from a stranger (an API answer) made fit for the warehouse: Postgres refuses a NUL in
 * `text` and in `jsonb`, and a `\u0000` or a surrogate without its pair in JSON cast to
 * `jsonb`; other control characters garble a terminal or a log. Used for rejected records
 * (the element as sent, its path and reason) and for schema drift.
 */

// The C0 controls but tab, line feed and carriage return, DEL and the C1 controls.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;
/** A surrogate not in a pair (with the `u` flag a pair is one code point). */
const LONE_SURROGATE = /[\ud800-\udfff]/gu;

/** `text` without control characters (tab and line breaks kept), a lone surrogate as U+FFFD (pure). */
export function storableText(text: string): string {
  return text.replace(LONE_SURROGATE, '\ufffd').replace(CONTROL, '');
}

/**
 * `value` (parsed JSON) with every string and key made {@link storableText}; what lies deeper
 * than `maxDepth` levels becomes a note saying so (the API client already refuses deeper
 * elements, src/api/data-stream.ts: this keeps the walk bounded whatever it is given).
 */
export function storableJson(value: unknown, maxDepth = 64): unknown {
  const walk = (v: unknown, depth: number): unknown => {
    if (typeof v === 'string') return storableText(v);
    if (v === null || typeof v !== 'object') return v;
    if (depth >= maxDepth) return `(nested deeper than ${maxDepth} levels)`;
    if (Array.isArray(v)) return v.map((item) => walk(item, depth + 1));
    return Object.fromEntries(Object.entries(v).map(([k, item]) => [storableText(k), walk(item, depth + 1)]));
  };
  return walk(value, 0);
}
