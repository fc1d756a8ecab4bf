import { describe, expect, it } from 'vitest';
import { spanTotals } from '../bench/intervals.js';
import { BenchUsageError, DEFAULT_RESOURCES, parseBenchOptions } from '../bench/options.js';
import { replaceBlock } from '../bench/readme-table.js';
import { countByEndpoint, planWarmUp, planWorkload } from '../bench/workload.js';

const HQ = '95643282000151';
const BRANCH = '95643282000232';

describe('spanTotals', () => {
  it('counts overlapping spans once in busy time and fully in the sum', () => {
    const t = spanTotals([
      [0, 10],
      [5, 15],
      [20, 30],
      [21, 22],
    ]);
    expect(t).toEqual({ count: 4, sumMs: 31, busyMs: 25 });
  });

  it('is zero for no spans', () => {
    expect(spanTotals([])).toEqual({ count: 0, sumMs: 0, busyMs: 0 });
  });
});

describe('planWorkload', () => {
  const plan = planWorkload({
    companies: [HQ, BRANCH],
    resources: DEFAULT_RESOURCES,
    from: '2025-04-20',
    to: '2025-05-10',
    today: '2026-01-01',
  });
  const counts = countByEndpoint(plan);

  it('reads every period endpoint per company and calendar-month window, like the sync', () => {
    // Two windows (April 20-30, May 1-10) × two companies.
    expect(counts['point/getFromPeriod']).toBe(4);
    expect(counts['collaborator/totalHours']).toBe(4);
    expect(counts['tardiness']).toBe(4);
    const april = plan.filter((r) => r.endpoint === 'point/getFromPeriod' && r.path.includes('begin_date=2025-04-20'));
    expect(april.map((r) => r.path)).toEqual([
      `/customer/v2/point/getFromPeriod?begin_date=2025-04-20&end_date=2025-04-30&company_national_registry=${HQ}`,
      `/customer/v2/point/getFromPeriod?begin_date=2025-04-20&end_date=2025-04-30&company_national_registry=${BRANCH}`,
    ]);
  });

  it('reads the hour bank once per company and day', () => {
    expect(counts['overtime']).toBe(21 * 2);
  });

  it('includes the preflight, the group walk, the lookups and the collaborator lists', () => {
    expect(counts['economic-group']).toBe(2);
    expect(counts['company']).toBe(3);
    expect(counts['department']).toBe(2);
    expect(counts['absence/types']).toBe(2);
    expect(counts['collaborator']).toBe(2);
    expect(plan).toHaveLength(4 * 3 + 42 + 2 + 3 + 2 * 10 + 2);
  });

  it('stops the hour bank at the sync\'s today', () => {
    const clipped = planWorkload({ companies: [HQ], resources: ['hour_bank'], from: '2025-05-01', to: '2025-05-31', today: '2025-05-04' });
    expect(countByEndpoint(clipped)['overtime']).toBe(4);
  });

  it('warms up with one hour-bank read per company on the last day', () => {
    expect(planWarmUp([HQ, BRANCH], '2025-05-10').map((r) => r.path)).toEqual([
      `/customer/v2/overtime?date=2025-05-10&company_national_registry=${HQ}`,
      `/customer/v2/overtime?date=2025-05-10&company_national_registry=${BRANCH}`,
    ]);
  });
});

describe('parseBenchOptions', () => {
  it('takes the quick preset and the default budget', () => {
    const o = parseBenchOptions(['--quick'], {});
    expect(o).toMatchObject({ mode: 'quick', sizes: [1000, 3000], concurrency: 4, rps: 10_000, writeJson: true });
  });

  it('takes the full preset with 10,000 collaborators', () => {
    expect(parseBenchOptions([], {})).toMatchObject({ mode: 'full', sizes: [1000, 3000, 10000] });
  });

  it('rejects bad values with a one-line message naming the option', () => {
    expect(() => parseBenchOptions(['--sizes', '1000,abc'], {})).toThrow(BenchUsageError);
    expect(() => parseBenchOptions(['--sizes', '1000,abc'], {})).toThrow(/--sizes/);
    expect(() => parseBenchOptions(['--from', '2025-06-01', '--to', '2025-05-01'], {})).toThrow(/--from 2025-06-01 is after --to/);
    expect(() => parseBenchOptions(['--resources', 'punches,audit_photos'], {})).toThrow(/audit_photos/);
    expect(() => parseBenchOptions(['--nope'], {})).toThrow(BenchUsageError);
  });
});

describe('replaceBlock', () => {
  it('replaces only the block of the mode and keeps the rest of the page', () => {
    const page = 'intro\n<!-- bench:full:start -->\nold\n<!-- bench:full:end -->\nnote\n<!-- bench:quick:start -->\nq\n<!-- bench:quick:end -->\n';
    expect(replaceBlock(page, 'full', 'new table')).toBe(
      'intro\n<!-- bench:full:start -->\nnew table\n<!-- bench:full:end -->\nnote\n<!-- bench:quick:start -->\nq\n<!-- bench:quick:end -->\n',
    );
  });

  it('appends the block when the markers are missing', () => {
    expect(replaceBlock('intro\n', 'quick', 'x')).toBe('intro\n\n<!-- bench:quick:start -->\nx\n<!-- bench:quick:end -->\n');
  });
});
