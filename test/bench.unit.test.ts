import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  baselineFiles,
  baselineFrom,
  loadBaseline,
  perMillionRows,
  ratio,
  runFigures,
} from '../bench/figures.js';
import { spanTotals } from '../bench/intervals.js';
import { BenchUsageError, DEFAULT_RESOURCES, parseBenchOptions } from '../bench/options.js';
import { replaceBlock } from '../bench/readme-table.js';
import {
  breakdownTable,
  evaluateTargets,
  markdownBlock,
  martSteps,
  perSizeTable,
  postgresCpuTable,
  questionsTable,
  summaryTable,
  targetLines,
  workerPerByteTable,
} from '../bench/report.js';
import type {
  BaselineFigures,
  BenchResults,
  EndToEndFigures,
  QuestionFigures,
  SizeFigures,
  SourceFigures,
} from '../bench/results.js';
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
    const april = plan.filter(
      (r) => r.endpoint === 'point/getFromPeriod' && r.path.includes('begin_date=2025-04-20'),
    );
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

  it("stops the hour bank at the sync's today", () => {
    const clipped = planWorkload({
      companies: [HQ],
      resources: ['hour_bank'],
      from: '2025-05-01',
      to: '2025-05-31',
      today: '2025-05-04',
    });
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
    expect(o).toMatchObject({
      mode: 'quick',
      sizes: [1000, 3000],
      concurrency: [4],
      rps: 10_000,
      writeJson: true,
    });
  });

  it('takes the full preset with 10,000 collaborators at concurrency 4 and 8', () => {
    expect(parseBenchOptions([], {})).toMatchObject({
      mode: 'full',
      sizes: [1000, 3000, 10000],
      concurrency: [4, 8],
    });
  });

  it('takes a concurrency list in the order given', () => {
    expect(parseBenchOptions(['--quick', '--concurrency', '8,2,4'], {})).toMatchObject({
      concurrency: [8, 2, 4],
    });
    expect(parseBenchOptions(['--concurrency', '6'], {})).toMatchObject({ concurrency: [6] });
  });

  it('rejects a bad, empty or repeated concurrency', () => {
    for (const bad of ['4,x', '0', '', '4,,8', '4,4', '257']) {
      expect(() => parseBenchOptions(['--concurrency', bad], {})).toThrow(/--concurrency/);
    }
  });

  it('rejects bad values with a one-line message naming the option', () => {
    expect(() => parseBenchOptions(['--sizes', '1000,abc'], {})).toThrow(BenchUsageError);
    expect(() => parseBenchOptions(['--sizes', '1000,abc'], {})).toThrow(/--sizes/);
    expect(() => parseBenchOptions(['--from', '2025-06-01', '--to', '2025-05-01'], {})).toThrow(
      /--from 2025-06-01 is after --to/,
    );
    expect(() => parseBenchOptions(['--resources', 'punches,audit_photos'], {})).toThrow(/audit_photos/);
    expect(() => parseBenchOptions(['--nope'], {})).toThrow(BenchUsageError);
  });
});

describe('replaceBlock', () => {
  it('replaces only the block of the mode and keeps the rest of the page', () => {
    const page =
      'intro\n<!-- bench:full:start -->\nold\n<!-- bench:full:end -->\nnote\n<!-- bench:quick:start -->\nq\n<!-- bench:quick:end -->\n';
    expect(replaceBlock(page, 'full', 'new table')).toBe(
      'intro\n<!-- bench:full:start -->\nnew table\n<!-- bench:full:end -->\nnote\n<!-- bench:quick:start -->\nq\n<!-- bench:quick:end -->\n',
    );
  });

  it('appends the block when the markers are missing', () => {
    expect(replaceBlock('intro\n', 'quick', 'x')).toBe(
      'intro\n\n<!-- bench:quick:start -->\nx\n<!-- bench:quick:end -->\n',
    );
  });
});

describe('CPU per million rows and ratios', () => {
  it('divides CPU-seconds by the rows in millions', () => {
    expect(perMillionRows(12, 4_000_000)).toBe(3);
    expect(perMillionRows(0.5, 250_000)).toBe(2);
  });

  it('is null without CPU or rows', () => {
    expect(perMillionRows(null, 1000)).toBeNull();
    expect(perMillionRows(3, 0)).toBeNull();
  });

  it('gives a ratio only when both sides are known and the divisor positive', () => {
    expect(ratio(3, 2)).toBe(1.5);
    expect(ratio(null, 2)).toBeNull();
    expect(ratio(3, undefined)).toBeNull();
    expect(ratio(3, 0)).toBeNull();
  });
});

const SETTINGS = {
  from: '2025-03-01',
  to: '2025-05-31',
  today: '2025-06-30',
  seed: 'bench',
  resources: DEFAULT_RESOURCES,
};

/** The first fd14db9 full run, on an AMD EPYC. */
const EPYC_FULL = 'bench/results/full-2026-11-22-fd14db9.json';

describe('baselineFrom', () => {
  it('reads the committed fd14db9 full run: CPU-seconds per million rows per size', () => {
    const json: unknown = JSON.parse(readFileSync(EPYC_FULL, 'utf8'));
    const b = baselineFrom(json, EPYC_FULL, SETTINGS);
    if (typeof b === 'string') throw new Error(b);
    expect(b.commit).toBe('fd14db9');
    expect(b.machine).toEqual({ cpu: 'AMD EPYC', cores: 2 });
    expect(b.date).toBe('2026-11-22');
    expect(Object.keys(b.bySize)).toEqual(['1000', '3000', '10000']);
    // 10,000: 108.49 worker CPU-s and 113.5 Postgres CPU-s over 4,294,409 rows.
    expect(b.bySize['10000']!.rows).toBe(4_294_409);
    expect(b.bySize['10000']!.workerCpuPerMRows).toBeCloseTo(25.26, 2);
    expect(b.bySize['10000']!.postgresCpuPerMRows).toBeCloseTo(26.43, 2);
  });

  it('reads the new shape (runs) too, from the first run of a size', () => {
    const json = {
      machine: { commit: 'abc1234' },
      settings: SETTINGS,
      sizes: [
        {
          collaborators: 1000,
          runs: [
            { endToEnd: { workerCpuS: 5, postgresCpuS: 2, rows: { punches: 500_000, work_days: 500_000 } } },
          ],
        },
      ],
    };
    expect(baselineFrom(json, 'x.json', SETTINGS)).toEqual({
      commit: 'abc1234',
      file: 'x.json',
      bySize: { '1000': { rows: 1_000_000, workerCpuPerMRows: 5, postgresCpuPerMRows: 2 } },
    });
  });

  it('says why when the baseline does not compare with the run', () => {
    const json: unknown = JSON.parse(readFileSync(EPYC_FULL, 'utf8'));
    expect(baselineFrom(json, 'f.json', { ...SETTINGS, from: '2025-05-01', to: '2025-05-15' })).toMatch(
      /range 2025-03-01\.\.2025-05-31/,
    );
    expect(baselineFrom(json, 'f.json', { ...SETTINGS, resources: ['punches'] })).toMatch(/other resources/);
    expect(baselineFrom({}, 'f.json', SETTINGS)).toMatch(/not a results file/);
  });
});

describe('loadBaseline', () => {
  /** A results directory of its own, holding the given files. */
  function resultsDir(files: Record<string, unknown>): string {
    const root = mkdtempSync(join(tmpdir(), 'bench-baseline-'));
    mkdirSync(join(root, 'bench/results'), { recursive: true });
    for (const [name, json] of Object.entries(files))
      writeFileSync(join(root, 'bench/results', name), JSON.stringify(json));
    return root;
  }
  const run = (cpu: string, date: string, workerCpuS: number) => ({
    date: `${date}T04:00:00.000Z`,
    machine: { commit: 'fd14db9', cpu, cores: 2 },
    settings: SETTINGS,
    sizes: [{ collaborators: 1000, endToEnd: { workerCpuS, postgresCpuS: 1, rows: { punches: 1_000_000 } } }],
  });

  it('takes the newest run of fd14db9 on the same CPU model and cores, whatever else is committed', () => {
    const root = resultsDir({
      'full-2026-11-22-fd14db9.json': run('AMD EPYC', '2026-11-22', 40),
      'full-2026-11-24-fd14db9.json': run('Intel Xeon', '2026-11-24', 20),
      'full-2026-11-25-fd14db9.json': run('Intel Xeon', '2026-11-25', 17),
      'quick-2026-11-26-fd14db9.json': run('Intel Xeon', '2026-11-26', 99),
      'full-2026-11-27-abc1234.json': run('Intel Xeon', '2026-11-27', 1),
    });
    expect(baselineFiles(root, 'full')).toEqual([
      'bench/results/full-2026-11-25-fd14db9.json',
      'bench/results/full-2026-11-24-fd14db9.json',
      'bench/results/full-2026-11-22-fd14db9.json',
    ]);
    const xeon = loadBaseline(root, 'full', SETTINGS, { cpu: 'Intel Xeon', cores: 2 });
    if (typeof xeon === 'string') throw new Error(xeon);
    expect(xeon.file).toBe('bench/results/full-2026-11-25-fd14db9.json');
    expect(xeon.date).toBe('2026-11-25');
    expect(xeon.bySize['1000']!.workerCpuPerMRows).toBe(17);
    const epyc = loadBaseline(root, 'full', SETTINGS, { cpu: 'AMD EPYC', cores: 2 });
    expect(typeof epyc !== 'string' && epyc.file).toBe('bench/results/full-2026-11-22-fd14db9.json');
  });

  it('compares nothing when no run of fd14db9 was on this kind of machine, and says which there are', () => {
    const root = resultsDir({ 'full-2026-11-22-fd14db9.json': run('AMD EPYC', '2026-11-22', 40) });
    const none = loadBaseline(root, 'full', SETTINGS, { cpu: 'Intel Xeon', cores: 2 });
    expect(none).toMatch(
      /^no full run of fd14db9 on this kind of machine \(Intel Xeon, 2 cores\), only bench\/results\/full-2026-11-22-fd14db9\.json \(AMD EPYC, 2 cores\)/,
    );
    expect(none).toMatch(/bench\/baseline\.sh/);
    expect(loadBaseline(resultsDir({}), 'quick', SETTINGS, { cpu: 'AMD EPYC', cores: 2 })).toMatch(
      /^no quick results of fd14db9/,
    );
  });

  it('finds the committed runs of both machines', () => {
    const xeon = loadBaseline('.', 'full', SETTINGS, { cpu: 'Intel(R) Xeon(R) Processor', cores: 2 });
    expect(typeof xeon !== 'string' && xeon.file).toBe('bench/results/full-2026-11-25-fd14db9.json');
    const quick = loadBaseline(
      '.',
      'quick',
      { ...SETTINGS, from: '2025-05-01', to: '2025-05-15' },
      { cpu: 'AMD EPYC', cores: 2 },
    );
    expect(typeof quick !== 'string' && quick.file).toBe('bench/results/quick-2026-11-22-fd14db9.json');
  });
});

const MACHINE = { busyS: 0, idleS: 0, stealS: 0 };

function source(ms: number, requests: number): SourceFigures {
  return { ms, requests, bytes: 2 ** 20, slowestMs: 10, maxInFlight: 4, emulatorCpuS: 1, machine: MACHINE };
}

function endToEnd(o: {
  wallMs: number;
  requests: number;
  peakRssMiB: number;
  workerCpuS: number | null;
  postgresCpuS: number;
  rows: number;
}): EndToEndFigures {
  return {
    wallMs: o.wallMs,
    exitCode: 0,
    jobsSucceeded: 10,
    jobsTotal: 10,
    requests: o.requests,
    requestsByEndpoint: {},
    maxInFlight: 4,
    peakRssMiB: o.peakRssMiB,
    baselineRssMiB: 100,
    workerCpuS: o.workerCpuS,
    emulatorCpuS: 1,
    postgresCpuS: o.postgresCpuS,
    machine: MACHINE,
    dbWaits: { CPU: 9, 'IO:WALSync': 1 },
    startupMs: 1000,
    loader: { count: 3, sumMs: 3000, busyMs: 2000 },
    loaderBy: {},
    transactions: { count: 3, sumMs: 2000, busyMs: 1500 },
    http: { count: 5, sumMs: 5000, busyMs: 4000 },
    httpOrLoaderBusyMs: 4500,
    jobTime: {},
    rows: { punches: o.rows * 0.75, work_days: o.rows * 0.25 },
    rowsPerSecond: {},
  };
}

const BASELINE: BaselineFigures = {
  commit: 'fd14db9',
  file: 'bench/results/full-2026-11-22-fd14db9.json',
  bySize: { '1000': { rows: 400_000, workerCpuPerMRows: 40, postgresCpuPerMRows: 30 } },
};

/** One backfill of a test size: the issue 23 figures (checks, marts) only when given. */
interface TestRun {
  c: number;
  wallMs: number;
  requests: number;
  peak: number;
  worker: number | null;
  pg: number;
  checks?: number;
  marts?: EndToEndFigures['martsBy'];
}

function size(collaborators: number, runs: TestRun[], extra: Partial<SizeFigures> = {}): SizeFigures {
  const sink = {
    ms: 500,
    pgCpuS: 0.6,
    indexedMs: 1500,
    indexedPgCpuS: 2,
    rows: 1_000_000,
    bytes: 2 ** 24,
    byTable: {},
  };
  return {
    collaborators,
    companies: 3,
    emulatorStartMs: 1000,
    warmUpMs: 500,
    plannedRequests: 100,
    plannedByEndpoint: {},
    runs: runs.map((r) =>
      runFigures({
        collaborators,
        concurrency: r.c,
        source: source(10_000, 100),
        endToEnd: {
          ...endToEnd({
            wallMs: r.wallMs,
            requests: r.requests,
            peakRssMiB: r.peak,
            workerCpuS: r.worker,
            postgresCpuS: r.pg,
            rows: 1_000_000,
          }),
          ...(r.checks === undefined ? {} : { checksPgCpuS: r.checks }),
          ...(r.marts === undefined
            ? {}
            : { martsPgCpuS: Object.values(r.marts).reduce((n, m) => n + m.cpuS, 0), martsBy: r.marts }),
        },
        sink,
        baseline: BASELINE,
        ...(extra.jsonParse ? { jsonParse: extra.jsonParse } : {}),
      }),
    ),
    sink,
    ...extra,
  };
}

function results(sizes: SizeFigures[], concurrency: number[] = [4, 8]): BenchResults {
  return {
    mode: 'full',
    date: '2026-12-01T10:00:00.000Z',
    machine: {
      cpu: 'AMD EPYC',
      cores: 2,
      memoryGiB: 24,
      kernel: '6',
      node: 'v20',
      postgres: '15.20',
      commit: 'abc1234',
      dirty: false,
      loadAtStart: 0.2,
    },
    settings: { ...SETTINGS, concurrency, rps: 10_000 },
    sizes,
    baseline: BASELINE,
    loadAtEnd: 0.5,
    durationS: 600,
  };
}

describe('runFigures', () => {
  const run = size(1000, [{ c: 4, wallMs: 14_000, requests: 100, peak: 180, worker: 18, pg: 2.8 }]).runs[0]!;

  it('gives CPU per million rows and its ratio to the baseline of the same size', () => {
    expect(run.rows).toBe(1_000_000);
    expect(run.perMillionRows).toEqual({ workerCpuS: 18, postgresCpuS: 2.8 });
    expect(run.ratios.workerCpuOverBaseline).toBeCloseTo(18 / 40);
    expect(run.ratios.postgresCpuOverBaseline).toBeCloseTo(2.8 / 30);
  });

  it('compares the loader (Postgres CPU of the backfill) with the Postgres CPU of COPY with keys, logged', () => {
    expect(run.ratios.loaderOverKeyedCopy).toBeCloseTo(1.4);
    expect(run.ratios.endToEndOverSource).toBeCloseTo(1.4);
    expect(run.ratios.endToEndAfterStartupOverSource).toBeCloseTo(1.3);
  });

  it('leaves the checks after windows out of the loader, and in the Postgres CPU per million rows', () => {
    const withChecks = runFigures({
      collaborators: 1000,
      concurrency: 4,
      source: run.source,
      endToEnd: { ...run.endToEnd, checksPgCpuS: 0.8 },
      sink: { indexedPgCpuS: 2 },
      baseline: null,
    });
    expect(withChecks.ratios.loaderOverKeyedCopy).toBeCloseTo((2.8 - 0.8) / 2);
    expect(withChecks.perMillionRows.postgresCpuS).toBeCloseTo(2.8);
    expect(summaryTable(results([{ ...size(1000, []), runs: [withChecks] }], [4])).at(-1)).toContain(
      '| 0.8 s | n/a | 2.0 s | 2.0 s | **1.00×** | 1.40× |',
    );
  });

  it('has no baseline ratio for a size the baseline does not hold', () => {
    const other = size(3000, [{ c: 4, wallMs: 14_000, requests: 100, peak: 180, worker: 18, pg: 2.8 }])
      .runs[0]!;
    expect(other.ratios.workerCpuOverBaseline).toBeNull();
    expect(other.ratios.postgresCpuOverBaseline).toBeNull();
  });
});

describe('evaluateTargets', () => {
  const good = results([
    size(1000, [
      { c: 4, wallMs: 14_000, requests: 100, peak: 180, worker: 18, pg: 2.8 },
      { c: 8, wallMs: 13_000, requests: 100, peak: 190, worker: 19, pg: 2.9 },
    ]),
    size(10000, [
      { c: 4, wallMs: 14_000, requests: 100, peak: 190, worker: 18, pg: 2.8 },
      { c: 8, wallMs: 13_000, requests: 100, peak: 200, worker: 19, pg: 2.9 },
    ]),
  ]);

  it('judges the targets on every size and concurrency', () => {
    const v = evaluateTargets(good);
    expect(v.map((t) => [t.label, t.verdict])).toEqual([
      ['peak RSS ≤ 200 MiB at every size', 'met'],
      ['peak RSS growth, 10,000 ÷ 1,000 ≤ 1.1×', 'met'],
      ['requests made = requests the windows need, at every size', 'met'],
      [
        "loader (Postgres CPU less the checks after windows and the marts' upkeep) ≤ 1.5× COPY with keys, logged (Postgres CPU)",
        'met',
      ],
      ['end-to-end ÷ source floor ≤ 1.5× at every size, at concurrency 4 and 8', 'met'],
      ["worker CPU per million rows ≤ 0.5× fd14db9's", 'met'],
      ["Postgres CPU per million rows ≤ 0.5× fd14db9's", 'met'],
      [
        "upkeep of the marts plus the checks after each window ≤ 20% of the backfill's Postgres CPU, judged at 10,000 collaborators",
        'not measured',
      ],
      [
        'each example question of docs/warehouse.md answers in under 1 s (the slowest of three runs), judged at 10,000 collaborators',
        'not measured',
      ],
    ]);
    expect(v[0]!.figures).toHaveLength(4);
    // Growth compares the same concurrency: 190 ÷ 180 and 200 ÷ 190.
    expect(v[1]!.figures.map((g) => g.text)).toEqual(['1.06×', '1.05×']);
  });

  it('misses where a figure is over, and says where', () => {
    const bad = results(
      [
        size(1000, [{ c: 4, wallMs: 16_000, requests: 100, peak: 150, worker: 25, pg: 3.5 }]),
        size(10000, [{ c: 4, wallMs: 14_000, requests: 104, peak: 210, worker: 18, pg: 2.8 }]),
      ],
      [4],
    );
    const lines = targetLines(bad);
    expect(lines).toEqual([
      '- peak RSS ≤ 200 MiB at every size: 1,000: c4 150 MiB; 10,000: c4 210 MiB — MISSED at 10,000 c4',
      '- peak RSS growth, 10,000 ÷ 1,000 ≤ 1.1×: 10,000: c4 1.40× — MISSED at 10,000 c4',
      '- requests made = requests the windows need, at every size: 1,000: c4 100 = 100; 10,000: c4 104 ≠ 100 — MISSED at 10,000 c4',
      "- loader (Postgres CPU less the checks after windows and the marts' upkeep) ≤ 1.5× COPY with keys, logged (Postgres CPU): 1,000: c4 1.75×; 10,000: c4 1.40× — MISSED at 1,000 c4",
      '- end-to-end ÷ source floor ≤ 1.5× at every size, at concurrency 4: 1,000: c4 1.60×; 10,000: c4 1.40× — MISSED at 1,000 c4',
      "- worker CPU per million rows ≤ 0.5× fd14db9's: 1,000: c4 25.0 s (0.63×); 10,000: c4 18.0 s (n/a) — MISSED at 1,000 c4",
      "- Postgres CPU per million rows ≤ 0.5× fd14db9's: 1,000: c4 3.5 s (0.12×); 10,000: c4 2.8 s (n/a) — met where measured (1 n/a)",
      "- upkeep of the marts plus the checks after each window ≤ 20% of the backfill's Postgres CPU, judged at 10,000 collaborators: 1,000: c4 n/a; 10,000: c4 n/a — not measured",
      '- each example question of docs/warehouse.md answers in under 1 s (the slowest of three runs), judged at 10,000 collaborators: 1,000: n/a; 10,000: n/a — not measured',
    ]);
  });

  it('says not measured without a figure to judge', () => {
    const one = results(
      [size(3000, [{ c: 4, wallMs: 14_000, requests: 100, peak: 150, worker: null, pg: 3 }])],
      [4],
    );
    const v = evaluateTargets(one);
    expect(v[1]).toMatchObject({ verdict: 'not measured', figures: [] });
    expect(v[5]).toMatchObject({ verdict: 'not measured' });
    expect(targetLines(one)[1]).toBe(
      '- peak RSS growth, largest ÷ smallest size ≤ 1.1× (one size only): not measured',
    );
  });
});

describe('report tables', () => {
  const r = results([
    size(1000, [
      { c: 4, wallMs: 14_000, requests: 100, peak: 180, worker: 18, pg: 2.8 },
      { c: 8, wallMs: 13_000, requests: 101, peak: 190, worker: 19, pg: 2.9 },
    ]),
  ]);

  it('has one row per size and concurrency with requests needed and made, CPU per million rows and the loader ratio', () => {
    const t = summaryTable(r);
    expect(t[0]).toContain('| requests needed | requests made |');
    expect(t[0]).toContain('| worker CPU per M rows (÷ fd14db9) | Postgres CPU per M rows (÷ fd14db9) |');
    expect(t).toHaveLength(4);
    expect(t[2]).toBe(
      '| 1,000 | 3 | 4 | 100 | 100 | 1,000,000 | 10.0 s | 14.0 s | **1.40×** | 180 MiB | 18.0 s (0.45×) | 2.8 s (0.09×) | n/a | n/a | 2.8 s | 2.0 s | **1.40×** | 1.40× |',
    );
    expect(t[3]).toMatch(/^\| 1,000 \| 3 \| 8 \| 100 \| 101 \|/);
  });

  it('shows the quality checks column only when a size has them', () => {
    expect(perSizeTable(r)[0]).not.toContain('quality checks');
    expect(perSizeTable(r)[2]).toBe('| 1,000 | 1,000,000 | 0.5 s · 0.6 s | 1.5 s · 2.0 s |');
    const withChecks = results([
      size(1000, [{ c: 4, wallMs: 14_000, requests: 100, peak: 180, worker: 18, pg: 2.8 }], {
        checksMs: 2_345,
      }),
      size(3000, [{ c: 4, wallMs: 14_000, requests: 100, peak: 180, worker: 18, pg: 2.8 }]),
    ]);
    const t = perSizeTable(withChecks);
    expect(t[0]).toContain('| quality checks |');
    expect(t[2]).toMatch(/\| 2\.3 s \|$/);
    expect(t[3]).toMatch(/\| n\/a \|$/);
  });

  it('renders the README block: heading, tables, baseline, breakdown with loader busy (wall), targets', () => {
    const block = markdownBlock(r, 'bench/results/full-2026-12-01-abc1234.json');
    expect(block).toMatch(
      /^_full run, 2026-12-01 10:00 UTC, commit abc1234; .*concurrency 4, 8, 10000 rps; run took 10\.0 min\._/,
    );
    expect(block).toContain(
      'Figures: [`bench/results/full-2026-12-01-abc1234.json`](results/full-2026-12-01-abc1234.json).',
    );
    expect(block).toContain('CPU per million rows compared with commit fd14db9');
    expect(block).toContain('| loader busy (wall) |');
    expect(block).toContain('Rows per table (end-to-end at concurrency 4):');
    expect(block).toContain(
      '- requests made = requests the windows need, at every size: 1,000: c4 100 = 100, c8 101 ≠ 100 — MISSED at 1,000 c8',
    );
    expect(block).not.toMatch(/≤ 1\.3×|≤ 300 MiB|≤ 1\.25×/);
    expect(
      replaceBlock('<!-- bench:full:start -->\nold\n<!-- bench:full:end -->\n', 'full', block),
    ).toContain(block);
  });

  it('keeps the wall-clock loader union as loader busy (wall) and flags other databases at work', () => {
    const t = breakdownTable(r);
    expect(t[0]).toContain('| concurrency |');
    expect(t[2]).toContain('| 4 | 1 MiB | 1.0 s | 1.30× | 4.0 s | 2.0 s | 1.5 s |');
    expect(t[2]).toContain('| CPU 90%, IO:WALSync 10% |');
    const busy = {
      ...r,
      sizes: [
        {
          ...r.sizes[0]!,
          runs: [
            {
              ...r.sizes[0]!.runs[0]!,
              endToEnd: { ...r.sizes[0]!.runs[0]!.endToEnd, otherDatabasesActive: 0.42 },
            },
          ],
        },
      ],
    };
    expect(breakdownTable(busy)[2]).toContain(
      'CPU 90%, IO:WALSync 10%; other databases active in 42% of samples |',
    );
  });

  it('says why the CPU figures are not compared when there is no baseline', () => {
    const none = {
      ...r,
      baseline: null,
      baselineNote: 'the baseline f.json was measured with range 2025-05-01..2025-05-15',
    };
    expect(markdownBlock(none, undefined)).toContain(
      'CPU per million rows not compared: the baseline f.json was measured with range',
    );
  });
});

describe("issue 23's figures", () => {
  /** The marts' upkeep by step of a run: 0.6 CPU-s in all. */
  const MARTS = {
    'employee_daily:days': { statements: 30, cpuS: 0.3 },
    'employee_daily:overtime': { statements: 30, cpuS: 0.15 },
    monthly_headcount: { statements: 60, cpuS: 0.08 },
    'employments:register': { statements: 10, cpuS: 0.04 },
    calendar: { statements: 10, cpuS: 0.02 },
    companies: { statements: 10, cpuS: 0.01 },
  };
  /** 1 MiB of answers: 4 ns of JSON.parse per byte. */
  const JSON_PARSE = { requests: 100, bytes: 2 ** 20, cpuS: (4 * 2 ** 20) / 1e9, nsPerByte: 4 };
  const QUESTIONS = (slowMs: number, timedOut = false): QuestionFigures[] => [
    { name: 'headcount and turnover by department', runsMs: [3.25, 1.5, 1.2], rows: 7 },
    {
      name: 'hour-bank trend',
      runsMs: [slowMs / 2, slowMs, slowMs / 3],
      rows: 1234,
      ...(timedOut ? { timedOut: true as const } : {}),
    },
  ];
  const run = (pg: number, checks: number, marts: EndToEndFigures['martsBy'] = MARTS, c = 4): TestRun => ({
    c,
    wallMs: 14_000,
    requests: 100,
    peak: 180,
    worker: 0.168,
    pg,
    checks,
    marts,
  });

  it('takes the marts plus the checks as a share of the Postgres CPU, and the whole and the loader against keyed COPY', () => {
    const r = size(1000, [run(2.8, 0.8)], { jsonParse: JSON_PARSE }).runs[0]!;
    expect(r.endToEnd.martsPgCpuS).toBeCloseTo(0.6);
    expect(r.ratios.upkeepOverPostgres).toBeCloseTo((0.8 + 0.6) / 2.8);
    expect(r.ratios.postgresOverKeyedCopy).toBeCloseTo(2.8 / 2);
    expect(r.ratios.loaderOverKeyedCopy).toBeCloseTo((2.8 - 0.8 - 0.6) / 2);
  });

  it('divides the worker CPU per byte of answer by JSON.parse per byte of the same bodies', () => {
    // 0.168 CPU-s over 1 MiB is 160.2 ns per byte: 40 times JSON.parse's 4.
    const r = size(1000, [run(2.8, 0.8)], { jsonParse: JSON_PARSE }).runs[0]!;
    expect(r.ratios.workerOverJsonParse).toBeCloseTo(0.168e9 / 2 ** 20 / 4);
    expect(size(1000, [run(2.8, 0.8)]).runs[0]!.ratios.workerOverJsonParse).toBeNull();
  });

  it('has no share without the marts (results older than them), even with the checks', () => {
    const old = size(1000, [
      { c: 4, wallMs: 14_000, requests: 100, peak: 180, worker: 18, pg: 2.8, checks: 0.8 },
    ]).runs[0]!;
    expect(old.ratios.upkeepOverPostgres).toBeNull();
  });

  it('judges the share and the questions at 10,000 collaborators and shows the other sizes beside them', () => {
    const r = results([
      size(1000, [run(1, 0.3, { 'employee_daily:days': { statements: 3, cpuS: 0.3 } })], {
        questions: QUESTIONS(1500),
        jsonParse: JSON_PARSE,
      }),
      size(10000, [run(30, 3), run(30, 4, { 'employee_daily:days': { statements: 3, cpuS: 3 } }, 8)], {
        questions: QUESTIONS(640),
        jsonParse: JSON_PARSE,
      }),
    ]);
    expect(targetLines(r).slice(-2)).toEqual([
      "- upkeep of the marts plus the checks after each window ≤ 20% of the backfill's Postgres CPU, judged at 10,000 collaborators: 1,000: c4 60.0%; 10,000: c4 12.0%, c8 23.3% — MISSED at 10,000 c8",
      '- each example question of docs/warehouse.md answers in under 1 s (the slowest of three runs), judged at 10,000 collaborators: 1,000: 1,500 ms (hour-bank trend); 10,000: 640 ms (hour-bank trend) — met',
    ]);
  });

  it('misses the questions target on a slow or timed-out question at 10,000, and judges nothing without a run there', () => {
    const slow = results([size(10000, [run(30, 3)], { questions: QUESTIONS(1000) })], [4]);
    expect(targetLines(slow).at(-1)).toMatch(/10,000: 1,000 ms \(hour-bank trend\) — MISSED at 10,000$/);
    const cancelled = results([size(10000, [run(30, 3)], { questions: QUESTIONS(60_000, true) })], [4]);
    expect(targetLines(cancelled).at(-1)).toMatch(
      /10,000: > 60,000 ms \(hour-bank trend\) — MISSED at 10,000$/,
    );
    const quick = results(
      [
        size(1000, [run(1, 0.3)], { questions: QUESTIONS(5) }),
        size(3000, [run(3, 1)], { questions: QUESTIONS(9) }),
      ],
      [4],
    );
    expect(targetLines(quick).slice(-2)).toEqual([
      "- upkeep of the marts plus the checks after each window ≤ 20% of the backfill's Postgres CPU, judged at 10,000 collaborators: 1,000: c4 90.0%; 3,000: c4 53.3% — not judged (no run at that size)",
      '- each example question of docs/warehouse.md answers in under 1 s (the slowest of three runs), judged at 10,000 collaborators: 1,000: 5.0 ms (hour-bank trend); 3,000: 9.0 ms (hour-bank trend) — not judged (no run at that size)',
    ]);
  });

  it('names the costliest steps of the marts and sums the rest', () => {
    expect(martSteps(MARTS)).toBe(
      'employee_daily:days 0.3 s (30), employee_daily:overtime 0.1 s (30), monthly_headcount 0.1 s (60), employments:register 0.0 s (10), 2 more 0.0 s',
    );
    expect(martSteps(undefined)).toBe('n/a');
  });

  it('shows where the Postgres CPU goes, the worker per byte and the questions, per run and size', () => {
    const r = results(
      [
        size(1000, [run(2.8, 0.8)], { questions: QUESTIONS(640), jsonParse: JSON_PARSE }),
        size(3000, [run(2.8, 0.8)], { jsonParse: JSON_PARSE }),
      ],
      [4],
    );
    expect(postgresCpuTable(r)[2]).toBe(
      '| 1,000 | 4 | 2.8 s | 0.8 s | 0.6 s | 1.4 s | **50.0%** | employee_daily:days 0.3 s (30), employee_daily:overtime 0.1 s (30), monthly_headcount 0.1 s (60), employments:register 0.0 s (10), 2 more 0.0 s |',
    );
    expect(workerPerByteTable(r)[2]).toBe(
      '| 1,000 | 4 | 1 MiB | 0.2 s | 160.2 ns | 0.0 s · 4.0 ns | **40.05×** |',
    );
    expect(summaryTable(r)[2]).toMatch(
      /\| 0\.8 s \| 0\.6 s \| 1\.4 s \| 2\.0 s \| \*\*0\.70×\*\* \| 1\.40× \|$/,
    );
    expect(questionsTable(r)).toEqual([
      '| question | 1,000: slowest (runs) · rows | 3,000: slowest (runs) · rows |',
      '|---|---:|---:|',
      '| headcount and turnover by department | 3.3 ms (3.3 · 1.5 · 1.2) · 7 | n/a |',
      '| hour-bank trend | 640 ms (320 · 640 · 213) · 1,234 | n/a |',
    ]);
    const block = markdownBlock(r, undefined);
    expect(block).toContain("Where the backfill's Postgres CPU goes");
    expect(block).toContain('| **worker CPU per byte ÷ JSON.parse** |');
    expect(block).toContain('The example questions of docs/warehouse.md');
  });

  it('renders results written before these figures: n/a, no questions table, nothing thrown', () => {
    const old = results(
      [size(1000, [{ c: 4, wallMs: 14_000, requests: 100, peak: 180, worker: 18, pg: 2.8 }])],
      [4],
    );
    // A results file of before: its ratios lack the new fields altogether.
    const {
      upkeepOverPostgres: _u,
      postgresOverKeyedCopy: _p,
      workerOverJsonParse: _w,
      ...ratios
    } = old.sizes[0]!.runs[0]!.ratios;
    const before = { ...old, sizes: [{ ...old.sizes[0]!, runs: [{ ...old.sizes[0]!.runs[0]!, ratios }] }] };
    expect(questionsTable(before)).toEqual([]);
    expect(postgresCpuTable(before)[2]).toBe('| 1,000 | 4 | 2.8 s | n/a | n/a | 2.8 s | **n/a** | n/a |');
    expect(workerPerByteTable(before)[2]).toBe('| 1,000 | 4 | 1 MiB | 18.0 s | 17166.1 ns | n/a | **n/a** |');
    expect(summaryTable(before)[2]).toMatch(
      /\| n\/a \| n\/a \| 2\.8 s \| 2\.0 s \| \*\*1\.40×\*\* \| n\/a \|$/,
    );
    const block = markdownBlock(before, undefined);
    expect(block).not.toContain('The example questions of docs/warehouse.md');
    expect(block).toContain(
      'judged at 10,000 collaborators: 1,000: c4 n/a — not judged (no run at that size)',
    );
  });

  it('renders the committed results files of the current shape', () => {
    for (const file of [
      'bench/results/full-2026-11-25-36ff2aa.json',
      'bench/results/quick-2026-11-25-36ff2aa.json',
    ]) {
      const json = JSON.parse(readFileSync(file, 'utf8')) as BenchResults;
      const block = markdownBlock(json, file);
      expect(block, file).toContain('**n/a**');
      expect(block, file).toMatch(
        /upkeep of the marts plus the checks after each window .* — (not measured|not judged \(no run at that size\))/,
      );
    }
  });
});
