/**
 * The figures as people read them (pure): the console summary, and the Markdown tables
 * of bench/README.md, with the issue's targets checked.
 */
import { BASELINE_COMMIT, loaderPgCpuS, nsPerByte } from './figures.js';
import type { BenchResults, EndToEndFigures, QuestionFigures, RunFigures, SizeFigures } from './results.js';

/** The issues' targets (issue 12, with issue 15's and issue 23's). */
export const TARGETS = {
  /** Peak RSS of the backfill process at every size and concurrency, MiB. */
  peakRssMiB: 200,
  /** The largest size's peak RSS at most this many times the smallest's (same concurrency). */
  rssGrowth: 1.1,
  /** Loader (Postgres CPU of the backfill) at most this many times the Postgres CPU of "COPY with keys, logged". */
  loaderOverKeyedCopy: 1.5,
  /** End-to-end at most this many times the source floor at the same concurrency. */
  endToEndOverSource: 1.5,
  /** Worker and Postgres CPU-seconds per million rows at most this many times the baseline's. */
  cpuOverBaseline: 0.5,
  /** `punchline verify`'s checks over a size's warehouse at most this share of its backfill's end-to-end time (issue 15). */
  checksOverBackfill: 0.1,
  /** The marts' upkeep plus the checks after each window at most this share of the backfill's Postgres CPU (issue 23). */
  upkeepOverPostgres: 0.2,
  /** Each example question of docs/warehouse.md answers in under this many ms, the slowest of its three runs (issue 23). */
  exampleQuestionMs: 1000,
  /** Collaborators at which issue 23's targets are judged (the other sizes are shown beside them). */
  judgedAt: 10_000,
} as const;

const sec = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const cpu = (s: number | null | undefined) => (s === null || s === undefined ? 'n/a' : `${s.toFixed(1)} s`);
const x = (r: number | null) => (r === null ? 'n/a' : `${r.toFixed(2)}×`);
const int = (n: number) => Math.round(n).toLocaleString('en-US');
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
const pct = (r: number | null | undefined) =>
  r === null || r === undefined ? 'n/a' : `${(r * 100).toFixed(1)}%`;
const ns = (v: number | null) => (v === null ? 'n/a' : `${v.toFixed(1)} ns`);
/** A question's time: tenths below 10 ms, whole ms above. */
const qms = (ms: number) => (ms < 10 ? ms.toFixed(1) : Math.round(ms).toLocaleString('en-US'));

/** Every (size, run) pair in order. */
function eachRun(r: BenchResults): { f: SizeFigures; run: RunFigures }[] {
  return r.sizes.flatMap((f) => f.runs.map((run) => ({ f, run })));
}

/** One figure of a target: where it was taken, as shown, and whether it meets the target (null: not measured). */
export interface TargetFigure {
  /** Collaborators. */
  readonly size: number;
  /** Concurrency (null for a figure over sizes). */
  readonly concurrency: number | null;
  readonly text: string;
  readonly met: boolean | null;
  /** False for a figure shown beside the judged ones (another size than the target names), not judged. */
  readonly judged?: boolean;
}

/** A target and its verdict over all its figures. */
export interface TargetVerdict {
  readonly label: string;
  readonly figures: readonly TargetFigure[];
  /** `met` when every measured figure meets it, `MISSED` when one does not, `not measured` when none was taken. */
  readonly verdict: 'met' | 'MISSED' | 'not measured';
}

const isJudged = (g: TargetFigure) => g.judged !== false;

function verdict(label: string, figures: TargetFigure[]): TargetVerdict {
  const measured = figures.filter((g) => isJudged(g) && g.met !== null);
  const v = measured.length === 0 ? 'not measured' : measured.every((g) => g.met) ? 'met' : 'MISSED';
  return { label, figures, verdict: v };
}

/** Checks every target on every size and concurrency (pure). */
export function evaluateTargets(r: BenchResults): TargetVerdict[] {
  const runs = eachRun(r);
  const per = (
    value: (run: RunFigures, f: SizeFigures) => number | null,
    limit: number,
    show: (v: number) => string,
  ) =>
    runs.map(({ f, run }): TargetFigure => {
      const v = value(run, f);
      return {
        size: f.collaborators,
        concurrency: run.concurrency,
        text: v === null ? 'n/a' : show(v),
        met: v === null ? null : v <= limit,
      };
    });
  const out: TargetVerdict[] = [];
  out.push(
    verdict(
      `peak RSS ≤ ${TARGETS.peakRssMiB} MiB at every size`,
      per(
        (run) => run.endToEnd.peakRssMiB,
        TARGETS.peakRssMiB,
        (v) => `${v} MiB`,
      ),
    ),
  );
  const first = r.sizes[0];
  const last = r.sizes[r.sizes.length - 1];
  if (first && last && r.sizes.length > 1) {
    const growth = last.runs.map((run): TargetFigure => {
      const base = first.runs.find((b) => b.concurrency === run.concurrency);
      const g =
        base && base.endToEnd.peakRssMiB > 0 ? run.endToEnd.peakRssMiB / base.endToEnd.peakRssMiB : null;
      return {
        size: last.collaborators,
        concurrency: run.concurrency,
        text: x(g),
        met: g === null ? null : g <= TARGETS.rssGrowth,
      };
    });
    out.push(
      verdict(
        `peak RSS growth, ${int(last.collaborators)} ÷ ${int(first.collaborators)} ≤ ${TARGETS.rssGrowth}×`,
        growth,
      ),
    );
  } else {
    out.push(verdict(`peak RSS growth, largest ÷ smallest size ≤ ${TARGETS.rssGrowth}× (one size only)`, []));
  }
  out.push(
    verdict(
      'requests made = requests the windows need, at every size',
      runs.map(({ f, run }) => ({
        size: f.collaborators,
        concurrency: run.concurrency,
        text: `${int(run.endToEnd.requests)} ${run.endToEnd.requests === f.plannedRequests ? '=' : '≠'} ${int(f.plannedRequests)}`,
        met: run.endToEnd.requests === f.plannedRequests,
      })),
    ),
  );
  out.push(
    verdict(
      `loader (Postgres CPU less the checks after windows and the marts' upkeep) ≤ ${TARGETS.loaderOverKeyedCopy}× COPY with keys, logged (Postgres CPU)`,
      per((run) => run.ratios.loaderOverKeyedCopy, TARGETS.loaderOverKeyedCopy, x),
    ),
  );
  out.push(
    verdict(
      `end-to-end ÷ source floor ≤ ${TARGETS.endToEndOverSource}× at every size, at concurrency ${r.settings.concurrency.join(' and ')}`,
      per((run) => run.ratios.endToEndOverSource, TARGETS.endToEndOverSource, x),
    ),
  );
  const vsBaseline = (which: 'workerCpuS' | 'postgresCpuS') => (run: RunFigures) =>
    which === 'workerCpuS' ? run.ratios.workerCpuOverBaseline : run.ratios.postgresCpuOverBaseline;
  for (const [which, name] of [
    ['workerCpuS', 'worker'],
    ['postgresCpuS', 'Postgres'],
  ] as const) {
    out.push(
      verdict(
        `${name} CPU per million rows ≤ ${TARGETS.cpuOverBaseline}× ${BASELINE_COMMIT}'s`,
        runs.map(({ f, run }): TargetFigure => {
          const v = vsBaseline(which)(run);
          const abs = run.perMillionRows[which];
          return {
            size: f.collaborators,
            concurrency: run.concurrency,
            text: `${cpu(abs)} (${x(v)})`,
            met: v === null ? null : v <= TARGETS.cpuOverBaseline,
          };
        }),
      ),
    );
  }
  if (r.sizes.some((f) => f.checksMs !== undefined)) {
    out.push(
      verdict(
        `quality checks (punchline verify) ≤ ${TARGETS.checksOverBackfill * 100}% of the backfill's end-to-end time`,
        r.sizes.map((f): TargetFigure => {
          const backfill = f.runs[0]?.endToEnd.wallMs;
          const share = f.checksMs === undefined || !backfill ? null : f.checksMs / backfill;
          return {
            size: f.collaborators,
            concurrency: f.runs[0]?.concurrency ?? null,
            text: share === null ? 'n/a' : `${sec(f.checksMs!)} = ${(share * 100).toFixed(1)}%`,
            met: share === null ? null : share <= TARGETS.checksOverBackfill,
          };
        }),
      ),
    );
  }
  const judged = (f: SizeFigures) => f.collaborators === TARGETS.judgedAt;
  const at = `judged at ${int(TARGETS.judgedAt)} collaborators`;
  out.push(
    verdict(
      `upkeep of the marts plus the checks after each window ≤ ${TARGETS.upkeepOverPostgres * 100}% of the backfill's Postgres CPU, ${at}`,
      runs.map(({ f, run }): TargetFigure => {
        const v = run.ratios.upkeepOverPostgres ?? null;
        return {
          size: f.collaborators,
          concurrency: run.concurrency,
          text: pct(v),
          met: v === null ? null : v <= TARGETS.upkeepOverPostgres,
          judged: judged(f),
        };
      }),
    ),
  );
  out.push(
    verdict(
      `each example question of docs/warehouse.md answers in under ${TARGETS.exampleQuestionMs / 1000} s (the slowest of three runs), ${at}`,
      r.sizes.map((f): TargetFigure => {
        const q = slowestQuestion(f.questions);
        const text = q === null ? 'n/a' : `${q.timedOut ? '> ' : ''}${qms(q.ms)} ms (${q.name})`;
        return {
          size: f.collaborators,
          concurrency: null,
          text,
          met: q === null ? null : !q.timedOut && q.ms < TARGETS.exampleQuestionMs,
          judged: judged(f),
        };
      }),
    ),
  );
  return out;
}

/** The slowest run of any question of a size; null when none was asked. */
function slowestQuestion(
  questions: readonly QuestionFigures[] | undefined,
): { name: string; ms: number; timedOut: boolean } | null {
  let slowest: { name: string; ms: number; timedOut: boolean } | null = null;
  for (const q of questions ?? []) {
    const ms = Math.max(...q.runsMs);
    if (slowest === null || ms > slowest.ms) slowest = { name: q.name, ms, timedOut: q.timedOut === true };
  }
  return slowest;
}

/** `1,000: c4 182 MiB, c8 190 MiB; 3,000: …` */
function figuresText(figures: readonly TargetFigure[]): string {
  const bySize = new Map<number, TargetFigure[]>();
  for (const g of figures) bySize.set(g.size, [...(bySize.get(g.size) ?? []), g]);
  return [...bySize]
    .map(
      ([size, gs]) =>
        `${int(size)}: ${gs.map((g) => `${g.concurrency === null ? '' : `c${g.concurrency} `}${g.text}`).join(', ')}`,
    )
    .join('; ');
}

/** One line per target: its figures, met / MISSED (and where) / not measured. */
export function targetLines(r: BenchResults): string[] {
  return evaluateTargets(r).map((t) => {
    const judgedFigures = t.figures.filter(isJudged);
    const missed = judgedFigures
      .filter((g) => g.met === false)
      .map((g) => `${int(g.size)}${g.concurrency === null ? '' : ` c${g.concurrency}`}`);
    const unmeasured = judgedFigures.filter((g) => g.met === null).length;
    const tail =
      t.verdict === 'MISSED'
        ? `MISSED at ${missed.join(', ')}`
        : t.verdict === 'met' && unmeasured > 0
          ? `met where measured (${unmeasured} n/a)`
          : t.verdict === 'not measured' && judgedFigures.length === 0 && t.figures.length > 0
            ? 'not judged (no run at that size)'
            : t.verdict;
    return `- ${t.label}: ${t.figures.length > 0 ? `${figuresText(t.figures)} — ` : ''}${tail}`;
  });
}

/** The summary table (Markdown; also readable on a console): one row per size and concurrency. */
export function summaryTable(r: BenchResults): string[] {
  const b = BASELINE_COMMIT;
  const lines = [
    `| collaborators | companies | concurrency | requests needed | requests made | rows | source floor | end-to-end | **e2e ÷ source** | peak RSS | worker CPU per M rows (÷ ${b}) | Postgres CPU per M rows (÷ ${b}) | Postgres CPU: checks after windows | marts' upkeep | loader (the rest) | COPY with keys, logged (Postgres CPU) | **loader ÷ keyed COPY** | whole backfill ÷ keyed COPY |`,
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const { f, run } of eachRun(r)) {
    const e = run.endToEnd;
    lines.push(
      `| ${int(f.collaborators)} | ${f.companies} | ${run.concurrency} | ${int(f.plannedRequests)} | ${int(e.requests)} | ${int(run.rows)} | ` +
        `${sec(run.source.ms)} | ${sec(e.wallMs)} | **${x(run.ratios.endToEndOverSource)}** | ${e.peakRssMiB} MiB | ` +
        `${cpu(run.perMillionRows.workerCpuS)} (${x(run.ratios.workerCpuOverBaseline)}) | ` +
        `${cpu(run.perMillionRows.postgresCpuS)} (${x(run.ratios.postgresCpuOverBaseline)}) | ` +
        `${cpu(e.checksPgCpuS)} | ${cpu(e.martsPgCpuS)} | ${cpu(loaderPgCpuS(e))} | ${cpu(f.sink.indexedPgCpuS)} | ` +
        `**${x(run.ratios.loaderOverKeyedCopy)}** | ${x(run.ratios.postgresOverKeyedCopy ?? null)} |`,
    );
  }
  return lines;
}

/** Once per size, on the rows of its first end-to-end: the sink floors, and the quality checks when timed. */
export function perSizeTable(r: BenchResults): string[] {
  const checks = r.sizes.some((f) => f.checksMs !== undefined);
  const lines = [
    `| collaborators | rows copied | COPY floor, unlogged (wall · Postgres CPU) | COPY with keys, logged (wall · Postgres CPU) |${checks ? ' quality checks |' : ''}`,
    `|---:|---:|---:|---:|${checks ? '---:|' : ''}`,
  ];
  for (const f of r.sizes) {
    const k = f.sink;
    lines.push(
      `| ${int(f.collaborators)} | ${int(k.rows)} | ${sec(k.ms)} · ${cpu(k.pgCpuS)} | ${sec(k.indexedMs)} · ${cpu(k.indexedPgCpuS)} |` +
        (checks ? ` ${f.checksMs === undefined ? 'n/a' : sec(f.checksMs)} |` : ''),
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
    '| collaborators | concurrency | response bytes | startup | (e2e − startup) ÷ source | HTTP busy | loader busy (wall) | of which in transactions | worker CPU | emulator CPU | Postgres CPU | CPU used ÷ available | CPU of other processes · stolen | Postgres backends (samples) | RSS at first request → peak |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|',
  ];
  const cores = r.machine.cores;
  for (const { f, run } of eachRun(r)) {
    const e = run.endToEnd;
    const opt = (ms: number | null | undefined) => (ms === null || ms === undefined ? 'n/a' : sec(ms));
    const used = (e.workerCpuS ?? 0) + e.emulatorCpuS + e.postgresCpuS;
    lines.push(
      `| ${int(f.collaborators)} | ${run.concurrency} | ${mib(run.source.bytes)} | ${opt(e.startupMs)} | ${x(run.ratios.endToEndAfterStartupOverSource)} | ` +
        `${opt(e.http?.busyMs)} | ${opt(e.loader?.busyMs)} | ` +
        `${opt(e.transactions?.busyMs)} | ${cpu(e.workerCpuS)} | ${cpu(e.emulatorCpuS)} | ${cpu(e.postgresCpuS)} | ${Math.round((used / (cores * (e.wallMs / 1000))) * 100)}% | ` +
        `${Math.max(0, e.machine.busyS - used).toFixed(1)} s · ${e.machine.stealS.toFixed(1)} s | ` +
        `${waitShares(e.dbWaits)}${e.otherDatabasesActive ? `; other databases active in ${Math.round(e.otherDatabasesActive * 100)}% of samples` : ''} | ` +
        `${e.baselineRssMiB ?? 'n/a'} → ${e.peakRssMiB} MiB |`,
    );
  }
  return lines;
}

/** Steps of the marts' upkeep named one by one in the table; the rest are summed. */
const MART_STEPS_SHOWN = 4;

/** `employee_daily:coverage 1.2 s (450), …, 6 more 0.3 s`: the marts' upkeep by step, costliest first (statements in brackets). */
export function martSteps(by: EndToEndFigures['martsBy']): string {
  const steps = Object.entries(by ?? {}).sort((a, b) => b[1].cpuS - a[1].cpuS);
  if (steps.length === 0) return 'n/a';
  const shown = steps
    .slice(0, MART_STEPS_SHOWN)
    .map(([step, v]) => `${step} ${cpu(v.cpuS)} (${int(v.statements)})`);
  const rest = steps.slice(MART_STEPS_SHOWN);
  if (rest.length > 0) shown.push(`${rest.length} more ${cpu(rest.reduce((a, [, v]) => a + v.cpuS, 0))}`);
  return shown.join(', ');
}

/** Where the backfill's Postgres CPU goes: the checks after each window, the marts' upkeep (by step), the loads. */
export function postgresCpuTable(r: BenchResults): string[] {
  const lines = [
    "| collaborators | concurrency | Postgres CPU | checks after windows | marts' upkeep | loader (the rest) | **marts + checks ÷ Postgres CPU** | marts' upkeep by step (CPU, statements) |",
    '|---:|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const { f, run } of eachRun(r)) {
    const e = run.endToEnd;
    lines.push(
      `| ${int(f.collaborators)} | ${run.concurrency} | ${cpu(e.postgresCpuS)} | ${cpu(e.checksPgCpuS)} | ${cpu(e.martsPgCpuS)} | ${cpu(loaderPgCpuS(e))} | ` +
        `**${pct(run.ratios.upkeepOverPostgres)}** | ${martSteps(e.martsBy)} |`,
    );
  }
  return lines;
}

/** The worker's CPU per byte of answer against a plain `JSON.parse` of the same bodies, per run. */
export function workerPerByteTable(r: BenchResults): string[] {
  const lines = [
    '| collaborators | concurrency | response bytes | worker CPU | worker CPU per byte | JSON.parse of the same bodies (CPU · per byte) | **worker CPU per byte ÷ JSON.parse** |',
    '|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const { f, run } of eachRun(r)) {
    const e = run.endToEnd;
    const j = f.jsonParse;
    lines.push(
      `| ${int(f.collaborators)} | ${run.concurrency} | ${mib(run.source.bytes)} | ${cpu(e.workerCpuS)} | ${ns(nsPerByte(e.workerCpuS, run.source.bytes))} | ` +
        `${j ? `${cpu(j.cpuS)} · ${ns(j.nsPerByte)}` : 'n/a'} | **${x(run.ratios.workerOverJsonParse ?? null)}** |`,
    );
  }
  return lines;
}

/** The example questions of docs/warehouse.md by size: the slowest of the three runs, each run, and the rows answered. */
export function questionsTable(r: BenchResults): string[] {
  const names = [...new Set(r.sizes.flatMap((f) => (f.questions ?? []).map((q) => q.name)))];
  if (names.length === 0) return [];
  const lines = [
    `| question | ${r.sizes.map((f) => `${int(f.collaborators)}: slowest (runs) · rows`).join(' | ')} |`,
    `|---|${r.sizes.map(() => '---:').join('|')}|`,
  ];
  for (const name of names) {
    const cells = r.sizes.map((f) => {
      const q = f.questions?.find((g) => g.name === name);
      if (!q) return 'n/a';
      return `${q.timedOut ? '> ' : ''}${qms(Math.max(...q.runsMs))} ms (${q.runsMs.map(qms).join(' · ')}) · ${int(q.rows)}`;
    });
    lines.push(`| ${name} | ${cells.join(' | ')} |`);
  }
  return lines;
}

/** Tables below this many rows at the largest size are summed into one line. */
const SMALL_TABLE_ROWS = 500;

/** Rows per second per table: end-to-end of each size's first run (rows ÷ wall time) and COPY floor; small tables summed. */
export function tableRatesTable(r: BenchResults): string[] {
  const e2e = (f: SizeFigures) => f.runs[0]!.endToEnd;
  const largest = e2e(r.sizes[r.sizes.length - 1]!).rows;
  const all = [...new Set(r.sizes.flatMap((f) => Object.keys(e2e(f).rows)))];
  const big = all
    .filter((t) => (largest[t] ?? 0) >= SMALL_TABLE_ROWS)
    .sort((a, b) => (largest[b] ?? 0) - (largest[a] ?? 0));
  const small = all.filter((t) => !big.includes(t));
  const head = r.sizes.map((f) => `${int(f.collaborators)}: rows · e2e rows/s · COPY rows/s`);
  const lines = [`| table | ${head.join(' | ')} |`, `|---|${r.sizes.map(() => '---:').join('|')}|`];
  const row = (label: string, tables: readonly string[]) => {
    const cells = r.sizes.map((f) => {
      const e = e2e(f);
      const present = tables.filter((t) => e.rows[t] !== undefined);
      if (present.length === 0) return '–';
      const rows = present.reduce((a, t) => a + e.rows[t]!, 0);
      const copyMs = present.reduce((a, t) => a + (f.sink.byTable[t]?.ms ?? 0), 0);
      return `${int(rows)} · ${int(rows / (e.wallMs / 1000))} · ${copyMs > 0 ? int(rows / (copyMs / 1000)) : 'n/a'}`;
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
    `concurrency ${r.settings.concurrency.join(', ')}, ${r.settings.rps} rps; run took ${(r.durationS / 60).toFixed(1)} min`
  );
}

/** Where the CPU targets' baseline comes from, or why there is none. */
export function baselineLine(r: BenchResults): string {
  if (r.baseline) {
    const b = r.baseline;
    const where = b.machine
      ? ` measured on the same kind of machine (${b.machine.cpu}, ${b.machine.cores} cores)${b.date ? ` on ${b.date}` : ''}`
      : '';
    return `CPU per million rows compared with commit ${b.commit}${where}, the same size at concurrency 4 ([\`${b.file}\`](${b.file.replace(/^bench\//, '')})).`;
  }
  return `CPU per million rows not compared: ${r.baselineNote ?? 'no baseline'}.`;
}

/** The Markdown block written into bench/README.md. */
export function markdownBlock(r: BenchResults, jsonPath: string | undefined): string {
  return [
    `_${runHeading(r)}._${jsonPath ? ` Figures: [\`${jsonPath}\`](${jsonPath.replace(/^bench\//, '')}).` : ''}`,
    '',
    ...summaryTable(r),
    '',
    baselineLine(r),
    '',
    'Once per size, on the rows of the first end-to-end:',
    '',
    ...perSizeTable(r),
    '',
    'Where the end-to-end time goes ("busy": wall time with at least one running; CPU over the backfill\'s wall time on all cores):',
    '',
    ...breakdownTable(r),
    '',
    "Where the backfill's Postgres CPU goes (CPU-seconds; the checks' and the marts' read per backend):",
    '',
    ...postgresCpuTable(r),
    '',
    "The worker's CPU per byte of answer, against a plain `JSON.parse` of the same bodies in the same run:",
    '',
    ...workerPerByteTable(r),
    '',
    ...(questionsTable(r).length > 0
      ? [
          "The example questions of docs/warehouse.md, on the warehouse of each size's first backfill (ms; three runs each):",
          '',
          ...questionsTable(r),
          '',
        ]
      : []),
    `Rows per table (end-to-end at concurrency ${r.settings.concurrency[0]}):`,
    '',
    ...tableRatesTable(r),
    '',
    'Targets:',
    '',
    ...targetLines(r),
  ].join('\n');
}
