/**
 * The reconciliation checks end to end (docs/warehouse.md "Reconciliation checks"): a
 * backfill from the emulator over HTTP into a warehouse of its own, then the checks as
 * the sync runs them after every window and as `punchline verify` runs them. On a clean
 * source every check passes; each fails with the right scope and difference when the
 * source disagrees with itself (the emulator's quirk `contradictions`, whose truth says
 * where) and when the warehouse is tampered with (a punch deleted, a work day edited, a
 * window never synced); status and /metrics show the outcome; a check never fails a job.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricsRegistry } from '../src/telemetry/metrics.js';
import { createScrapeRegistry } from '../src/http/scrape-metrics.js';
import type { QualityFinding } from '../src/quality/checks.js';
import { runQualityChecks } from '../src/quality/run-checks.js';
import { parseBackfillArgs, type BackfillArgs } from '../src/backfill/args.js';
import { runBackfill } from '../src/backfill/run.js';
import type { SyncRuntime } from '../src/runtime/runtime.js';
import { runPunchline, startHarness, type Harness } from './sync-harness.js';
import { statusOf } from './support/status-command.js';

const TODAY = '2025-06-30';
const FEBRUARY = '2025-02-01..2025-02-28';

/** A backfill that must succeed whole. */
async function backfill(rt: SyncRuntime, args: BackfillArgs): Promise<void> {
  const summary = await runBackfill(rt, parseBackfillArgs(args, rt.config), { pollMs: 100 });
  expect(summary.failed, JSON.stringify(summary)).toBe(0);
}

/** The rows that say what is wrong, as `check part scope cpf difference status`. */
const problems = (findings: readonly QualityFinding[]) =>
  findings
    .filter((f) => f.status !== 'ok' && f.scope !== 'all')
    .map((f) => ({
      check: f.check,
      company: f.company,
      part: f.part,
      scope: f.scope,
      cpf: f.cpf,
      difference: f.difference,
      status: f.status,
    }));

describe('on a clean source', () => {
  let h: Harness;
  let rt: SyncRuntime;
  let hq: string;
  const q = async <T>(sql: string, values: unknown[] = []): Promise<T[]> =>
    (await h.pool.query(sql.replaceAll('$S', `"${h.schema}"`), values)).rows as T[];
  const verify = async () => (await runQualityChecks(h.pool, h.schema)).findings;

  beforeAll(async () => {
    h = await startHarness('quality', { today: TODAY });
    hq = h.emulator.companies[0]!.cnpj;
    rt = await h.runtime();
    await backfill(rt, { from: '2025-01-01', to: '2025-03-31' });
  }, 240_000);
  afterAll(async () => {
    await h?.close();
  });

  it('passes every check after the backfill, each window checked by the run that loaded it', async () => {
    const standing = await q<{ check_name: string; status: string; n: number }>(
      `select check_name, status, count(*)::int as n from $S.quality_status group by 1, 2 order by 1, 2`,
    );
    expect(standing.filter((r) => r.status !== 'ok')).toEqual([]);
    expect(standing.map((r) => r.check_name).sort()).toEqual(
      [
        'clt_vs_source',
        'coverage',
        'day_vs_punches',
        'history_overlap',
        'punch_without_day',
        'rule_vs_days',
        'totals_vs_days',
        'unknown_collaborator',
        'window_completeness',
      ].sort(),
    );
    // The check of a window names the run that loaded it.
    const [window] = await q<{ run_id: number; loaded_by: number }>(
      `select q.run_id, w.run_id as loaded_by from $S.quality_checks q join $S.window_loads w
          on w.company_cnpj = q.company_cnpj and q.part = 'punches ' || w.window_start || '..' || w.window_end and w.table_name = q.scope
        where q.check_name = 'window_completeness' and q.company_cnpj = $1 and q.part = $2 and q.scope = 'punches'`,
      [hq, `punches ${FEBRUARY}`],
    );
    expect(window!.run_id).toBe(window!.loaded_by);
    const findings = await verify();
    expect(problems(findings)).toEqual([]);
    const punches = findings.find(
      (f) =>
        f.check === 'window_completeness' &&
        f.company === hq &&
        f.part === `punches ${FEBRUARY}` &&
        f.scope === 'punches',
    )!;
    expect(punches.expected).toBe(h.emulator.truth.pointIds(hq, '2025-02-01', '2025-02-28').length);
    expect([punches.actual, punches.status]).toEqual([punches.expected, 'ok']);
  });

  it('punchline verify prints a short table and exits 0', async () => {
    const { code, stdout, stderr } = await runPunchline(['verify'], h.env());
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toMatch(/^\s+window_completeness\s+\d+\s+\d+\s+0\s+0\s+0$/m);
    expect(stdout).toMatch(/^All \d+ parts agree\.$/m);
    expect(stdout.split('\n').length).toBeLessThan(20);
  });

  it('finds a punch row deleted by hand: its window holds one row less than the answer had', async () => {
    const [victim] = await q<{ point_id: number; cpf: string; work_date: string }>(
      `select point_id, cpf, work_date::text from $S.punches where company_cnpj = $1 and work_date = '2025-02-12' and deleted_at is null order by point_id limit 1`,
      [hq],
    );
    await q(`delete from $S.punches where point_id = $1`, [victim!.point_id]);
    const found = problems(await verify()).filter((p) => p.check === 'window_completeness');
    expect(found).toEqual([
      {
        check: 'window_completeness',
        company: hq,
        part: `punches ${FEBRUARY}`,
        scope: 'punches',
        cpf: null,
        difference: -1,
        status: 'fail',
      },
    ]);

    const { code, stdout } = await runPunchline(
      ['verify', '--company', hq, '--from', '2025-02-01', '--to', '2025-02-28', '--json'],
      h.env(),
    );
    expect(code).toBe(1);
    const report = JSON.parse(stdout) as { ok: boolean; rows: QualityFinding[] };
    expect(report.ok).toBe(false);
    expect(problems(report.rows).filter((p) => p.check === 'window_completeness')).toEqual(found);

    // status and /metrics read the same standing outcome.
    const { report: status, text } = await statusOf(h.config());
    expect(status.quality!.find((c) => c.check === 'window_completeness')).toMatchObject({
      parts: { fail: 1 },
      findings: 1,
      example: { company: hq, part: `punches ${FEBRUARY}`, scope: 'punches' },
    });
    expect(text).toMatch(/^Quality checks/m);
    // The window, and the month of the day grain, which no longer agrees with its input (marts_vs_inputs).
    expect(text).toMatch(/2 parts of the warehouse failing a quality check\./);
    const metrics = await createScrapeRegistry({ queues: [], pool: h.pool, schema: h.schema }).metrics();
    expect(metrics).toContain('punchline_quality_checks{check="window_completeness",status="fail"} 1');
    expect(metrics).toMatch(/punchline_quality_findings\{check="window_completeness"\} 1\n/);

    // Re-reading the window brings the punch back, and the check that follows the load says so.
    await backfill(rt, {
      from: '2025-02-01',
      to: '2025-02-28',
      company: hq,
      resources: 'punches',
      force: true,
    });
    const [standing] = await q<{ status: string; actual: number }>(
      `select status, actual from $S.quality_status where check_name = 'window_completeness' and company_cnpj = $1 and part = $2 and scope = 'punches'`,
      [hq, `punches ${FEBRUARY}`],
    );
    expect(standing).toEqual({
      status: 'ok',
      actual: String(h.emulator.truth.pointIds(hq, '2025-02-01', '2025-02-28').length),
    });
  }, 60_000);

  it('finds a work day edited by hand: the month totals no longer agree with the days, nor the day with its punches', async () => {
    const [day] = await q<{ cpf: string; record: string; worked: number }>(
      `select cpf, collaborator_record as record, worked_seconds as worked from $S.work_days
        where company_cnpj = $1 and work_date = '2025-02-12' and worked_seconds > 0 and deleted_at is null order by cpf limit 1`,
      [hq],
    );
    await q(
      `update $S.work_days set worked_seconds = worked_seconds + 18000 where company_cnpj = $1 and cpf = $2 and work_date = '2025-02-12'`,
      [hq, day!.cpf],
    );
    const found = problems(await verify()).filter((p) => p.check !== 'window_completeness');
    expect(found).toEqual([
      {
        check: 'totals_vs_days',
        company: hq,
        part: FEBRUARY,
        scope: `record ${day!.record}`,
        cpf: day!.cpf,
        difference: -18000,
        status: 'fail',
      },
      {
        check: 'rule_vs_days',
        company: hq,
        part: FEBRUARY,
        scope: `record ${day!.record}`,
        cpf: day!.cpf,
        difference: expect.any(Number),
        status: 'fail',
      },
      {
        check: 'day_vs_punches',
        company: hq,
        part: '2025-02',
        scope: `day 2025-02-12 record ${day!.record}`,
        cpf: day!.cpf,
        difference: 18000,
        status: 'warn',
      },
      // The day grain was derived from the day as the API sent it.
      {
        check: 'marts_vs_inputs',
        company: hq,
        part: '2025-02',
        scope: 'employee_daily worked',
        cpf: null,
        difference: -18000,
        status: 'fail',
      },
    ]);
    await q(
      `update $S.work_days set worked_seconds = $3 where company_cnpj = $1 and cpf = $2 and work_date = '2025-02-12'`,
      [hq, day!.cpf, day!.worked],
    );
    expect(problems(await verify())).toEqual([]);
  });

  it('warns when a window reloads with a record it cannot store: the rows of that collaborator are kept, so the window holds more than the answer', async () => {
    h.emulator.queueFault({ kind: 'corrupt', endpoint: 'point/getFromPeriod', company: hq });
    await backfill(rt, {
      from: '2025-03-01',
      to: '2025-03-31',
      company: hq,
      resources: 'punches',
      force: true,
    });
    const [standing] = await q<{ status: string; difference: number; detail: string }>(
      `select status, difference::int, detail from $S.quality_status where check_name = 'window_completeness' and company_cnpj = $1 and part = $2 and scope = 'punches'`,
      [hq, 'punches 2025-03-01..2025-03-31'],
    );
    expect(standing).toMatchObject({ status: 'warn', difference: 1 });
    expect(standing!.detail).toMatch(/rejected_records/);
  }, 60_000);

  it('never fails a job for a check that cannot run: the run stands, the error is logged and counted', async () => {
    const errors = async () =>
      (
        (await metricsRegistry.getSingleMetric('punchline_quality_check_errors_total')?.get())?.values ?? []
      ).reduce((n, v) => n + v.value, 0);
    const before = await errors();
    await q(`alter table $S.quality_checks rename to quality_checks_away`);
    try {
      await backfill(rt, {
        from: '2025-01-01',
        to: '2025-01-31',
        company: hq,
        resources: 'tardiness',
        force: true,
      });
    } finally {
      await q(`alter table $S.quality_checks_away rename to quality_checks`);
    }
    expect(await errors()).toBeGreaterThan(before);
    const [run] = await q<{ status: string }>(
      `select status from $S.sync_runs where resource = 'tardiness' and company_cnpj = $1 order by id desc limit 1`,
      [hq],
    );
    expect(run!.status).toBe('succeeded');
  }, 60_000);

  it('rejects bad arguments with one line and exit code 2, before any work', async () => {
    for (const [args, message] of [
      [['--from', '2025-02-30'], /^punchline: --from 2025-02-30 is not a real calendar day\n$/],
      [
        ['--from', '2025-03-01', '--to', '2025-02-01'],
        /^punchline: --from 2025-03-01 is after --to 2025-02-01\n$/,
      ],
      [['--company', '123'], /^punchline: --company "123" is not a CNPJ \(14 digits\)\n$/],
    ] as const) {
      const { code, stdout, stderr } = await runPunchline(
        ['verify', ...args],
        h.env({ DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' }),
      );
      expect({ code, stdout }).toEqual({ code: 2, stdout: '' });
      expect(stderr).toMatch(message);
    }
  }, 60_000);
});

describe('on a source that disagrees with itself, synced with a month missing', () => {
  let h: Harness;
  let findings: readonly QualityFinding[];

  beforeAll(async () => {
    h = await startHarness('quality_src', { today: TODAY, quirks: ['contradictions'] });
    const rt = await h.runtime();
    await backfill(rt, { from: '2025-01-01', to: '2025-01-31' });
    await backfill(rt, { from: '2025-03-01', to: '2025-03-31' });
    findings = (await runQualityChecks(h.pool, h.schema)).findings;
  }, 240_000);
  afterAll(async () => {
    await h?.close();
  });

  const months = [
    { from: '2025-01-01', to: '2025-01-31' },
    { from: '2025-03-01', to: '2025-03-31' },
  ];

  it('reports the phantom hours of the totals per collaborator and month, in both totals checks', () => {
    const hq = h.emulator.companies[0]!.cnpj;
    const expected = months.flatMap(({ from, to }) => {
      const phantom = h.emulator.truth.contradictions(hq, from, to).totals;
      expect(phantom.length).toBeGreaterThan(0);
      const { cpf, collaboratorId } = phantom[0]!;
      const record = h.emulator.truth
        .collaborators(hq)
        .find((c) => c.collaboratorId === collaboratorId)!.admission_date;
      return (['totals_vs_days', 'rule_vs_days'] as const).map((check) => ({
        check,
        company: hq,
        part: `${from}..${to}`,
        scope: `record ${record}`,
        cpf,
        status: 'fail',
      }));
    });
    const found = problems(findings).filter(
      (p) => p.check === 'totals_vs_days' || p.check === 'rule_vs_days',
    );
    expect(
      found
        .map(({ difference: _d, ...p }) => p)
        .sort((a, b) => a.check.localeCompare(b.check) || a.part.localeCompare(b.part)),
    ).toEqual(expected.sort((a, b) => a.check.localeCompare(b.check) || a.part.localeCompare(b.part)));
    // worked_actual_time is exactly the days plus the phantom hours.
    for (const { from, to } of months) {
      const seconds = h.emulator.truth.contradictions(hq, from, to).totals.reduce((n, p) => n + p.seconds, 0);
      expect(found.find((p) => p.check === 'totals_vs_days' && p.part === `${from}..${to}`)!.difference).toBe(
        seconds,
      );
    }
  });

  it('warns of each day sent with its worked time but without its punches', () => {
    const hq = h.emulator.companies[0]!.cnpj;
    const expected = months.flatMap(({ from, to }) =>
      h.emulator.truth.contradictions(hq, from, to).punches.map((d) => {
        const record = h.emulator.truth
          .collaborators(hq)
          .find((c) => c.collaboratorId === d.collaboratorId)!.admission_date;
        return {
          check: 'day_vs_punches',
          company: hq,
          part: d.date.slice(0, 7),
          scope: `day ${d.date} record ${record}`,
          cpf: d.cpf,
          difference: d.workedSeconds,
          status: 'warn',
        };
      }),
    );
    expect(expected).toHaveLength(2);
    expect(problems(findings).filter((p) => p.check === 'day_vs_punches')).toEqual(expected);
  });

  it('lists the month no window covers, for every company and resource, and nothing else fails', () => {
    const gaps = problems(findings).filter((p) => p.check === 'coverage');
    const pairs = new Set(
      findings.filter((f) => f.check === 'coverage').map((f) => `${f.company} ${f.part}`),
    );
    expect(pairs.size).toBeGreaterThanOrEqual(h.emulator.companies.length * 7);
    expect(gaps).toHaveLength(pairs.size);
    for (const g of gaps)
      expect(g).toMatchObject({ scope: 'gap 2025-02-01..2025-02-28', difference: -28, status: 'fail' });
    const other = problems(findings).filter(
      (p) => !['coverage', 'totals_vs_days', 'rule_vs_days', 'day_vs_punches'].includes(p.check),
    );
    expect(other).toEqual([]);
  });
});
