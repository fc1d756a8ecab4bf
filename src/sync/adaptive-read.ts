/**
 * Adaptive window reading (DESIGN.md §4): read a window in one call; when the API
 * answers `date_range_exceeded` (spec 8), the response is above the size limit, or the
 * call times out, split the window in halves and read each, down to a single day.
 * Parts are yielded as they are read so the caller loads each before the next is
 * fetched: memory holds one part, never the whole window.
 */
import { DateRangeExceededError, ResponseTooLargeError, TimeoutError } from '../api/errors.js';
import { halveWindow, type DateWindow } from './windows.js';

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

/** Options of {@link readAdaptive}. */
export interface AdaptiveOptions {
  /** Told when a window is split, with the reason. */
  onSplit?: (window: DateWindow, reason: string) => void;
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
  const pending: DateWindow[] = [window];
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
      continue;
    }
    yield { window: w, data };
  }
}
