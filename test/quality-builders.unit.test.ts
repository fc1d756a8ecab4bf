/**
 * The pure parts of the reconciliation checks: which checks follow a run, the arguments
 * of `punchline verify`, the statements each check sends (parameters, never values in
 * the text), and the text an operator reads from verify and status.
 */
import { describe, expect, it } from 'vitest';
import { parseVerifyArgs } from '../src/commands/verify.js';
import { formatStatus } from '../src/reports/status-format.js';
import type { StatusReport } from '../src/reports/status-report.js';
import { formatDifference, formatVerify } from '../src/reports/verify-format.js';
import { checksAfter } from '../src/quality/after-run.js';
import { QUALITY_CHECKS, type QualityFinding } from '../src/quality/checks.js';
import { buildCheck } from '../src/quality/run-checks.js';
import { qualitySettingsFromConfig } from '../src/quality/settings.js';
import { loadConfig } from '../src/config.js';

const A = '11222333000181';
const MARCH = { from: '2025-03-01', to: '2025-03-31' };

const finding = (f: Partial<QualityFinding>): QualityFinding => ({
  check: 'window_completeness',
  company: A,
  part: 'punches 2025-03-01..2025-03-31',
  scope: 'punches',
  cpf: null,
  measure: 'rows',
  expected: 10,
  actual: 10,
  difference: 0,
  tolerance: 0,
  status: 'ok',
  detail: null,
  ...f,
});

describe('the checks that follow a run', () => {
  it('check a punches window, the months and totals periods it lies in, then the coverage of the whole resource', () => {
    expect(checksAfter({ resource: 'punches', company: A, window: MARCH })).toEqual([
      {
        company: A,
        ...MARCH,
        resources: ['punches'],
        checks: [
          'window_completeness',
          'totals_vs_days',
          'rule_vs_days',
          'day_vs_punches',
          'punch_without_day',
          'unknown_collaborator',
        ],
      },
      { company: A, resources: ['punches'], checks: ['coverage'] },
    ]);
  });

  it('check the history after the collaborator list, only the coverage after a follow-up, nothing after a group walk', () => {
    expect(checksAfter({ resource: 'collaborators', company: A })).toEqual([
      { company: A, checks: ['history_overlap'] },
    ]);
    expect(checksAfter({ resource: 'audit_photos', company: A, window: MARCH })).toEqual([
      { company: A, resources: ['audit_photos'], checks: ['coverage'] },
    ]);
    expect(checksAfter({ resource: 'lookups', company: A })).toEqual([]);
    expect(checksAfter({ resource: 'companies' })).toEqual([]);
  });
});

describe('punchline verify arguments', () => {
  it('take an optional range and company', () => {
    expect(parseVerifyArgs({})).toEqual({ json: false });
    expect(
      parseVerifyArgs({ from: '2025-01-01', to: '2025-03-31', company: '11.222.333/0001-81', json: true }),
    ).toEqual({
      from: '2025-01-01',
      to: '2025-03-31',
      company: A,
      json: true,
    });
  });

  it('refuse a day that is no day, a range backwards and a company that is no CNPJ, naming the option', () => {
    expect(() => parseVerifyArgs({ from: '2025-13-01' })).toThrow(
      /^--from 2025-13-01 is not a real calendar day$/,
    );
    expect(() => parseVerifyArgs({ to: 'yesterday' })).toThrow(
      /^--to "yesterday" is not a date \(use YYYY-MM-DD\)$/,
    );
    expect(() => parseVerifyArgs({ from: '2025-03-02', to: '2025-03-01' })).toThrow(/is after --to/);
    expect(() => parseVerifyArgs({ company: '123' })).toThrow(/--company "123" is not a CNPJ/);
  });
});

describe('the statement of a check', () => {
  it('carries the scope as parameters, quotes the schema, and records the run it follows', () => {
    for (const check of QUALITY_CHECKS) {
      const q = buildCheck(
        'we"ird',
        check,
        { company: A, ...MARCH },
        { runId: 42, timeZones: { [A]: 'America/Manaus' }, lookbackDays: 35 },
      )!;
      expect(q.text, check).toContain('"we""ird".');
      expect(q.text, check).not.toContain(A);
      expect(q.values, check).toContain(42);
      if (check !== 'history_overlap') expect(q.values, check).toContain(A);
      expect(
        q.text
          .match(/\$\d+/g)!
          .map((p) => Number(p.slice(1)))
          .every((n) => n >= 1 && n <= q.values.length),
        check,
      ).toBe(true);
    }
  });

  it("reads each company's today in its own time zone", () => {
    const q = buildCheck(
      'w',
      'coverage',
      {},
      { timeZones: { [A]: 'America/Rio_Branco' }, defaultTimeZone: 'America/Sao_Paulo' },
    )!;
    expect(q.values).toContain(JSON.stringify({ [A]: 'America/Rio_Branco' }));
    expect(q.text).toMatch(/AT TIME ZONE coalesce\(\$\d+::jsonb ->> company_cnpj, \$\d+::text\)/);
  });

  it('leaves out the completeness of a resource without window predicates, and every unknown-collaborator table of another resource', () => {
    expect(buildCheck('w', 'window_completeness', { resources: ['audit_photos'] }, {})).toBeNull();
    const q = buildCheck('w', 'unknown_collaborator', { resources: ['hour_bank'] }, {})!;
    expect(q.text).toContain('"w"."hour_bank_balances"');
    expect(q.text).not.toContain('"w"."punches"');
  });

  it('takes time zones and the horizon from the configuration', () => {
    const config = loadConfig({
      DATABASE_URL: 'postgres://x@localhost/db',
      SERVICE_API_BASE_URL: 'http://127.0.0.1:1',
      SERVICE_API_TOKEN: 't',
      API_TIMEZONE: 'America/Recife',
      COMPANY_TIMEZONES: `${A}=America/Manaus`,
      SYNC_LOOKBACK_DAYS: '40',
    });
    expect(qualitySettingsFromConfig(config)).toEqual({
      timeZones: { [A]: 'America/Manaus' },
      defaultTimeZone: 'America/Recife',
      lookbackDays: 40,
    });
  });
});

describe('what an operator reads', () => {
  it('gives a difference in its measure', () => {
    expect(formatDifference(finding({ measure: 'seconds', difference: 28_800 }))).toBe('+8:00:00');
    expect(formatDifference(finding({ measure: 'seconds', difference: -3_725 }))).toBe('-1:02:05');
    expect(formatDifference(finding({ difference: -1 }))).toBe('-1 row');
    expect(formatDifference(finding({ measure: 'days', difference: -28 }))).toBe('-28 days');
    expect(formatDifference(finding({ difference: null }))).toBe('-');
  });

  it('verify: one line per check, the findings, and a verdict', () => {
    const text = formatVerify(
      [
        finding({}),
        finding({
          part: 'punches 2025-02-01..2025-02-28',
          actual: 9,
          difference: -1,
          status: 'fail',
          detail: '1 row(s) the answer held are no longer live',
        }),
        finding({
          check: 'coverage',
          part: 'punches',
          scope: 'all',
          measure: 'days',
          expected: 90,
          actual: 90,
        }),
      ],
      { durationMs: 1234 },
    );
    expect(text).toMatch(/^Quality checks of everything synced, every company \(1\.2 s\)$/m);
    expect(text).toMatch(/^\s+window_completeness\s+2\s+1\s+0\s+1\s+1$/m);
    expect(text).toMatch(/^\s+coverage\s+1\s+1\s+0\s+0\s+0$/m);
    expect(text).toMatch(
      /^\s+fail\s+window_completeness\s+11222333000181\s+punches 2025-02-01\.\.2025-02-28\s+punches\s+-1 row\s+1 row\(s\)/m,
    );
    expect(text).toMatch(/^1 part failed, 0 warned, of 3\./m);
    expect(formatVerify([finding({})], { durationMs: 5, company: A, from: '2025-03-01' })).toMatch(
      /of 2025-03-01\.\.the last, company 11222333000181 .*\n[\s\S]*^All 1 parts agree\.$/m,
    );
  });

  it('status: a quality section with the worst finding, only once a check has run', () => {
    const report: StatusReport = {
      generatedAt: '2025-03-10T12:00:00.000Z',
      queues: [],
      failing: [],
      freshness: [],
      summary: { stale: 0, aging: 0, failed: 0, retrying: 0 },
      check: { ok: true, problems: [] },
    };
    expect(formatStatus({ ...report, quality: [] })).toBe(formatStatus(report));
    const text = formatStatus({
      ...report,
      quality: [
        {
          check: 'totals_vs_days',
          parts: { ok: 5, warn: 0, fail: 1 },
          findings: 2,
          lastCheckedAt: '2025-03-10T11:50:00.000Z',
          example: {
            company: A,
            part: '2025-02-01..2025-02-28',
            scope: 'record 2020-07-27',
            status: 'fail',
            detail: 'the days sum to 76:12:16',
          },
        },
      ],
    });
    expect(text).toMatch(
      /^\s+totals_vs_days\s+5\s+0\s+1\s+2\s+2025-03-10 11:50 UTC\s+11222333000181 2025-02-01\.\.2025-02-28 record 2020-07-27: the days sum to 76:12:16$/m,
    );
    expect(text).toMatch(/1 part of the warehouse failing a quality check\.\n$/);
  });
});
