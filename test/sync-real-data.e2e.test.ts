/**
 * End to end against real data's surprises (the emulator's `quirks: true`, over HTTP, real
 * Redis and Postgres): punches without GPS, contractors without PIS or registration, new
 * values of source-owned lists, a CPF sent without its leading zeros, a duplicated CPF and
 * a re-hire in one month, a branch in another time zone, and a field the spec does not
 * describe. A backfill must load all of it, report what is new, keep one row per collaborator record, and read each company's
 * date-times in its own zone once COMPANY_TIMEZONES names it — and `status` must say when
 * a company's CEP contradicts the zone in use.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBackfillArgs } from '../src/backfill/args.js';
import { runBackfill, type BackfillSummary } from '../src/backfill/run.js';
import type { Config } from '../src/config.js';
import { metricsRegistry } from '../src/telemetry/metrics.js';
import { createScrapeRegistry } from '../src/http/scrape-metrics.js';
import { zonesFromConfig } from '../src/reports/time-zone-report.js';
import { utcOffsetMinutes } from '../src/util/legal-time.js';
import { compareWithTruth, startHarness, type Harness } from './sync-harness.js';
import { statusOf } from './support/status-command.js';

const TODAY = '2026-10-31';
// The re-hire quirk dismisses and re-admits in the month about six weeks before today.
const FROM = '2026-09-01';
const TO = '2026-09-30';
const SAO_PAULO = 'America/Sao_Paulo';

describe('a backfill of a source with the quirks of real data', () => {
  let h: Harness;
  let summary: BackfillSummary;
  let other: { cnpj: string; timeZone: string; zipCode: string };
  let hq: string;

  const q = async <T>(sql: string, values: unknown[] = []): Promise<T[]> =>
    (await h.pool.query(sql.replaceAll('$S', `"${h.schema}"`), values)).rows as T[];

  beforeAll(async () => {
    h = await startHarness('realdata', { today: TODAY, quirks: true });
    hq = h.emulator.companies[0]!.cnpj;
    other = h.emulator.truth.companies().find((c) => c.timeZone !== SAO_PAULO)!;
    const rt = await h.runtime();
    summary = await runBackfill(rt, parseBackfillArgs({ from: FROM, to: TO }, rt.config), { pollMs: 200 });
  }, 240_000);
  afterAll(async () => {
    await h?.close();
  });

  it('loads every window: nothing failed, nothing rejected', async () => {
    expect(summary.failed, JSON.stringify(summary.failures)).toBe(0);
    expect(summary.succeeded).toBe(summary.total);
    expect(await q(`select resource, json_path, reason from $S.rejected_records`)).toEqual([]);
  });

  it('ends equal to the emulator data, set by set: both records of a duplicated CPF and of a re-hire have their totals and balances', async () => {
    const diffs = await compareWithTruth(h, FROM, TO, TODAY);
    for (const [category, d] of Object.entries(diffs)) {
      expect({ category, missing: d.missing, extra: d.extra }).toEqual({ category, missing: [], extra: [] });
      expect(d.expected, category).toBeGreaterThan(0);
    }
  });

  it('stores punches without GPS with null coordinates, accuracy and address', async () => {
    const truth = h.emulator.companies.flatMap((c) => h.emulator.truth.points(c.cnpj, FROM, TO));
    const expected = truth
      .filter((p) => !p.geolocated)
      .map((p) => String(p.pointId))
      .sort();
    expect(expected.length).toBeGreaterThan(0);
    const stored = await q<{ id: string }>(
      `select point_id::text as id from $S.punches where latitude is null and longitude is null and accuracy_meters is null and address is null order by 1`,
    );
    expect(stored.map((r) => r.id)).toEqual(expected);
    const origins = await q<{ origin: string }>(
      `select distinct origin from $S.punches where latitude is null order by 1`,
    );
    expect(origins.map((r) => r.origin)).toEqual(['Manual', 'REP']);
  });

  it('stores contractors without PIS or registration number', async () => {
    const contractors = h.emulator.companies.flatMap((c) =>
      h.emulator.truth
        .collaborators(c.cnpj)
        .filter((x) => x.contractor)
        .map((x) => `${c.cnpj}|${x.national_registry}`),
    );
    expect(contractors.length).toBeGreaterThan(0);
    const stored = await q<{ k: string }>(
      `select company_cnpj || '|' || cpf as k from $S.collaborators where pis is null and registration_number is null order by 1`,
    );
    expect(stored.map((r) => r.k)).toEqual([...new Set(contractors)].sort());
  });

  it('stores the new origin, method, status and regime as sent, and reports each in schema_drift and status', async () => {
    const { newValues } = h.emulator.truth.quirks();
    const kiosk = h.emulator.companies
      .flatMap((c) => h.emulator.truth.points(c.cnpj, FROM, TO))
      .filter((p) => p.origin === newValues.origin);
    expect(kiosk.length).toBeGreaterThan(0);
    const stored = await q<{ id: string }>(
      `select point_id::text as id from $S.punches where origin = $1 and method = $2 order by 1`,
      [newValues.origin, newValues.method],
    );
    expect(stored.map((r) => r.id)).toEqual(kiosk.map((p) => String(p.pointId)).sort());
    const [review] = await q<{ n: number }>(
      `select count(*)::int as n from $S.adjustment_requests where status = $1`,
      [newValues.adjustmentStatus],
    );
    expect(review!.n).toBeGreaterThan(0);
    const [regime] = await q<{ n: number }>(
      `select count(*)::int as n from $S.hour_bank_balances where regime = $1`,
      [newValues.regime],
    );
    expect(regime!.n).toBeGreaterThan(0);

    // The spec lists origins, statuses and regimes (method is free text): each new value is drift.
    const listed = [newValues.origin, newValues.adjustmentStatus, newValues.regime];
    const drift = await q<{ value: string }>(
      `select value from $S.schema_drift where kind = 'new_value' order by value`,
    );
    expect(drift.map((d) => d.value)).toEqual([...listed].sort());

    const { report, text } = await statusOf(h.config());
    expect(
      report
        .schemaDrift!.filter((d) => d.kind === 'new_value')
        .map((d) => d.value)
        .sort(),
    ).toEqual([...listed].sort());
    expect(text).toMatch(new RegExp(`^\\s+new value\\s+\\S+\\s+${newValues.origin}\\s`, 'm'));
  });

  it('ignores a field the spec does not describe, and reports it once per endpoint in schema_drift, status and /metrics', async () => {
    const field = `days[].points[].${h.emulator.truth.quirks().extraFields.point}`;
    const drift = await q(`select endpoint, field, value from $S.schema_drift where kind = 'unknown_field'`);
    expect(drift).toEqual([{ endpoint: 'point/getFromPeriod', field, value: '' }]);
    const { report, text } = await statusOf(h.config());
    expect(report.schemaDrift!.filter((d) => d.kind === 'unknown_field')).toEqual([
      expect.objectContaining({ endpoint: 'point/getFromPeriod', field }),
    ]);
    expect(text).toMatch(
      new RegExp(
        `^\\s+unknown field\\s+${field.replace(/[[\].]/g, '\\$&')}\\s+-\\s+point/getFromPeriod\\s`,
        'm',
      ),
    );
    // Counted once by this process, however many answers carried it.
    const counted = (await metricsRegistry.getMetricsAsJSON()).find(
      (m) => m.name === 'punchline_schema_drift_total',
    );
    const values = (counted?.values ?? []) as { labels: Record<string, string>; value: number }[];
    expect(values.filter((v) => v.labels.kind === 'unknown_field')).toEqual([
      { labels: { kind: 'unknown_field', field }, value: 1 },
    ]);
    // Each new value counted once, under its field: a value is never a label (it may name a person).
    const fields = (
      await q<{ field: string }>(`select field from $S.schema_drift where kind = 'new_value'`)
    ).map((d) => d.field);
    for (const f of new Set(fields))
      expect(values.find((v) => v.labels.kind === 'new_value' && v.labels.field === f)?.value).toBe(
        fields.filter((x) => x === f).length,
      );
  });

  it('stores the CPF sent without its leading zeros as 11 digits, keeping the CPF as sent', async () => {
    const unpadded = h.emulator.companies.flatMap((c) =>
      h.emulator.truth
        .collaborators(c.cnpj)
        .filter((x) => x.sentNationalRegistry !== x.national_registry)
        .map((x) => ({ cnpj: c.cnpj, ...x })),
    );
    expect(unpadded.length).toBeGreaterThan(0);
    for (const x of unpadded) {
      expect(x.national_registry).toMatch(/^00\d{9}$/);
      const rows = await q<{ cpf: string; cpf_as_sent: string }>(
        `select cpf, cpf_as_sent from $S.collaborators where company_cnpj = $1 and cpf_as_sent is not null`,
        [x.cnpj],
      );
      expect(rows).toEqual([{ cpf: x.national_registry, cpf_as_sent: x.sentNationalRegistry }]);
      const [punches] = await q<{ n: number }>(
        `select count(*)::int as n from $S.punches where company_cnpj = $1 and cpf = $2`,
        [x.cnpj, x.national_registry],
      );
      expect(punches!.n).toBe(
        h.emulator.truth.points(x.cnpj, FROM, TO).filter((p) => p.cpf === x.national_registry).length,
      );
    }
  });

  it('keeps a row per collaborator record in hour_totals and hour_bank_balances for a duplicated CPF and a re-hire in the month', async () => {
    const cases = h.emulator.companies.flatMap((c) =>
      h.emulator.truth
        .duplicates(c.cnpj)
        .filter((d) => d.kind !== 'rehire')
        .map((d) => ({ cnpj: c.cnpj, ...d })),
    );
    expect(cases.map((d) => d.kind).sort()).toEqual(['duplicateCpf', 'rehireInMonth']);
    for (const d of cases) {
      const admission = new Map(d.records.map((r) => [r.collaboratorId, r.admissionDate]));
      const totals = h.emulator.truth.hourTotals(d.cnpj, FROM, TO).filter((t) => t.cpf === d.cpf);
      expect(totals, d.kind).toHaveLength(2);
      const stored = await q<{ record: string; worked: number }>(
        `select collaborator_record as record, worked_time_seconds as worked from $S.hour_totals where company_cnpj = $1 and cpf = $2 and period_start = $3 and deleted_at is null order by 1`,
        [d.cnpj, d.cpf, FROM],
      );
      expect(stored, d.kind).toEqual(
        totals
          .map((t) => ({ record: admission.get(t.collaboratorId)!, worked: t.totals.worked_time }))
          .sort((a, b) => a.record.localeCompare(b.record)),
      );
      // Every day both records have a balance holds two rows, one per record.
      for (const day of ['2026-09-03', '2026-09-25']) {
        const bank = h.emulator.truth.hourBank(d.cnpj, day).filter((b) => b.cpf === d.cpf);
        const rows = await q<{ record: string; acc: number }>(
          `select collaborator_record as record, accumulated_balance_seconds as acc from $S.hour_bank_balances where company_cnpj = $1 and cpf = $2 and balance_date = $3 and deleted_at is null order by 1`,
          [d.cnpj, d.cpf, day],
        );
        expect(rows, `${d.kind} ${day}`).toEqual(
          bank
            .map((b) => ({ record: admission.get(b.collaboratorId)!, acc: b.accumulatedSeconds }))
            .sort((a, b) => a.record.localeCompare(b.record)),
        );
      }
    }
  });

  it('keeps a work day per collaborator record of a duplicated CPF, with its own worked time', async () => {
    const dup = h.emulator.truth.duplicates(hq).find((d) => d.kind === 'duplicateCpf')!;
    const days = await q(
      `select collaborator_record, count(*)::int as n from $S.work_days where company_cnpj = $1 and cpf = $2 and deleted_at is null group by 1 order by 1`,
      [hq, dup.cpf],
    );
    expect(days).toHaveLength(2);
  });

  describe('a branch in another time zone', () => {
    it('is read in API_TIMEZONE until COMPANY_TIMEZONES names it, and status warns that its CEP says otherwise', async () => {
      expect(other.timeZone).not.toBe(SAO_PAULO);
      const { report, text } = await statusOf(h.config());
      expect(report.timeZoneWarnings).toEqual([
        expect.objectContaining({
          company: other.cnpj,
          zipCode: other.zipCode,
          connection: 'default',
          zone: SAO_PAULO,
          offset: 'UTC−3',
        }),
      ]);
      expect(text).toContain(`COMPANY_TIMEZONES=${other.cnpj}=`);
      expect(await mismatchGauge(h.config())).toEqual(
        Object.fromEntries(h.emulator.companies.map((c) => [c.cnpj, c.cnpj === other.cnpj ? 1 : 0])),
      );
      // Its punches are off by the difference of the offsets; the headquarters' are right.
      expect(await punchOffsets(other.cnpj)).toEqual([
        utcOffsetMinutes(other.timeZone, new Date(`${FROM}T12:00:00Z`)) + 180,
      ]);
      expect(await punchOffsets(hq)).toEqual([0]);
    });

    it('reads every punch of the branch in its own zone once COMPANY_TIMEZONES names it, and status stops warning', async () => {
      const named = { COMPANY_TIMEZONES: `${other.cnpj}=${other.timeZone}` };
      const rt = await h.runtime(named);
      const again = await runBackfill(
        rt,
        parseBackfillArgs(
          { from: FROM, to: TO, company: other.cnpj, resources: 'punches', force: true },
          rt.config,
        ),
        {
          pollMs: 200,
        },
      );
      expect(again.failed, JSON.stringify(again.failures)).toBe(0);
      expect(again.updated).toBeGreaterThan(0);
      expect(await punchOffsets(other.cnpj)).toEqual([0]);
      expect((await statusOf(h.config(named))).report.timeZoneWarnings).toEqual([]);
      expect(Object.values(await mismatchGauge(h.config(named)))).toEqual([0, 0, 0]);
    });
  });

  /** `punchline_company_time_zone_mismatch` of a scrape of `/metrics` with `config`'s zones, by company. */
  async function mismatchGauge(config: Config): Promise<Record<string, number>> {
    const registry = createScrapeRegistry({
      queues: [],
      pool: h.pool,
      schema: h.schema,
      zonesInUse: zonesFromConfig(config),
    });
    const metric = (await registry.getMetricsAsJSON()).find(
      (m) => m.name === 'punchline_company_time_zone_mismatch',
    );
    return Object.fromEntries(
      ((metric?.values ?? []) as { labels: { company: string }; value: number }[]).map((v) => [
        v.labels.company,
        v.value,
      ]),
    );
  }

  /** The distinct differences, in minutes, between each stored punched_at and the truth's instant of the punch. */
  async function punchOffsets(cnpj: string): Promise<number[]> {
    const truth = new Map(
      h.emulator.truth.points(cnpj, FROM, TO).map((p) => [String(p.pointId), Date.parse(p.instant)]),
    );
    const rows = await q<{ id: string; at: Date }>(
      `select point_id::text as id, punched_at as at from $S.punches where company_cnpj = $1 and deleted_at is null`,
      [cnpj],
    );
    expect(rows.length).toBe(truth.size);
    return [...new Set(rows.map((r) => (r.at.getTime() - truth.get(r.id)!) / 60_000))];
  }
});
