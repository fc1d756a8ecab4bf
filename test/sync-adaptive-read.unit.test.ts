import { describe, expect, it } from 'vitest';
import { readAdaptive } from '../src/sync/adaptive-read.js';
import { DateRangeExceededError, ResponseTooLargeError, ServerError, TimeoutError } from '../src/api/errors.js';
import { chunkWindow, daysOf, windowDays, type DateWindow } from '../src/sync/windows.js';

async function collect<T>(gen: AsyncGenerator<{ window: DateWindow; data: T[] }>) {
  const parts: { window: DateWindow; data: T[] }[] = [];
  for await (const p of gen) parts.push(p);
  return parts;
}

describe('readAdaptive', () => {
  it('reads a window in one call when the API accepts it', async () => {
    const calls: DateWindow[] = [];
    const parts = await collect(
      readAdaptive({ from: '2024-01-01', to: '2024-01-31' }, async (w) => {
        calls.push(w);
        return [w.from];
      }),
    );
    expect(calls).toHaveLength(1);
    expect(parts.map((p) => p.data)).toEqual([['2024-01-01']]);
  });

  describe('when the API answers date_range_exceeded above 15 days', () => {
    it('halves until every part is accepted and covers every day once, in order', async () => {
      const splits: string[] = [];
      const parts = await collect(
        readAdaptive(
          { from: '2024-01-01', to: '2024-01-31' },
          async (w) => {
            if (windowDays(w) > 15) throw new DateRangeExceededError({ endpoint: 'tardiness', status: 422 });
            return daysOf(w);
          },
          { onSplit: (w, reason) => splits.push(`${w.from}:${reason}`) },
        ),
      );
      expect(splits).toEqual(['2024-01-01:DateRangeExceededError', '2024-01-01:DateRangeExceededError']);
      const days = parts.flatMap((p) => p.data);
      expect(days).toEqual(daysOf({ from: '2024-01-01', to: '2024-01-31' }));
      expect(parts.every((p) => windowDays(p.window) <= 15)).toBe(true);
    });
  });

  it('splits on oversized responses and timeouts down to one day, then gives up', async () => {
    let calls = 0;
    const gen = readAdaptive({ from: '2024-02-01', to: '2024-02-04' }, async (w) => {
      calls++;
      if (w.from === '2024-02-03' && w.to === '2024-02-03') throw new TimeoutError({ endpoint: 'x' });
      if (windowDays(w) > 1) throw new ResponseTooLargeError({ endpoint: 'x', status: 200, limitBytes: 10 });
      return [w.from];
    });
    await expect(collect(gen)).rejects.toBeInstanceOf(TimeoutError);
    expect(calls).toBeGreaterThanOrEqual(5);
  });

  it('does not split on errors a smaller window cannot fix', async () => {
    let calls = 0;
    const gen = readAdaptive({ from: '2024-02-01', to: '2024-02-29' }, async () => {
      calls++;
      throw new ServerError({ endpoint: 'x', status: 500 });
    });
    await expect(collect(gen)).rejects.toBeInstanceOf(ServerError);
    expect(calls).toBe(1);
  });
});

describe('chunkWindow', () => {
  it('cuts a window into the fewest near-equal parts of at most maxDays, covering each day once', () => {
    const parts = chunkWindow({ from: '2024-01-01', to: '2024-01-31' }, 15);
    expect(parts.map(windowDays)).toEqual([11, 10, 10]);
    expect(parts.flatMap(daysOf)).toEqual(daysOf({ from: '2024-01-01', to: '2024-01-31' }));
    expect(chunkWindow({ from: '2024-02-01', to: '2024-02-03' }, 31)).toEqual([{ from: '2024-02-01', to: '2024-02-03' }]);
  });
});

describe('readAdaptive with a span hint', () => {
  it('learns the size that worked and starts the next window at it', async () => {
    let learned: number | undefined;
    const hint = { get: () => learned, set: (d: number) => (learned = Math.min(d, learned ?? Infinity)) };
    const tooLarge = async (w: DateWindow) => {
      if (windowDays(w) > 8) throw new ResponseTooLargeError({ endpoint: 'x', status: 200, limitBytes: 10 });
      return daysOf(w);
    };
    let calls = 0;
    const counted = (w: DateWindow) => (calls++, tooLarge(w));
    await collect(readAdaptive({ from: '2024-01-01', to: '2024-01-31' }, counted, { hint }));
    expect(learned).toBe(7); // 31 → 16 + 15 → 8 + 8 + 8 + 7
    const first = calls;
    calls = 0;
    const parts = await collect(readAdaptive({ from: '2024-03-01', to: '2024-03-31' }, counted, { hint }));
    expect(calls).toBe(5); // 7+6+6+6+6, no oversized attempt
    expect(calls).toBeLessThan(first);
    expect(parts.flatMap((p) => p.data)).toEqual(daysOf({ from: '2024-03-01', to: '2024-03-31' }));
  });
});
