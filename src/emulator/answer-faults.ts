/**
 * Faults that spoil the body of a 200 answer (queued-faults.ts, and the `--faults`
 * probabilities of traffic.ts) — what a hostile or broken source sends once the headers
 * are out:
 * - `trickle`: the body arrives a few bytes at a time, with a pause between pieces;
 * - `endless`: the `data` array never ends (its elements over and over, until the client
 *   hangs up);
 * - `huge-attachment`: the first `base64` field of the answer (an attachment, spec 2.6,
 *   or an audit photo, spec 2.13) grows by `bytes` bytes of valid base64, streamed, so the
 *   emulator itself never holds it;
 * - `repeat`: the first element of a list is sent twice in a row (a key the answer holds
 *   twice);
 * - `foreign-company`: the first element with a `company` block names another company
 *   of the group (spec 1.4 rule 4 broken);
 * - `odd-origins`: punches (spec 2.12) with origins no spec lists: one odd text for all, or
 *   a new one per punch, the first day growing copies of its first punch until the answer
 *   holds as many as asked;
 * - `nul-element`: the first element's `national_registry` holds a NUL and a bell character
 *   (a record no warehouse text column takes as sent);
 * - `deep-element`: an element of arrays nested {@link DEEP_LEVELS} levels deep (20 KB) comes
 *   first, sent as raw JSON text (the emulator cannot `JSON.stringify` it either).
 *
 * A route marks the request (by its Node request object); the senders of http/context.ts
 * apply the element faults and the onSend hook of http/read-routes.ts the body faults.
 */
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';

/** What a fault does to the elements of a list answer. */
export type ElementSpoiler = (items: Iterable<unknown>) => Iterable<unknown>;
/** What a fault does to a whole serialized body. */
export type BodySpoiler = (payload: string | Buffer | Readable) => Readable;

const elementSpoilers = new WeakMap<object, ElementSpoiler>();
const bodySpoilers = new WeakMap<object, BodySpoiler>();

/** Marks the list answer of `raw` (a request's Node request object) to be spoiled by `spoil`. */
export function spoilElements(raw: object, spoil: ElementSpoiler): void {
  elementSpoilers.set(raw, spoil);
}

/** The element spoiler of `raw`'s answer, if any. */
export function elementSpoilerOf(raw: object): ElementSpoiler | undefined {
  return elementSpoilers.get(raw);
}

/** Marks the body of `raw`'s answer to be spoiled by `spoil`. */
export function spoilBody(raw: object, spoil: BodySpoiler): void {
  bodySpoilers.set(raw, spoil);
}

/** The body spoiler of `raw`'s answer, if any. */
export function bodySpoilerOf(raw: object): BodySpoiler | undefined {
  return bodySpoilers.get(raw);
}

/** Default size of a piece of a trickling body, in bytes. */
const TRICKLE_PIECE_BYTES = 64;
/** Default pause between two pieces of a trickling body, in ms. */
export const DEFAULT_TRICKLE_MS = 1000;
/** Default growth of a huge attachment, in bytes (64 MiB). */
export const DEFAULT_HUGE_BYTES = 64 * 1024 * 1024;

/** The elements again and again, forever (an element `{}` when there are none). */
export function* endlessly(items: Iterable<unknown>): Generator<unknown> {
  const seen: unknown[] = [];
  for (const item of items) {
    if (seen.length < 16) seen.push(item);
    yield item;
  }
  if (seen.length === 0) seen.push({});
  for (;;) yield* seen;
}

/** The first element twice in a row, then the others. */
export function* repeatFirst(items: Iterable<unknown>): Generator<unknown> {
  let first = true;
  for (const item of items) {
    yield item;
    if (first) yield item;
    first = false;
  }
}

/** The elements with the first one that has a `company` block naming `company` instead. */
export function withForeignCompany(company: Readonly<Record<string, unknown>>): ElementSpoiler {
  return function* (items) {
    let done = false;
    for (const item of items) {
      const block = (item as { company?: unknown } | null)?.company;
      if (!done && block !== null && typeof block === 'object') {
        done = true;
        yield { ...(item as Record<string, unknown>), company: { ...company } };
      } else {
        yield item;
      }
    }
  };
}

/** JSON text sent as it is in a list answer (http/context.ts), for what `JSON.stringify` cannot build. */
export class RawJson {
  constructor(readonly text: string) {}
}

/** Levels of a `deep-element`. */
export const DEEP_LEVELS = 10_000;

/** The elements with the first one's `national_registry` holding a NUL and a bell character. */
export function* withNulElement(items: Iterable<unknown>): Generator<unknown> {
  let first = true;
  for (const item of items) {
    const sent = (item as { national_registry?: unknown } | null)?.national_registry;
    if (first && typeof sent === 'string') {
      first = false;
      yield {
        ...(item as Record<string, unknown>),
        national_registry: `${sent.slice(0, 3)}\u0000\u0007${sent.slice(3)}`,
      };
    } else yield item;
  }
}

/** An element nested {@link DEEP_LEVELS} levels deep, then the elements. */
export function* withDeepElement(items: Iterable<unknown>): Generator<unknown> {
  yield new RawJson(`${'['.repeat(DEEP_LEVELS)}${']'.repeat(DEEP_LEVELS)}`);
  yield* items;
}

/** First id of the punches `odd-origins` adds (far above the world's). */
const ADDED_POINT_IDS = 1_900_000_000;

type Points = { points?: Record<string, unknown>[] };

/**
 * The elements of a period answer of punches with their origins replaced: every punch's by
 * `origin`, or with `values`, punch n's by `<origin> <n>`, the first day with a punch growing
 * copies of it (fresh ids) until the answer holds `values` punches.
 */
export function withOddOrigins(origin: string, values?: number): ElementSpoiler {
  return function* (items) {
    let n = 0;
    let grown = values === undefined;
    const next = (): string => (values === undefined ? origin : `${origin} ${n++}`);
    const all = [...items];
    for (const item of all) {
      const days = (item as { days?: Points[] } | null)?.days;
      if (!Array.isArray(days)) continue;
      for (const day of days) {
        const points = day.points;
        if (!Array.isArray(points) || points.length === 0) continue;
        if (!grown) {
          grown = true;
          const total = all.reduce(
            (sum: number, e) =>
              sum + ((e as { days?: Points[] }).days ?? []).reduce((s, d) => s + (d.points?.length ?? 0), 0),
            0,
          );
          const first = points[0]!;
          for (let k = 0; k < values! - total; k++) points.push({ ...first, point_id: ADDED_POINT_IDS + k });
        }
        day.points = points.map((p) => ({ ...p, origin: next() }));
      }
    }
    yield* all;
  };
}

async function* bytesOf(payload: string | Buffer | Readable): AsyncGenerator<Buffer> {
  if (typeof payload === 'string') yield Buffer.from(payload, 'utf8');
  else if (Buffer.isBuffer(payload)) yield payload;
  else
    for await (const chunk of payload)
      yield Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk), 'utf8');
}

/** A body sent `pieceBytes` at a time with `intervalMs` between pieces. */
export function trickle(intervalMs: number, pieceBytes = TRICKLE_PIECE_BYTES): BodySpoiler {
  return (payload) =>
    Readable.from(
      (async function* () {
        let first = true;
        for await (const chunk of bytesOf(payload)) {
          for (let i = 0; i < chunk.length; i += pieceBytes) {
            if (!first) await sleep(intervalMs);
            first = false;
            yield chunk.subarray(i, i + pieceBytes);
          }
        }
      })(),
      { objectMode: false },
    );
}

const BASE64_KEY = Buffer.from('"base64":"');
const FILLER = Buffer.alloc(64 * 1024, 'A');

/**
 * A body whose first `base64` string starts with `bytes` more bytes of `A` (valid
 * base64, rounded to a multiple of 4), streamed 64 KiB at a time; a body without one is
 * sent as it is.
 */
export function hugeBase64(bytes: number): BodySpoiler {
  const extra = Math.ceil(bytes / 4) * 4;
  return (payload) =>
    Readable.from(
      (async function* () {
        let grown = false;
        for await (const chunk of bytesOf(payload)) {
          const at = grown ? -1 : chunk.indexOf(BASE64_KEY);
          if (at < 0) {
            yield chunk;
            continue;
          }
          grown = true;
          const cut = at + BASE64_KEY.length;
          yield chunk.subarray(0, cut);
          for (let left = extra; left > 0; left -= FILLER.length)
            yield left >= FILLER.length ? FILLER : FILLER.subarray(0, left);
          yield chunk.subarray(cut);
        }
      })(),
      { objectMode: false },
    );
}
