/**
 * The figures of a run, as written to bench/results/*.json: per company size, the
 * source floor, the end-to-end backfill and the sink floor measured on the same
 * windows, and the ratios the issue asks for.
 */
import type { SpanTotals } from './intervals.js';
import type { MachineInfo } from './machine.js';
import type { SystemCpu } from './proc-stats.js';
import type { BenchMode } from './options.js';

/** The source floor of one size. */
export interface SourceFigures {
  /** Warm-up of the emulator's caches before anything is timed (workload.ts `planWarmUp`), ms. */
  readonly warmUpMs: number;
  /** The floor: one pass over the workload, ms. */
  readonly ms: number;
  /** Requests of one pass. */
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

/** The end-to-end backfill of one size. */
export interface EndToEndFigures {
  /** Spawn to exit of `punchline backfill`, ms. */
  readonly wallMs: number;
  /** Its exit code. */
  readonly exitCode: number;
  /** Jobs that succeeded, of all. */
  readonly jobsSucceeded: number | null;
  readonly jobsTotal: number | null;
  /** Requests the emulator served. */
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
  /** CPU of every Postgres process during the backfill (other clients' work included), s. */
  readonly postgresCpuS: number;
  /** The whole machine during the backfill (all processes, all cores), s: busy beyond worker + emulator + Postgres is someone else's. */
  readonly machine: SystemCpu;
  /** Samples (every 100 ms) of the run's active Postgres backends by wait event (`CPU` = none). */
  readonly dbWaits: Record<string, number>;
  /** Process start to its first HTTP request (module loading, connections), ms. */
  readonly startupMs: number | null;
  /** Loader calls (row building, pool wait, transaction). */
  readonly loader: SpanTotals | null;
  /** Loader calls per loader: calls and summed ms. */
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

/** The sink floor of one size. */
export interface SinkFigures {
  /** Summed COPY time, ms. */
  readonly ms: number;
  /** Summed COPY time into logged tables with the warehouse's keys and indexes, ms. */
  readonly indexedMs: number;
  readonly rows: number;
  readonly bytes: number;
  /** Per table: rows, bytes, ms (also into the indexed table) and rows per second. */
  readonly byTable: Record<string, { rows: number; bytes: number; ms: number; indexedMs: number; rowsPerSecond: number }>;
}

/** Everything measured at one size. */
export interface SizeFigures {
  /** Collaborators in all (`--scale`). */
  readonly collaborators: number;
  /** Companies of the group. */
  readonly companies: number;
  /** Emulator spawn to listening, ms. */
  readonly emulatorStartMs: number;
  /** Requests the source floor planned, per endpoint. */
  readonly plannedByEndpoint: Record<string, number>;
  readonly source: SourceFigures;
  readonly endToEnd: EndToEndFigures;
  readonly sink: SinkFigures;
  /** The two ratios of the issue. */
  readonly ratios: {
    /** End-to-end wall time ÷ source floor. */
    readonly endToEndOverSource: number;
    /** End-to-end minus the process's startup ÷ source floor: the part that grows with size. */
    readonly endToEndAfterStartupOverSource: number | null;
    /** Loader busy time ÷ COPY floor (null when the probe saw no loader). */
    readonly loaderOverCopy: number | null;
    /** Loader busy time ÷ COPY into logged tables with keys and indexes. */
    readonly loaderOverIndexedCopy: number | null;
  };
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
    readonly concurrency: number;
    readonly rps: number;
  };
  readonly sizes: SizeFigures[];
  /** 1-minute load average when the run ended. */
  readonly loadAtEnd: number;
  /** Wall time of the whole run, s. */
  readonly durationS: number;
}
