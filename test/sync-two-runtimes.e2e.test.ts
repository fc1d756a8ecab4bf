/**
 * Two sync runtimes in one process share nothing: what one learns (the span an endpoint
 * accepts), hears (schema drift) or heals (a paused connection's state object, the events'
 * sink) stays its own. Over HTTP against the emulator, with real Redis and Postgres.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBackfillArgs } from '../src/backfill/args.js';
import { runBackfill, type BackfillSummary } from '../src/backfill/run.js';
import type { SyncRuntime } from '../src/runtime/runtime.js';
import { startHarness, type Harness } from './sync-harness.js';
import { clockAt, DEFAULT_TEST_TODAY } from './support/test-clock.js';
import { monthWindows } from '../src/plan/windows.js';
import { addDays } from '../src/util/time.js';

// A pinned day: this file is about two runtimes, not dates. On some other days (2026-10-29
// to 2026-11-01) the third runtime's read below hears no unknown field; not yet explained.
const TODAY = DEFAULT_TEST_TODAY;
const PERIOD = 'GET /customer/v2/point/getFromPeriod';

describe('two runtimes in one process', () => {
  let h: Harness;
  let a: SyncRuntime;
  let b: SyncRuntime;
  let company: string;
  // Two whole months before today's.
  const [first, second] = monthWindows(addDays(TODAY, -100), addDays(TODAY, -40)).slice(-2) as [
    { from: string; to: string },
    { from: string; to: string },
  ];

  const backfill = (rt: SyncRuntime, w: { from: string; to: string }): Promise<BackfillSummary> =>
    runBackfill(rt, parseBackfillArgs({ ...w, resources: 'punches', company, force: true }, rt.config), {
      pollMs: 100,
    });
  const driftSeen = async () =>
    (
      await h.pool.query<{ field: string; again: boolean }>(
        `select field, last_seen_at > first_seen_at as again from "${h.schema}".schema_drift where kind = 'unknown_field'`,
      )
    ).rows;

  beforeAll(async () => {
    h = await startHarness('tworuntimes', { today: TODAY, quirks: ['extraFields'] });
    company = h.emulator.companies[0]!.cnpj;
    const now = clockAt(TODAY, '12:00:00', 'America/Sao_Paulo');
    a = await h.runtime({}, { now });
    b = await h.runtime({}, { now });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  it('have each their own memory, healing state and events', () => {
    expect(a.memory).not.toBe(b.memory);
    expect(a.memory.drift.watch).not.toBe(b.memory.drift.watch);
    expect(a.healing.pauses).not.toBe(b.healing.pauses);
    expect(a.events).not.toBe(b.events);
    expect(a.client('default').api).not.toBe(b.client('default').api);
  });

  it('keep the span one learned from a split to that one: the other reads the next month whole', async () => {
    h.emulator.queueFault({ kind: 'range-exceeded', endpoint: 'point/getFromPeriod', company });
    h.emulator.resetStats();
    const split = await backfill(a, first);
    expect(split.failed, JSON.stringify(split.failures)).toBe(0);
    expect(h.emulator.stats().requests[PERIOD]).toBe(3);
    const key = `point/getFromPeriod:${company}`;
    expect(a.memory.spans.get(key)).toBeLessThan(20);
    expect(b.memory.spans.size).toBe(0);

    h.emulator.resetStats();
    expect((await backfill(b, second)).failed).toBe(0);
    expect(h.emulator.stats().requests[PERIOD]).toBe(1);

    h.emulator.resetStats();
    expect((await backfill(a, second)).failed).toBe(0);
    expect(h.emulator.stats().requests[PERIOD]).toBe(2);
  }, 120_000);

  it('hear their own drift: the field one runtime reported is reported again by the other, and written by it', async () => {
    // a heard it first and wrote it at its first load; b has heard and written it since.
    const seen = await driftSeen();
    expect(seen).toEqual([{ field: expect.stringMatching(/^days\[\]\.points\[\]\./), again: true }]);
    expect(a.memory.drift.pending).toEqual([]);
    expect(b.memory.drift.pending).toEqual([]);
    // A third runtime has heard nothing yet: its first answer carries the field again.
    const c = await h.runtime();
    const api = c.client('default').api;
    // The headquarters' own punches: its token needs no scope parameters (spec 1.4).
    for await (const element of api.stream('point/getFromPeriod', {
      begin_date: first.from,
      end_date: first.from,
    }))
      void element;
    expect(c.memory.drift.pending).toEqual([
      { kind: 'unknown_field', endpoint: 'point/getFromPeriod', field: seen[0]!.field },
    ]);
    expect(a.memory.drift.pending).toEqual([]);
    expect(b.memory.drift.pending).toEqual([]);
  }, 60_000);

  it('say a warning once per runtime, not once per process', () => {
    expect(a.memory.firstTime('stale-pseudonym-key')).toBe(true);
    expect(a.memory.firstTime('stale-pseudonym-key')).toBe(false);
    expect(b.memory.firstTime('stale-pseudonym-key')).toBe(true);
  });
});
