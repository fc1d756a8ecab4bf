/**
 * Hostile or broken answers, end to end (emulator over HTTP, real Redis and Postgres):
 * none may exhaust the worker or block a window. A department whose description holds a
 * NUL character is stored without it and reported, instead of failing the lookups window
 * at every retry; a huge attachment becomes a rejected record while the window loads the
 * rest; an endless array fails its attempt with a clear, retryable error; a body that
 * trickles is cut at the answer's deadline and the window read again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../src/api/client.js';
import { parseBackfillArgs } from '../src/backfill/args.js';
import { runBackfill, type BackfillSummary } from '../src/backfill/run.js';
import { startHarness, type Harness } from './sync-harness.js';
import { statusOf } from './support/status-command.js';

const TODAY = '2025-03-15';
const FROM = '2025-02-01';
const TO = '2025-02-28';

describe('hostile or broken answers', () => {
  let h: Harness;
  let hq: string;
  let api: ApiClient;

  const q = async <T>(sql: string, values: unknown[] = []): Promise<T[]> =>
    (await h.pool.query(sql.replaceAll('$S', `"${h.schema}"`), values)).rows as T[];

  /** A backfill of `resources` of the headquarters for February, with `env` overrides. */
  async function backfill(resources: string, env: Record<string, string> = {}): Promise<BackfillSummary> {
    const rt = await h.runtime(env);
    return runBackfill(
      rt,
      parseBackfillArgs({ from: FROM, to: TO, resources, company: hq, force: true }, rt.config),
      { pollMs: 200 },
    );
  }

  beforeAll(async () => {
    h = await startHarness('hostile', { today: TODAY });
    hq = h.emulator.companies[0]!.cnpj;
    api = new ApiClient({ baseUrl: h.emulator.url, token: h.emulator.headquartersToken });
    const first = await backfill('companies,collaborators');
    expect(first.failed, JSON.stringify(first.failures)).toBe(0);
  }, 120_000);
  afterAll(async () => {
    await api?.close();
    await h?.close();
  });

  it('stores a department created with a NUL character without it, loads the lookups and reports it in status', async () => {
    const { id } = await api.createDepartment({ description: 'Qualidade\u0000 Total' });
    const summary = await backfill('lookups');
    expect(summary.failed, JSON.stringify(summary.failures)).toBe(0);

    expect(
      await q(`select description from $S.departments where company_cnpj = $1 and id = $2`, [hq, id]),
    ).toEqual([{ description: 'Qualidade Total' }]);
    expect(
      await q(`select kind, endpoint, field, value from $S.schema_drift where kind = 'cleaned_value'`),
    ).toEqual([{ kind: 'cleaned_value', endpoint: '', field: 'departments.description', value: '' }]);
    const { text, report } = await statusOf(h.config());
    expect(report.schemaDrift).toEqual([
      expect.objectContaining({ kind: 'cleaned_value', field: 'departments.description' }),
    ]);
    expect(text).toMatch(/cleaned value\s+departments\.description/);
    expect(text).toContain(
      'cleaned value: text holding a NUL character, which the warehouse cannot store, was stored without it.',
    );
  }, 120_000);

  it('rejects a huge attachment as a record with its reason and loads the other attachments of the window', async () => {
    const person = (await api.listCollaborators())[0]!.national_registry;
    const files = ['atestado', 'receita'].map((n) => ({
      filename: `${n}.pdf`,
      mimeType: 'application/pdf',
      content: Buffer.from(`%PDF-1.4\n% ${n}\n`),
    }));
    const absence = {
      national_registry: [person],
      absence_type_id: 6,
      description: 'Treinamento',
      details: 'Dois arquivos',
      begin_date: '2025-02-10',
      end_date: '2025-02-10',
      paid: true,
      full_day: true,
      sum_on_work_time: true,
      sum_total_on_work_time: true,
    };
    await api.createAbsence(absence, files);
    h.emulator.queueFault({
      kind: 'huge-attachment',
      endpoint: 'absence/attachment',
      company: hq,
      bytes: 3_000_000,
    });

    const summary = await backfill('absences,absence_attachments', {
      API_MAX_ELEMENT_BYTES: String(1024 * 1024),
    });
    expect(summary.failed, JSON.stringify(summary.failures)).toBe(0);
    expect(h.emulator.queuedFaults()).toEqual([]);

    const rejected = await q<{
      json_path: string;
      reason: string;
      record: { absence_id: number; element_bytes: number; limit_bytes: number };
    }>(`select json_path, reason, record from $S.rejected_records where endpoint = 'absence/attachment'`);
    expect(rejected).toHaveLength(1);
    expect(rejected[0]!.json_path).toBe('data[0]');
    expect(rejected[0]!.reason).toMatch(
      /^\(element\): \d+ bytes, over the limit of 1048576 bytes; not read$/,
    );
    expect(rejected[0]!.record).toEqual({
      absence_id: expect.any(Number),
      element_bytes: expect.any(Number),
      limit_bytes: 1_048_576,
    });
    expect(rejected[0]!.record.element_bytes).toBeGreaterThan(3_000_000);

    // Every other attachment of the window's absences is stored.
    const withFiles = await q<{ absence_id: number }>(
      `select absence_id from $S.absences where company_cnpj = $1 and has_attachment`,
      [hq],
    );
    let expected = 0;
    for (const a of withFiles) expected += (await api.getAbsenceAttachments(a.absence_id)).length;
    const [stored] = await q<{ n: number }>(
      `select count(*)::int as n from $S.absence_attachments where deleted_at is null`,
    );
    expect(stored!.n).toBe(expected - 1);
  }, 120_000);

  it('cuts a body that trickles at the answer deadline and reads the window again, instead of waiting for it', async () => {
    // 64 bytes every 200 ms: a month of punches would take minutes.
    h.emulator.queueFault({ kind: 'trickle', endpoint: 'point/getFromPeriod', company: hq, intervalMs: 200 });
    h.emulator.resetStats();
    const started = Date.now();
    const summary = await backfill('punches', { API_ANSWER_DEADLINE_MS: '2000' });
    expect(summary.failed, JSON.stringify(summary.failures)).toBe(0);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(h.emulator.stats().requests['GET /customer/v2/point/getFromPeriod']).toBeGreaterThan(1);
    const [loaded] = await q<{ n: number }>(
      `select count(*)::int as n from $S.punches where company_cnpj = $1 and deleted_at is null`,
      [hq],
    );
    expect(loaded!.n).toBe(h.emulator.truth.pointIds(hq, FROM, TO).length);
  }, 120_000);
  it('fails the attempt of an endless answer with a clear, retryable error, and the next attempt loads the window', async () => {
    // The window holds rows already, so the answer is merged, not copied straight in (where
    // its repeated keys would stop it first).
    h.emulator.queueFault({ kind: 'endless', endpoint: 'point/getFromPeriod', company: hq });
    const summary = await backfill('punches', { API_MAX_ANSWER_BYTES: String(2 * 1024 * 1024) });
    expect(summary.failed, JSON.stringify(summary.failures)).toBe(0);

    const failed = await q<{ error: string }>(
      `select error from $S.sync_runs where resource = 'punches' and status = 'failed'`,
    );
    expect(failed.map((r) => r.error)).toEqual([
      'point/getFromPeriod: 200 answer_too_large: the answer exceeded 2097152 bytes (API_MAX_ANSWER_BYTES); reading stopped',
    ]);
    const [loaded] = await q<{ n: number }>(
      `select count(*)::int as n from $S.punches where company_cnpj = $1 and deleted_at is null`,
      [hq],
    );
    expect(loaded!.n).toBe(h.emulator.truth.pointIds(hq, FROM, TO).length);
  }, 120_000);

  it('stores a rejected element holding a NUL without it, rejects one nested 10,000 levels deep unread, and loads the window', async () => {
    const rejectedBefore = await q(
      `select id from $S.rejected_records where endpoint = 'point/getFromPeriod'`,
    );
    expect(rejectedBefore).toEqual([]);
    const failedRuns = async () =>
      (await q(`select id from $S.sync_runs where resource = 'punches' and status = 'failed'`)).length;
    const failedBefore = await failedRuns();
    const punches = { endpoint: 'point/getFromPeriod', company: hq } as const;
    for (const kind of ['nul-element', 'deep-element'] as const) {
      h.emulator.queueFault({ kind, ...punches });
      const summary = await backfill('punches');
      expect(summary.failed, JSON.stringify(summary.failures)).toBe(0);
      expect(h.emulator.queuedFaults()).toEqual([]);
    }
    // Each window loaded at its first attempt.
    expect(await failedRuns()).toBe(failedBefore);

    const rejected = await q<{ json_path: string; reason: string; record: Record<string, unknown> }>(
      `select json_path, reason, record from $S.rejected_records where endpoint = 'point/getFromPeriod' order by id`,
    );
    expect(rejected).toHaveLength(2);
    const [nul, deep] = rejected;
    // The element as sent, less its NUL and bell: the jsonb cast takes it.
    expect(nul!.reason).toMatch(/national_registry/);
    expect(JSON.stringify(nul!.record)).not.toMatch(/\\u0000|\\u0007/);
    expect(String(nul!.record.national_registry)).toMatch(/^\d{11}$/);
    expect(deep).toEqual({
      json_path: 'data[0]',
      reason: '(element): nested deeper than 64 levels; not read',
      record: { limit_depth: 64 },
    });
  }, 120_000);
});
