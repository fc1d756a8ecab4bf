/**
 * The figures of a run, as written to bench/results/*.json: per company size and
 * concurrency, the source floor and the end-to-end backfill of the same windows; per
 * size, the sink floors of the rows the first backfill wrote; and the ratios and
 * baseline comparisons the targets are judged on.
 */
import type { SpanTotals } from './intervals.js';
import type { MachineInfo } from './machine.js';
import type { SystemCpu } from './proc-stats.js';
import type { BenchMode } from './options.js';

/** The source floor of one size at one concurrency. */
export interface SourceFigures {
  /** The floor: one pass over the workload, ms. */
  readonly ms: number;
  /** Requests of one pass: the requests the plan of windows needs. */
  readonly requests: number;
  /** Response bytes of one pass. */
  readonly bytes: number;
  /** Slowest request of the floor pass, ms. */
  readonly slowestMs: number;
  /** Most requests the emulator saw in flight at once. */
  readonly maxInFlight: number;
  /** Emulator CPU during the floor pass, s. */
  readonly emulatorCpuS: number;
  /** The whole machine during the floor pass (all processes, all cores), s. */
  readonly machine: SystemCpu;
}

/** The end-to-end backfill of one size at one concurrency. */
export interface EndToEndFigures {
  /** Spawn to exit of `punchline backfill`, ms. */
  readonly wallMs: number;
  /** Its exit code. */
  readonly exitCode: number;
  /** Jobs that succeeded, of all. */
  readonly jobsSucceeded: number | null;
  readonly jobsTotal: number | null;
  /** Requests the emulator served during the backfill (made, against the plan's needed). */
  readonly requests: number;
  /** Requests per endpoint the emulator served. */
  readonly requestsByEndpoint: Record<string, number>;
  /** Most requests the emulator saw in flight at once. */
  readonly maxInFlight: number;
  /** Peak resident set of the backfill process, MiB. */
  readonly peakRssMiB: number;
  /** Its resident set at its first HTTP request (code loaded, no data yet), MiB. */
  readonly baselineRssMiB: number | null;
  /** CPU of the backfill process, s. */
  readonly workerCpuS: number | null;
  /** CPU of the emulator during the backfill, s. */
  readonly emulatorCpuS: number;
  /**
   * CPU of every Postgres process during the backfill (backends that ended included;
   * other clients' work too), s: what the backfill cost Postgres.
   */
  readonly postgresCpuS: number;
  /**
   * Of it, the backends of the checks after each window (`punchline-checks`), s; absent
   * in results older than the separate check pool. The rest is the "loader" figure: what
   * writing the rows (and their bookkeeping) cost Postgres.
   */
  readonly checksPgCpuS?: number;
  /**
   * Of it, the marts' upkeep in the load transactions (src/marts/upkeep.ts), s: each
   * statement's backend run time, by mart; absent in results older than the marts.
   */
  readonly martsPgCpuS?: number;
  readonly martsBy?: Readonly<Record<string, { readonly statements: number; readonly cpuS: number }>>;
  /** Rows of the marts after the backfill, per table (not counted in `rows`). */
  readonly martRows?: Record<string, number>;
  /** The whole machine during the backfill (all processes, all cores), s: busy beyond worker + emulator + Postgres is someone else's. */
  readonly machine: SystemCpu;
  /** Samples (every 100 ms) of the run's active Postgres backends by wait event (`CPU` = none). */
  readonly dbWaits: Record<string, number>;
  /** Share of those samples in which a client backend of another database was active (its CPU counts as Postgres CPU). */
  readonly otherDatabasesActive?: number;
  /** Process start to its first HTTP request (module loading, connections), ms. */
  readonly startupMs: number | null;
  /** Loader spans published by the sync (COPY batches, merges); `busyMs` is "loader busy (wall)". */
  readonly loader: SpanTotals | null;
  /** Loader spans per name (`copy:<table>`, `merge:<table>`): count and summed ms. */
  readonly loaderBy: Record<string, { calls: number; sumMs: number }>;
  /** Warehouse transactions (the database's share of the loaders). */
  readonly transactions: SpanTotals | null;
  /** HTTP attempts, request start to last body byte. */
  readonly http: SpanTotals | null;
  /** Wall time with an HTTP attempt or a loader running, ms. */
  readonly httpOrLoaderBusyMs: number | null;
  /** Job time per resource from sync_runs. */
  readonly jobTime: Record<string, { jobs: number; sumMs: number; requests: number }>;
  /** Rows per table after the backfill. */
  readonly rows: Record<string, number>;
  /** Rows per second per table over the wall time. */
  readonly rowsPerSecond: Record<string, number>;
}

/** The sink floors of one size (the rows of its first end-to-end). */
export interface SinkFigures {
  /** Summed COPY time into unlogged tables without keys (the COPY floor), ms. */
  readonly ms: number;
  /** Postgres CPU of those COPYs, s. */
  readonly pgCpuS: number;
  /** Summed COPY time into logged tables with the warehouse's keys and indexes ("COPY with keys, logged"), ms. */
  readonly indexedMs: number;
  /** Postgres CPU of those COPYs, s: what the loader figure is compared with. */
  readonly indexedPgCpuS: number;
  readonly rows: number;
  readonly bytes: number;
  /** Per table: rows, bytes, wall and Postgres CPU of both COPYs, and rows per second of the floor. */
  readonly byTable: Record<
    string,
    {
      rows: number;
      bytes: number;
      ms: number;
      pgCpuS: number;
      indexedMs: number;
      indexedPgCpuS: number;
      rowsPerSecond: number;
    }
  >;
}

/** A plain `JSON.parse` of every body the windows need, each parse call timed in CPU (the bench process's). */
export interface JsonParseFigures {
  /** Requests fetched (the source floor's workload). */
  readonly requests: number;
  /** Their body bytes. */
  readonly bytes: number;
  /** CPU of the `JSON.parse` calls alone (`process.cpuUsage()` around each), s. */
  readonly cpuS: number;
  /** `cpuS` per byte, ns. */
  readonly nsPerByte: number;
}

/** One example question of docs/warehouse.md, asked three times of a size's first warehouse. */
export interface QuestionFigures {
  /** Its name in the docs' marker. */
  readonly name: string;
  /** Wall time of each run, ms (query sent to last row received). */
  readonly runsMs: readonly number[];
  /** Rows it answered. */
  readonly rows: number;
  /** Set when a run was cancelled by the statement timeout (its time is then the timeout). */
  readonly timedOut?: true;
}

/** CPU-seconds per million rows loaded. */
export interface PerMillionRows {
  /** Worker (the backfill process), s per million rows; null when the probe did not report. */
  readonly workerCpuS: number | null;
  /** Every Postgres process during the backfill, s per million rows. */
  readonly postgresCpuS: number | null;
}

/** The end-to-end ratios of one size at one concurrency. */
export interface RunRatios {
  /** End-to-end wall time ÷ source floor at the same concurrency. */
  readonly endToEndOverSource: number;
  /** End-to-end minus the process's startup ÷ source floor: the part that grows with size. */
  readonly endToEndAfterStartupOverSource: number | null;
  /** Loader (Postgres CPU of the backfill) ÷ Postgres CPU of "COPY with keys, logged" of the same rows. */
  readonly loaderOverKeyedCopy: number | null;
  /** Worker CPU per million rows ÷ the baseline's at the same size (null: no baseline). */
  readonly workerCpuOverBaseline: number | null;
  /** Postgres CPU per million rows ÷ the baseline's at the same size (null: no baseline). */
  readonly postgresCpuOverBaseline: number | null;
  /**
   * The marts' upkeep plus the checks after each window ÷ the backfill's Postgres CPU
   * (issue 23); null when either was not measured, absent in results older than it.
   */
  readonly upkeepOverPostgres?: number | null;
  /** The backfill's whole Postgres CPU (loads, checks, marts) ÷ that of "COPY with keys, logged" of the same rows (issue 23). */
  readonly postgresOverKeyedCopy?: number | null;
  /** The worker's CPU per byte of answer ÷ that of a plain `JSON.parse` of the same bodies (issue 23). */
  readonly workerOverJsonParse?: number | null;
}

/** One size at one concurrency: source floor and end-to-end. */
export interface RunFigures {
  /** Requests in flight of the floor; API_MAX_CONCURRENCY = WORKER_CONCURRENCY of the backfill. */
  readonly concurrency: number;
  readonly source: SourceFigures;
  readonly endToEnd: EndToEndFigures;
  /** Rows loaded in all (the sum of `endToEnd.rows`). */
  readonly rows: number;
  readonly perMillionRows: PerMillionRows;
  readonly ratios: RunRatios;
}

/** Everything measured at one size. */
export interface SizeFigures {
  /** Collaborators in all (`--scale`). */
  readonly collaborators: number;
  /** Companies of the group. */
  readonly companies: number;
  /** Emulator spawn to listening, ms. */
  readonly emulatorStartMs: number;
  /** Warm-up of the emulator's caches before anything is timed (workload.ts `planWarmUp`), ms. */
  readonly warmUpMs: number;
  /** Requests the plan of windows needs (the sync's planner): what the source floor fetches. */
  readonly plannedRequests: number;
  /** The same, per endpoint. */
  readonly plannedByEndpoint: Record<string, number>;
  /** One entry per concurrency, in the order of `--concurrency`. */
  readonly runs: RunFigures[];
  /** Sink floors of the first run's rows. */
  readonly sink: SinkFigures;
  /** The warehouse's quality checks over the first run's schema, ms (absent: not timed). */
  readonly checksMs?: number;
  /** The example questions of docs/warehouse.md over the first run's schema (absent: not timed). */
  readonly questions?: readonly QuestionFigures[];
  /** A plain `JSON.parse` of the workload's bodies, after the backfills (absent: not measured). */
  readonly jsonParse?: JsonParseFigures;
}

/** The figures of an earlier run the CPU targets are judged against. */
export interface BaselineFigures {
  /** Its commit. */
  readonly commit: string;
  /** Its results file, relative to the repository root. */
  readonly file: string;
  /** Day it was measured (YYYY-MM-DD), when the file says. */
  readonly date?: string;
  /** The machine it was measured on, when the file says. */
  readonly machine?: { readonly cpu: string; readonly cores: number };
  /** Per size (collaborators as a string): rows loaded and CPU-seconds per million rows of its end-to-end. */
  readonly bySize: Record<
    string,
    { rows: number; workerCpuPerMRows: number | null; postgresCpuPerMRows: number | null }
  >;
}

/** One benchmark run. */
export interface BenchResults {
  readonly mode: BenchMode;
  /** ISO time the run started. */
  readonly date: string;
  readonly machine: MachineInfo;
  /** The options that shape the figures. */
  readonly settings: {
    readonly from: string;
    readonly to: string;
    readonly today: string;
    readonly seed: string;
    readonly resources: readonly string[];
    readonly concurrency: readonly number[];
    readonly rps: number;
  };
  readonly sizes: SizeFigures[];
  /** The baseline of the CPU targets, or null with the reason in `baselineNote`. */
  readonly baseline: BaselineFigures | null;
  readonly baselineNote?: string;
  /** 1-minute load average when the run ended. */
  readonly loadAtEnd: number;
  /** Wall time of the whole run, s. */
  readonly durationS: number;
}
