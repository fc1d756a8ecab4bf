/**
 * Adaptive window reading (DESIGN.md §4): read a window in one call; when the API
 * answers `date_range_exceeded` (spec 8), the response is above the size limit, or the
 * call times out, split the window in halves and read each, down to a single day.
 * Parts are yielded as they are read so the caller loads each before the next is
 * fetched: memory holds one part, never the whole window.
 */
import { DateRangeExceededError, ResponseTooLargeError, TimeoutError } from '../api/errors.js';
import { chunkWindow, halveWindow, windowDays, type DateWindow } from './windows.js';

/** One part of a window and what the API returned for it. */
export interface WindowPart<T> {
  /** The (sub-)window read. */
  readonly window: DateWindow;
  /** The records of that window. */
  readonly data: T[];
}

/** True for failures a smaller window may avoid. */
export function isSplittable(err: unknown): boolean {
  return err instanceof DateRangeExceededError || err instanceof ResponseTooLargeError || err instanceof TimeoutError;
}

/**
 * What earlier reads learned about a company and endpoint: the most days a window may
 * span before its response grows past the size limit or its call times out. Kept per
 * process, so the next window starts at a size that works instead of failing first.
 */
export interface SpanHint {
  /** The most days known to work, if a split was ever needed. */
  get(): number | undefined;
  /** Records that windows above `days` had to be split. */
  set(days: number): void;
}

/** Options of {@link readAdaptive}. */
export interface AdaptiveOptions {
  /** Told when a window is split, with the reason. */
  onSplit?: (window: DateWindow, reason: string) => void;
  /** Learned window size, read before the first call and updated after splits. */
  hint?: SpanHint;
}

const hints = new Map<string, number>();

/** The process-wide {@link SpanHint} of `key` (e.g. endpoint and company). */
export function spanHint(key: string): SpanHint {
  return {
    get: () => hints.get(key),
    set: (days) => hints.set(key, Math.min(days, hints.get(key) ?? Infinity)),
  };
}

/**
 * Reads `window` through `fetch`, splitting on {@link isSplittable} failures. A
 * single-day window that still fails rethrows the error. Parts come in date order.
 */
export async function* readAdaptive<T>(
  window: DateWindow,
  fetch: (w: DateWindow) => Promise<T[]>,
  options: AdaptiveOptions = {},
): AsyncGenerator<WindowPart<T>> {
  const learned = options.hint?.get();
  const pending: DateWindow[] = learned === undefined ? [window] : chunkWindow(window, learned);
  let split = false;
  while (pending.length > 0) {
    const w = pending.shift()!;
    let data: T[];
    try {
      data = await fetch(w);
    } catch (err) {
      const halves = isSplittable(err) ? halveWindow(w) : undefined;
      if (!halves) throw err;
      options.onSplit?.(w, (err as Error).name);
      pending.unshift(...halves);
      split = true;
      continue;
    }
    // The part that worked after a split sizes the next windows of this key.
    if (split) options.hint?.set(windowDays(w));
    yield { window: w, data };
  }
}
