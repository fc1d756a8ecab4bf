/**
 * Figures derived from the measurements (pure, apart from reading the baseline's files):
 * CPU-seconds per million rows, the ratios of a run, and the baseline the CPU targets
 * are judged against — the last run before the streaming engine (commit fd14db9), read
 * from a committed results file of a run of that commit on the same kind of machine.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { MachineInfo } from './machine.js';
import type { BenchMode } from './options.js';
import type {
  BaselineFigures,
  EndToEndFigures,
  JsonParseFigures,
  RunFigures,
  SinkFigures,
  SourceFigures,
} from './results.js';

/** Commit of the baseline ("today" of the CPU targets). */
export const BASELINE_COMMIT = 'fd14db9';

/** Where results files are, relative to the repository root. */
export const RESULTS_DIR = 'bench/results';

/**
 * The baseline's results files of `mode` under `root` (`<mode>-<date>-fd14db9.json`),
 * relative to the root, newest first: each mode is compared with the same mode (same range).
 */
export function baselineFiles(root: string, mode: BenchMode): string[] {
  let names: string[];
  try {
    names = readdirSync(join(root, RESULTS_DIR));
  } catch {
    return [];
  }
  const pattern = new RegExp(`^${mode}-(\\d{4}-\\d{2}-\\d{2})-${BASELINE_COMMIT}\\.json$`);
  return names
    .filter((n) => pattern.test(n))
    .sort()
    .reverse()
    .map((n) => `${RESULTS_DIR}/${n}`);
}

/** `a ÷ b`; null when either is unknown or `b` is not positive. */
export function ratio(a: number | null | undefined, b: number | null | undefined): number | null {
  if (a === null || a === undefined || b === null || b === undefined || !(b > 0)) return null;
  return a / b;
}

/** CPU-seconds per million rows; null when the CPU is unknown or no row was loaded. */
export function perMillionRows(cpuS: number | null | undefined, rows: number): number | null {
  return ratio(cpuS, rows / 1e6);
}

/** Rows in all of a `rows` per table map. */
export function totalRows(rows: Readonly<Record<string, number>>): number {
  return Object.values(rows).reduce((a, b) => a + b, 0);
}

/** The settings a baseline must share with the run to compare with it. */
export interface ComparableSettings {
  readonly from: string;
  readonly to: string;
  readonly today: string;
  readonly seed: string;
  readonly resources: readonly string[];
}

interface OldEndToEnd {
  workerCpuS?: number | null;
  postgresCpuS?: number;
  rows?: Record<string, number>;
}
interface AnyResults {
  date?: string;
  machine?: { commit?: string; cpu?: string; cores?: number };
  settings?: Partial<ComparableSettings>;
  sizes?: { collaborators?: number; endToEnd?: OldEndToEnd; runs?: { endToEnd?: OldEndToEnd }[] }[];
}

/**
 * The baseline's figures from a parsed results file (either shape: one end-to-end per
 * size, or `runs` — the first run is taken); a sentence saying why when it does not
 * compare with `settings` (another range, seed or set of resources) or holds no size.
 */
export function baselineFrom(
  json: unknown,
  file: string,
  settings: ComparableSettings,
): BaselineFigures | string {
  const r = json as AnyResults;
  const s = r?.settings;
  if (!s || !Array.isArray(r.sizes)) return `${file} is not a results file`;
  const differs: string[] = [];
  if (s.from !== settings.from || s.to !== settings.to) differs.push(`range ${s.from}..${s.to}`);
  if (s.today !== settings.today) differs.push(`today ${s.today}`);
  if (s.seed !== settings.seed) differs.push(`seed ${s.seed}`);
  if ([...(s.resources ?? [])].sort().join(',') !== [...settings.resources].sort().join(','))
    differs.push('other resources');
  if (differs.length > 0) return `the baseline ${file} was measured with ${differs.join(', ')}`;
  const bySize: BaselineFigures['bySize'] = {};
  for (const size of r.sizes) {
    const e = size.endToEnd ?? size.runs?.[0]?.endToEnd;
    if (size.collaborators === undefined || !e?.rows) continue;
    const rows = totalRows(e.rows);
    bySize[String(size.collaborators)] = {
      rows,
      workerCpuPerMRows: perMillionRows(e.workerCpuS, rows),
      postgresCpuPerMRows: perMillionRows(e.postgresCpuS, rows),
    };
  }
  return {
    commit: r.machine?.commit ?? BASELINE_COMMIT,
    file,
    ...(r.date ? { date: r.date.slice(0, 10) } : {}),
    ...(r.machine?.cpu ? { machine: { cpu: r.machine.cpu, cores: r.machine.cores ?? 0 } } : {}),
    bySize,
  };
}

/**
 * The baseline of `mode` under `root` measured on the same kind of machine as this run
 * (same CPU model and cores; the newest such file); a sentence saying why when there is
 * none to compare with. CPU-seconds measured on another CPU compare the machines, not the
 * code: the same fd14db9 backfill took 2.5 times the worker CPU on the AMD EPYC of
 * 2026-11-22 that it took on the Intel Xeon of 2026-11-25.
 */
export function loadBaseline(
  root: string,
  mode: BenchMode,
  settings: ComparableSettings,
  machine: Pick<MachineInfo, 'cpu' | 'cores'>,
): BaselineFigures | string {
  const others: string[] = [];
  const unusable: string[] = [];
  for (const file of baselineFiles(root, mode)) {
    let json: unknown;
    try {
      json = JSON.parse(readFileSync(join(root, file), 'utf8'));
    } catch (err) {
      unusable.push(`${file} could not be read (${(err as Error).message})`);
      continue;
    }
    const b = baselineFrom(json, file, settings);
    if (typeof b === 'string') {
      unusable.push(b);
      continue;
    }
    if (b.machine?.cpu === machine.cpu && b.machine.cores === machine.cores) return b;
    others.push(`${file} (${b.machine?.cpu ?? 'unknown CPU'}, ${b.machine?.cores ?? '?'} cores)`);
  }
  const here = `${machine.cpu}, ${machine.cores} cores`;
  if (others.length > 0) {
    return `no ${mode} run of ${BASELINE_COMMIT} on this kind of machine (${here}), only ${others.join(', ')}: CPU-seconds of another machine compare the machines, not the code; bench/baseline.sh measures ${BASELINE_COMMIT} here`;
  }
  if (unusable.length > 0) return unusable.join('; ');
  return `no ${mode} results of ${BASELINE_COMMIT} in ${RESULTS_DIR}; bench/baseline.sh measures it here`;
}

/** The loader figure: the backfill's Postgres CPU less that of the checks after each window and of the marts' upkeep, s. */
export function loaderPgCpuS(
  e: Pick<EndToEndFigures, 'postgresCpuS' | 'checksPgCpuS' | 'martsPgCpuS'>,
): number {
  return e.postgresCpuS - (e.checksPgCpuS ?? 0) - (e.martsPgCpuS ?? 0);
}

/**
 * The marts' upkeep plus the checks after each window, as a share of the backfill's
 * Postgres CPU; null when either was not measured (results older than them).
 */
export function upkeepShare(
  e: Pick<EndToEndFigures, 'postgresCpuS' | 'checksPgCpuS' | 'martsPgCpuS'>,
): number | null {
  if (e.checksPgCpuS === undefined || e.martsPgCpuS === undefined) return null;
  return ratio(e.checksPgCpuS + e.martsPgCpuS, e.postgresCpuS);
}

/** CPU-seconds over bytes, in ns per byte; null when either is unknown. */
export function nsPerByte(cpuS: number | null | undefined, bytes: number): number | null {
  const r = ratio(cpuS, bytes);
  return r === null ? null : r * 1e9;
}

/** Everything measured for one size at one concurrency, with the derived figures. */
export function runFigures(input: {
  readonly collaborators: number;
  readonly concurrency: number;
  readonly source: SourceFigures;
  readonly endToEnd: EndToEndFigures;
  readonly sink: Pick<SinkFigures, 'indexedPgCpuS'>;
  readonly baseline: BaselineFigures | null;
  /** The plain `JSON.parse` of the size's bodies, when measured. */
  readonly jsonParse?: Pick<JsonParseFigures, 'nsPerByte'>;
}): RunFigures {
  const { source, endToEnd: e } = input;
  const rows = totalRows(e.rows);
  const perM = {
    workerCpuS: perMillionRows(e.workerCpuS, rows),
    postgresCpuS: perMillionRows(e.postgresCpuS, rows),
  };
  const base = input.baseline?.bySize[String(input.collaborators)];
  return {
    concurrency: input.concurrency,
    source,
    endToEnd: e,
    rows,
    perMillionRows: perM,
    ratios: {
      endToEndOverSource: e.wallMs / source.ms,
      endToEndAfterStartupOverSource: e.startupMs === null ? null : (e.wallMs - e.startupMs) / source.ms,
      loaderOverKeyedCopy: ratio(loaderPgCpuS(e), input.sink.indexedPgCpuS),
      workerCpuOverBaseline: ratio(perM.workerCpuS, base?.workerCpuPerMRows),
      postgresCpuOverBaseline: ratio(perM.postgresCpuS, base?.postgresCpuPerMRows),
      upkeepOverPostgres: upkeepShare(e),
      postgresOverKeyedCopy: ratio(e.postgresCpuS, input.sink.indexedPgCpuS),
      workerOverJsonParse: ratio(nsPerByte(e.workerCpuS, source.bytes), input.jsonParse?.nsPerByte),
    },
  };
}
