import { describe, expect, it } from 'vitest';
import { observeWaits, type RateLimitListener, type RequestLimiter } from '../src/api/limiter.js';

describe('observeWaits', () => {
  it('reports how long each admission waited and hands back the release of the limiter', async () => {
    let t = 100;
    let released = 0;
    const inner: RequestLimiter = {
      async acquire() {
        t += 250; // the budget made this attempt wait 250 ms
        return () => (released += 1);
      },
    };
    const waits: number[] = [];
    const observed = observeWaits(
      inner,
      (ms) => waits.push(ms),
      () => t,
    );
    const release = await observed.acquire();
    release();
    expect(waits).toEqual([250]);
    expect(released).toBe(1);
    expect(observed.onRateLimited).toBeUndefined();
  });

  it('passes 429 reports on to a limiter that listens for them', async () => {
    const seen: number[] = [];
    const inner: RequestLimiter & RateLimitListener = {
      acquire: async () => () => undefined,
      onRateLimited(ms) {
        seen.push(ms);
      },
    };
    await observeWaits(inner, () => undefined).onRateLimited!(1500);
    expect(seen).toEqual([1500]);
  });
});
