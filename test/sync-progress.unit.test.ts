import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { barReporter, formatSeconds, plainReporter } from '../src/backfill/progress.js';

function capture(tty: boolean): { out: NodeJS.WritableStream; text: () => string } {
  const out = new PassThrough() as PassThrough & { isTTY?: boolean; columns?: number };
  out.isTTY = tty;
  out.columns = 200;
  let text = '';
  out.on('data', (d) => (text += String(d)));
  return { out, text: () => text };
}

describe('backfill progress', () => {
  it('draws a bar with windows done/total, rows, requests, rate and ETA on a terminal', async () => {
    const { out, text } = capture(true);
    const bar = barReporter(out);
    bar.update({ done: 0, total: 10, failed: 0, rows: 0, requests: 0, elapsedMs: 0 });
    bar.update({ done: 4, total: 12, failed: 0, rows: 321, requests: 40, elapsedMs: 8000 });
    bar.stop();
    await new Promise((r) => setImmediate(r));
    expect(text()).toMatch(/backfill \[.*\] 4\/12 windows \| 321 rows \| 40 requests \(5\.0\/s\) \| ETA 16s/);
  });

  it('prints plain lines, throttled, with the last one always shown', async () => {
    const { out, text } = capture(false);
    const r = plainReporter(out, 60_000);
    r.update({ done: 0, total: 3, failed: 0, rows: 0, requests: 0, elapsedMs: 0 });
    r.update({ done: 1, total: 3, failed: 0, rows: 5, requests: 2, elapsedMs: 1000 });
    r.update({ done: 3, total: 3, failed: 1, rows: 9, requests: 4, elapsedMs: 2000 });
    r.stop();
    await new Promise((r) => setImmediate(r));
    expect(text().trim().split('\n')).toEqual([
      'backfill: 0/3 windows, 0 rows, 0 requests (0.0/s), ETA ?',
      'backfill: 3/3 windows (1 failed), 9 rows, 4 requests (2.0/s), ETA 0s',
    ]);
    expect(text()).not.toContain('\u001b[');
  });

  it('names a paused queue and how to resume it, on the bar and on plain lines', async () => {
    const plain = capture(false);
    const r = plainReporter(plain.out, 0);
    r.update({ done: 0, total: 4, failed: 0, rows: 0, requests: 0, elapsedMs: 1000, paused: ['sync'] });
    r.update({
      done: 0,
      total: 4,
      failed: 0,
      rows: 0,
      requests: 0,
      elapsedMs: 2000,
      paused: ['sync', 'followups'],
    });
    r.stop();
    const bar = capture(true);
    const b = barReporter(bar.out);
    b.update({ done: 0, total: 4, failed: 0, rows: 0, requests: 0, elapsedMs: 1000, paused: ['sync'] });
    b.stop();
    await new Promise((r) => setImmediate(r));
    expect(plain.text().trim().split('\n')).toEqual([
      `backfill: 0/4 windows, 0 rows, 0 requests (0.0/s), ETA ?; queue "sync" is paused: none of its jobs starts until it is resumed (the Resume button of the dashboard, signed in with OPS_DASHBOARD_TOKEN)`,
      `backfill: 0/4 windows, 0 rows, 0 requests (0.0/s), ETA ?; queues "sync", "followups" are paused: none of their jobs starts until they are resumed (the Resume button of the dashboard, signed in with OPS_DASHBOARD_TOKEN)`,
    ]);
    expect(bar.text()).toMatch(/0\/4 windows .*ETA \?; queue "sync" is paused/);
  });

  it('formats durations', () => {
    expect(formatSeconds(3725)).toBe('1h02m');
    expect(formatSeconds(185)).toBe('3m05s');
    expect(formatSeconds(undefined)).toBe('?');
  });
});
