import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { afterEach, describe, expect, it } from 'vitest';
import type { LoadStats, SyncLoaders } from '../src/sync/job-context.js';
import { LOADER_TIMING_CHANNEL, withLoaderTiming, type LoaderTiming } from '../src/sync/loader-timing.js';

const STATS: LoadStats = { inserted: 3, updated: 1, deleted: 0, unchanged: 2 };

/** Loaders that resolve STATS after `ms`, except `loadTardiness`, which rejects. */
function fakeLoaders(ms: number): SyncLoaders {
  const ok = () => new Promise<LoadStats>((r) => setTimeout(() => r(STATS), ms));
  const fail = () => Promise.reject(new Error('constraint violated'));
  return {
    loadCompanies: ok,
    loadLookups: ok,
    loadCollaborators: ok,
    addSeenCollaborators: ok,
    loadPunches: ok,
    loadHourTotals: ok,
    loadTardiness: fail,
    loadAdjustments: ok,
    loadInconsistencies: ok,
    loadHourBank: ok,
    loadAbsences: ok,
    loadAbsenceAttachments: ok,
    loadAuditPhoto: ok,
  };
}

const scope = { companyCnpj: '95643282000151', from: '2025-05-01', to: '2025-05-31', timezone: 'America/Sao_Paulo' };

describe('withLoaderTiming', () => {
  const seen: LoaderTiming[] = [];
  const listener = (m: unknown) => seen.push(m as LoaderTiming);
  afterEach(() => {
    unsubscribe(LOADER_TIMING_CHANNEL, listener);
    seen.length = 0;
  });

  it('publishes each call with its loader name and duration, and passes the result through', async () => {
    subscribe(LOADER_TIMING_CHANNEL, listener);
    const loaders = withLoaderTiming(fakeLoaders(20));
    await expect(loaders.loadPunches(scope, [])).resolves.toEqual(STATS);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ loader: 'loadPunches', ok: true });
    expect(seen[0]!.durationMs).toBeGreaterThanOrEqual(15);
  });

  it('publishes a failed call with ok=false and rethrows the error', async () => {
    subscribe(LOADER_TIMING_CHANNEL, listener);
    const loaders = withLoaderTiming(fakeLoaders(0));
    await expect(loaders.loadTardiness(scope, [])).rejects.toThrow('constraint violated');
    expect(seen).toEqual([expect.objectContaining({ loader: 'loadTardiness', ok: false })]);
  });

  it('publishes nothing while nobody listens', async () => {
    const loaders = withLoaderTiming(fakeLoaders(0));
    await loaders.loadHourTotals(scope, []);
    subscribe(LOADER_TIMING_CHANNEL, listener);
    await loaders.loadHourTotals(scope, []);
    expect(seen.map((t) => t.loader)).toEqual(['loadHourTotals']);
  });
});
