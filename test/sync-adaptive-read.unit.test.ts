import { describe, expect, it } from 'vitest';
import { readAdaptive } from '../src/sync/adaptive-read.js';
import { DateRangeExceededError, ResponseTooLargeError, ServerError, TimeoutError } from '../src/api/errors.js';
import { daysOf, windowDays, type DateWindow } from '../src/sync/windows.js';

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
