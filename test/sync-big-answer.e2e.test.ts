/**
 * Memory follows the batch, not the answer: a month of punches of a company of 3,400
 * collaborators is one answer of about 100 MB, and a backfill whose heap is capped at
 * 128 MB reads it in one request (no split), element by element, and loads all of it.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPunchline, startHarness, type Harness } from './sync-harness.js';

const FROM = '2025-05-01';
const TO = '2025-05-31';

describe('a 100 MB answer with the heap capped at 128 MB', () => {
  let h: Harness;
  let hq: string;

  beforeAll(async () => {
    // At 17,000 collaborators the headquarters has a fifth of them.
    h = await startHarness('bigansw', { scale: 17_000, today: '2025-06-30', seed: 'big-answer' });
    hq = h.emulator.companies[0]!.cnpj;
  }, 120_000);
  afterAll(async () => {
    await h?.close();
  });

  it('is an answer of about 100 MB', async () => {
    // The size, measured by reading the answer once and counting its bytes.
    const res = await request(
      `${h.emulator.url}/customer/v2/point/getFromPeriod?begin_date=${FROM}&end_date=${TO}&company_national_registry=${hq}`,
      {
        headers: { apiServiceToken: h.emulator.headquartersToken },
      },
    );
    let bytes = 0;
    for await (const chunk of res.body) bytes += (chunk as Buffer).length;
    expect(res.statusCode).toBe(200);
    expect(bytes).toBeGreaterThan(90 * 1024 * 1024);
  }, 120_000);

  it('is read in one request and loaded whole', async () => {
    h.emulator.resetStats();
    const res = await runPunchline(
      ['backfill', '--from', FROM, '--to', TO, '--resources', 'punches', '--company', hq, '--no-progress'],
      h.env({
        NODE_OPTIONS: '--max-old-space-size=128',
        API_TIMEOUT_MS: '120000',
        WORKER_CONCURRENCY: '1',
        API_MAX_CONCURRENCY: '2',
      }),
    );
    expect(res.stderr).not.toMatch(/heap out of memory|FATAL/);
    expect(res.code, res.stdout + res.stderr).toBe(0);

    expect(h.emulator.stats().requests['GET /customer/v2/point/getFromPeriod']).toBe(1);

    const truth = h.emulator.truth.points(hq, FROM, TO);
    const { rows } = await h.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "${h.schema}".punches WHERE company_cnpj = $1 AND deleted_at IS NULL`,
      [hq],
    );
    expect(rows[0]!.n).toBe(truth.length);
  }, 300_000);
});
