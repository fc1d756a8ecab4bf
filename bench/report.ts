/**
 * The figures as people read them (pure): the console summary with the two ratios, and
 * the Markdown tables of bench/README.md, with the issue's targets checked.
 */
import type { BenchResults, SizeFigures } from './results.js';

/** The issue's targets. */
export const TARGETS = {
  /** End-to-end at most this many times the source floor. */
  endToEndOverSource: 1.3,
  /** Loader time at most this many times the COPY floor. */
  loaderOverCopy: 2,
  /** Peak RSS of the worker, MiB. */
  peakRssMiB: 300,
  /** "Flat": the largest size's peak RSS at most this many times the smallest's. */
  rssGrowth: 1.25,
} as const;

const sec = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const x = (r: number | null) => (r === null ? 'n/a' : `${r.toFixed(2)}×`);
const int = (n: number) => Math.round(n).toLocaleString('en-US');
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;

function rowsOf(f: SizeFigures): number {
  return Object.values(f.endToEnd.rows).reduce((a, b) => a + b, 0);
}

/** One line per target: met or missed, and by how much. */
export function targetLines(r: BenchResults): string[] {
  const lines: string[] = [];
  const check = (label: string, value: number | null, target: number, unit: string) => {
    if (value === null) return `- ${label}: not measured`;
    const met = value <= target;
    const by = met ? '' : ` — missed by ${((value / target - 1) * 100).toFixed(0)}%`;
    return `- ${label}: ${value.toFixed(unit === ' MiB' ? 0 : 2)}${unit} (target ≤ ${target}${unit}) ${met ? 'met' : 'MISSED'}${by}`;
  };
  for (const f of r.sizes) {
    const n = int(f.collaborators);
    lines.push(check(`${n}: end-to-end ÷ source floor`, f.ratios.endToEndOverSource, TARGETS.endToEndOverSource, '×'));
    lines.push(check(`${n}: loader ÷ COPY floor`, f.ratios.loaderOverCopy, TARGETS.loaderOverCopy, '×'));
    lines.push(check(`${n}: peak RSS`, f.endToEnd.peakRssMiB, TARGETS.peakRssMiB, ' MiB'));
  }
  if (r.sizes.length > 1) {
    const first = r.sizes[0]!.endToEnd.peakRssMiB;
    const last = r.sizes[r.sizes.length - 1]!.endToEnd.peakRssMiB;
    lines.push(check('peak RSS growth, largest ÷ smallest size', last / first, TARGETS.rssGrowth, '×'));
  }
  return lines;
}

/** The summary table (Markdown; also readable on a console). */
export function summaryTable(r: BenchResults): string[] {
  const lines = [
    '| collaborators | companies | requests | rows | source floor | end-to-end | **e2e ÷ source** | COPY floor | loader | **loader ÷ COPY** | COPY with keys, logged (loader ÷ it) | peak RSS |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const f of r.sizes) {
    lines.push(
      `| ${int(f.collaborators)} | ${f.companies} | ${int(f.endToEnd.requests)} | ${int(rowsOf(f))} | ${sec(f.source.ms)} | ` +
        `${sec(f.endToEnd.wallMs)} | **${x(f.ratios.endToEndOverSource)}** | ${sec(f.sink.ms)} | ` +
        `${f.endToEnd.loader ? sec(f.endToEnd.loader.busyMs) : 'n/a'} | **${x(f.ratios.loaderOverCopy)}** | ` +
        `${sec(f.sink.indexedMs)} (${x(f.ratios.loaderOverIndexedCopy)}) | ${f.endToEnd.peakRssMiB} MiB |`,
    );
  }
  return lines;
}

/** The largest wait-event shares of the backfill's Postgres backends, e.g. `CPU 62%, Lock:transactionid 30%`. */
export function waitShares(waits: Record<string, number>, top = 3): string {
  const total = Object.values(waits).reduce((a, b) => a + b, 0);
  if (total === 0) return 'n/a';
  return Object.entries(waits)
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([k, n]) => `${k} ${Math.round((n / total) * 100)}%`)
    .join(', ');
}

/** Where the end-to-end time goes: spans inside the worker, and CPU of the three processes. */
export function breakdownTable(r: BenchResults): string[] {
  const lines = [
    '| collaborators | response bytes | startup | (e2e − startup) ÷ source | HTTP busy | loader busy | of which in transactions | worker CPU | emulator CPU | Postgres CPU | CPU used ÷ available | CPU of other processes · stolen | Postgres backends (samples) | RSS at first request → peak |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|',
  ];
  const cores = r.machine.cores;
  for (const f of r.sizes) {
    const e = f.endToEnd;
    const opt = (ms: number | null | undefined) => (ms === null || ms === undefined ? 'n/a' : sec(ms));
    const used = (e.workerCpuS ?? 0) + e.emulatorCpuS + e.postgresCpuS;
    lines.push(
      `| ${int(f.collaborators)} | ${mib(f.source.bytes)} | ${opt(e.startupMs)} | ${x(f.ratios.endToEndAfterStartupOverSource)} | ` +
        `${opt(e.http?.busyMs)} | ${opt(e.loader?.busyMs)} | ` +
        `${opt(e.transactions?.busyMs)} | ${e.workerCpuS === null ? 'n/a' : `${e.workerCpuS.toFixed(1)} s`} | ` +
        `${e.emulatorCpuS.toFixed(1)} s | ${e.postgresCpuS.toFixed(1)} s | ${Math.round((used / (cores * (e.wallMs / 1000))) * 100)}% | ` +
        `${Math.max(0, e.machine.busyS - used).toFixed(1)} s · ${e.machine.stealS.toFixed(1)} s | ` +
        `${waitShares(e.dbWaits)} | ${e.baselineRssMiB ?? 'n/a'} → ${e.peakRssMiB} MiB |`,
    );
  }
  return lines;
}

/** Tables below this many rows at the largest size are summed into one line. */
const SMALL_TABLE_ROWS = 500;

/** Rows per second per table: end-to-end (rows ÷ wall time) and COPY floor; small tables summed. */
export function tableRatesTable(r: BenchResults): string[] {
  const largest = r.sizes[r.sizes.length - 1]!.endToEnd.rows;
  const all = [...new Set(r.sizes.flatMap((f) => Object.keys(f.endToEnd.rows)))];
  const big = all.filter((t) => (largest[t] ?? 0) >= SMALL_TABLE_ROWS).sort((a, b) => (largest[b] ?? 0) - (largest[a] ?? 0));
  const small = all.filter((t) => !big.includes(t));
  const head = r.sizes.map((f) => `${int(f.collaborators)}: rows · e2e rows/s · COPY rows/s`);
  const lines = [`| table | ${head.join(' | ')} |`, `|---|${r.sizes.map(() => '---:').join('|')}|`];
  const row = (label: string, tables: readonly string[]) => {
    const cells = r.sizes.map((f) => {
      const present = tables.filter((t) => f.endToEnd.rows[t] !== undefined);
      if (present.length === 0) return '–';
      const rows = present.reduce((a, t) => a + f.endToEnd.rows[t]!, 0);
      const copyMs = present.reduce((a, t) => a + (f.sink.byTable[t]?.ms ?? 0), 0);
      const e2e = rows / (f.endToEnd.wallMs / 1000);
      return `${int(rows)} · ${int(e2e)} · ${copyMs > 0 ? int(rows / (copyMs / 1000)) : 'n/a'}`;
    });
    lines.push(`| ${label} | ${cells.join(' | ')} |`);
  };
  for (const t of big) row(t, [t]);
  if (small.length > 0) row(`${small.length} small tables (${small.join(', ')})`, small);
  return lines;
}

/** The heading line of a run: machine, date, commit, settings. */
export function runHeading(r: BenchResults): string {
  const m = r.machine;
  return (
    `${r.mode} run, ${r.date.slice(0, 16).replace('T', ' ')} UTC, commit ${m.commit}${m.dirty ? ' (with uncommitted changes)' : ''}; ` +
    `${m.cores} × ${m.cpu}, ${m.memoryGiB} GiB, Node ${m.node}, PostgreSQL ${m.postgres}; ` +
    `load ${m.loadAtStart} → ${r.loadAtEnd}; range ${r.settings.from}..${r.settings.to}, resources ${r.settings.resources.join(', ')}; ` +
    `concurrency ${r.settings.concurrency}, ${r.settings.rps} rps; run took ${(r.durationS / 60).toFixed(1)} min`
  );
}

/** The Markdown block written into bench/README.md. */
export function markdownBlock(r: BenchResults, jsonPath: string | undefined): string {
  return [
    `_${runHeading(r)}._${jsonPath ? ` Figures: [\`${jsonPath}\`](${jsonPath.replace(/^bench\//, '')}).` : ''}`,
    '',
    ...summaryTable(r),
    '',
    'Where the end-to-end time goes ("busy": wall time with at least one running; CPU over the backfill\'s wall time on all cores):',
    '',
    ...breakdownTable(r),
    '',
    'Rows per table:',
    '',
    ...tableRatesTable(r),
    '',
    'Targets:',
    '',
    ...targetLines(r),
  ].join('\n');
}
