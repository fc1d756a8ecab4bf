/**
 * End to end under faults: 15% of requests answered 403 (the spec's generic server
 * error), 500 or dropped, and the emulator's own 429 rate limit below our budget. The
 * same backfill must still end equal to the emulator's data.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricsRegistry } from '../src/telemetry/metrics.js';
import { parseBackfillArgs } from '../src/backfill/args.js';
import { runBackfill, type BackfillSummary } from '../src/backfill/run.js';
import { compareWithTruth, startHarness, type Harness } from './sync-harness.js';

const FROM = '2026-05-01';
const TO = '2026-07-31';
const EMULATOR_TODAY = '2026-10-31';

async function requestsByStatus(): Promise<Record<string, number>> {
  const metric = (await metricsRegistry.getMetricsAsJSON()).find(
    (m) => m.name === 'punchline_api_requests_total',
  );
  const out: Record<string, number> = {};
  for (const v of (metric?.values ?? []) as { labels: Record<string, string>; value: number }[]) {
    out[v.labels.status!] = (out[v.labels.status!] ?? 0) + v.value;
  }
  return out;
}

describe('when the API fails 15% of requests and rate-limits below our budget', () => {
  let h: Harness;
  let summary: BackfillSummary;

  beforeAll(async () => {
    h = await startHarness('faults', {
      today: EMULATOR_TODAY,
      faults: { error403: 0.05, error500: 0.05, drop: 0.05, rateLimitRps: 20 },
    });
    const rt = await h.runtime({ API_MAX_RPS: '30', API_MAX_CONCURRENCY: '6' });
    summary = await runBackfill(rt, parseBackfillArgs({ from: FROM, to: TO }, rt.config), { pollMs: 250 });
  }, 300_000);
  afterAll(async () => {
    await h?.close();
  });

  it('meets every kind of fault along the way', async () => {
    const byStatus = await requestsByStatus();
    expect(byStatus['429'] ?? 0).toBeGreaterThan(0);
    expect(byStatus['403'] ?? 0).toBeGreaterThan(0);
    expect(byStatus['500'] ?? 0).toBeGreaterThan(0);
    expect(byStatus.network ?? 0).toBeGreaterThan(0);
  });

  it('still succeeds on every job', () => {
    expect(summary.failed, JSON.stringify(summary.failures)).toBe(0);
    expect(summary.succeeded).toBe(summary.total);
  });

  it('still ends equal to the emulator data', async () => {
    const diffs = await compareWithTruth(h, FROM, TO, EMULATOR_TODAY);
    for (const [category, d] of Object.entries(diffs)) {
      expect({ category, missing: d.missing, extra: d.extra }).toEqual({ category, missing: [], extra: [] });
      if (category !== 'adjustments' && category !== 'inconsistencies')
        expect(d.expected, category).toBeGreaterThan(0);
    }
  });
});
