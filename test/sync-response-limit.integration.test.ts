/**
 * Memory stays bounded whatever the company size: a response above API_MAX_RESPONSE_BYTES
 * is abandoned and the window read in smaller parts, and later windows of that company
 * start at the size that worked instead of failing first.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROCESSORS } from '../jobs/index.js';
import { jobIdFor } from '../src/sync/job-ids.js';
import type { SyncJobData } from '../src/sync/job-data.js';
import { runSyncJob } from '../src/sync/run-job.js';
import type { SyncRuntime } from '../src/sync/runtime.js';
import { startHarness, type Harness } from './sync-harness.js';

const LIMIT = 64 * 1024;

describe(`when a month of punches is larger than API_MAX_RESPONSE_BYTES (${LIMIT} bytes)`, () => {
  let h: Harness;
  let rt: SyncRuntime;
  let cnpj: string;
  let firstJuly: Awaited<ReturnType<typeof syncMonth>>;

  async function syncMonth(from: string, to: string) {
    const data: SyncJobData = { connection: 'default', resource: 'punches', company: cnpj, scoped: true, from, to };
    const job = await rt.queues.sync.add(data.resource, data, { jobId: jobIdFor(data) });
    h.emulator.resetStats();
    const result = await runSyncJob(rt, job, { processors: PROCESSORS });
    const served = h.emulator.stats().requests['GET /customer/v2/point/getFromPeriod'] ?? 0;
    const ids = await h.pool.query<{ point_id: number }>(
      `select point_id from "${h.schema}".punches where company_cnpj = $1 and work_date between $2 and $3 and deleted_at is null`,
      [cnpj, from, to],
    );
    return { result, served, ids: new Set(ids.rows.map((r) => Number(r.point_id))) };
  }

  beforeAll(async () => {
    // demo scale: a month of one company is several times the limit, so splits go deep.
    h = await startHarness('resplimit', { today: '2026-10-31', scale: 'demo' });
    rt = await h.runtime({ API_MAX_RESPONSE_BYTES: String(LIMIT) });
    cnpj = h.emulator.companies[0]!.cnpj;
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  it('splits the window until each part fits and loads exactly the emulator punches', async () => {
    firstJuly = await syncMonth('2026-07-01', '2026-07-31');
    expect(firstJuly.served).toBeGreaterThan(1);
    expect(firstJuly.ids).toEqual(new Set(h.emulator.truth.pointIds(cnpj, '2026-07-01', '2026-07-31')));
  });

  it('starts the next month at the learned size: no oversized attempt, same data', async () => {
    const august = await syncMonth('2026-08-01', '2026-08-31');
    const july = await syncMonth('2026-07-01', '2026-07-31');
    expect(august.ids).toEqual(new Set(h.emulator.truth.pointIds(cnpj, '2026-08-01', '2026-08-31')));
    expect(july.ids).toEqual(new Set(h.emulator.truth.pointIds(cnpj, '2026-07-01', '2026-07-31')));
    // The first July paid for oversized attempts; learned parts each succeed at once.
    expect(july.served).toBeLessThan(firstJuly.served);
    expect(august.served).toBeLessThan(firstJuly.served);
    expect(august.served).toBeGreaterThan(1);
  });
});
